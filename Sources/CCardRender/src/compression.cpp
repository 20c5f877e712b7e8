// compression.cpp — what a low-bitrate stream does to a frame: a JPEG round
// trip (libjpeg, in memory). Its 8x8 transform blocks, coarse quantisation
// and ringing are the artefacts of H.264 at a low bitrate too: an edge
// smeared into the blocks on either side, a faint line lost, a texture's
// lines turned into block boundaries that line up with each other.
#include "render_internal.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "jpeg_errors.hpp"

namespace cardrender {

namespace {

// The encoded bytes, owned: libjpeg allocates them with malloc.
using Encoded = std::unique_ptr<unsigned char, decltype(&std::free)>;

// Encodes `image` (grey or BGR) into `bytes`; false on a libjpeg error.
bool encode(const cv::Mat &image, int quality, Encoded &bytes, unsigned long &size) {
    jpeg_compress_struct info{};
    JpegErrors err{};
    info.err = err.install();
    // libjpeg writes through this pointer until it is finished; it lives in
    // a holder set before setjmp (locals changed after it would be
    // indeterminate after the jump).
    const auto out = std::make_unique<unsigned char *>(nullptr);
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&info);
        std::free(*out);
        return false;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, out.get(), &size);
    info.image_width = JDIMENSION(image.cols);
    info.image_height = JDIMENSION(image.rows);
    info.input_components = image.channels();
    info.in_color_space = image.channels() == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = const_cast<uint8_t *>(image.ptr<uint8_t>(int(info.next_scanline)));
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    bytes.reset(*out);
    return true;
}

// Decodes into `image`, which keeps its size and type; false on an error.
bool decode(const unsigned char *bytes, unsigned long size, cv::Mat &image) {
    jpeg_decompress_struct info{};
    JpegErrors err{};
    info.err = err.install();
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&info);
        return false;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, bytes, size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = image.channels() == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
    jpeg_start_decompress(&info);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = image.ptr<uint8_t>(int(info.output_scanline));
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return true;
}
}  // namespace

void compress(cv::Mat &image, int quality) {
    CV_Assert(image.depth() == CV_8U && (image.channels() == 1 || image.channels() == 3));
    Encoded bytes(nullptr, &std::free);
    unsigned long size = 0;
    // An image of the size and type asked for never fails to code; the
    // caller turns an exception into CR_ERR_INTERNAL. (Both read and write
    // it row by row: a view into a larger image is coded in place.)
    if (!encode(image, quality, bytes, size) || !decode(bytes.get(), size, image))
        throw std::runtime_error("JPEG round trip failed");
}

}  // namespace cardrender
