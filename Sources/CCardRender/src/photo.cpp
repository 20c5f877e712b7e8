// photo.cpp — photographs for harder scenes: a JPEG file decoded with
// libjpeg (the trimmed OpenCV has no imgcodecs, see pkgconfig/), and the
// ways a photograph is fitted to what it stands for.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <csetjmp>
#include <cmath>
#include <cstdio>
#include <memory>

#include "jpeg_errors.hpp"

namespace cardrender {

cv::Mat load_jpeg(const char *path) {
    std::unique_ptr<FILE, int (*)(FILE *)> file(std::fopen(path, "rb"), std::fclose);
    if (!file) return {};
    jpeg_decompress_struct info{};
    JpegErrors err{};
    info.err = err.install();
    // The pixels live behind a pointer set before setjmp: locals changed
    // between setjmp and longjmp would be indeterminate after the jump.
    const auto holder = std::make_unique<cv::Mat>();
    cv::Mat &out = *holder;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&info);
        return {};
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file.get());
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_RGB;  // greyscale and YCbCr files alike
    jpeg_start_decompress(&info);
    if (info.output_components != 3 || info.output_width < 16 || info.output_height < 16) {
        jpeg_destroy_decompress(&info);
        return {};
    }
    out.create(int(info.output_height), int(info.output_width), CV_8UC3);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out.ptr<uint8_t>(int(info.output_scanline));
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    cv::Mat bgr;
    cv::cvtColor(out, bgr, cv::COLOR_RGB2BGR);
    return bgr;
}

cv::Mat cover(const cv::Mat &photo, cv::Size size) {
    // Scale so the photograph covers the whole size, then crop the centre.
    const double k = std::max(double(size.width) / photo.cols, double(size.height) / photo.rows);
    const int w = std::max(size.width, int(std::ceil(photo.cols * k))), h = std::max(size.height, int(std::ceil(photo.rows * k)));
    cv::Mat scaled;
    cv::resize(photo, scaled, cv::Size(w, h), 0, 0, k < 1 ? cv::INTER_AREA : cv::INTER_CUBIC);
    return scaled(cv::Rect((w - size.width) / 2, (h - size.height) / 2, size.width, size.height)).clone();
}

}  // namespace cardrender
