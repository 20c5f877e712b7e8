// frame.cpp — what the caller's memory looks like: validation, the zero-copy
// luma view, and full-colour warps straight from the source planes.
//
// YUV is taken as full range (JPEG/BT.601 coefficients), which is what UVC
// webcams deliver after MJPEG decoding and what makes "luma >= 250" mean
// saturated.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

namespace cardvision {

namespace {

// The limits of frame.cpp, in one place. (The rest of its numbers are
// formats: bytes per pixel, chroma subsampling, colour standards.)
struct FrameParams {
    // Largest width or height accepted (px): beyond any camera's, and small
    // enough that a frame's bytes (width x height x 4) fit in an int.
    int max_dimension = 16384;
    // Pixels kept around the card's box in a still's crop (CardCrop):
    // bilinear warps read one pixel beyond the quad, chroma twice that in
    // luma pixels; 4 keeps every read inside the crop, so the still is the
    // same as one warped from the whole frame.
    int crop_margin_px = 4;
};
constexpr FrameParams kFrame{};

// Y'CbCr to R'G'B' in one standard's matrix (full-range levels):
// B = Y + b_cb Cb, G = Y + g_cb Cb + g_cr Cr, R = Y + r_cr Cr.
struct YCbCrMatrix {
    float b_cb, g_cb, g_cr, r_cr;
};
constexpr YCbCrMatrix kBt601{1.772f, -0.344136f, -0.714136f, 1.402f};
constexpr YCbCrMatrix kBt709{1.8556f, -0.187324f, -0.468124f, 1.5748f};

}  // namespace

static int plane_count(hkcv_pixel_format f) {
    switch (f) {
    case HKCV_PIXEL_GRAY8: case HKCV_PIXEL_BGR: case HKCV_PIXEL_BGRA: return 1;
    case HKCV_PIXEL_NV12: return 2;
    case HKCV_PIXEL_I420: return 3;
    }
    return 0;
}

hkcv_status validate_image(const hkcv_image *image) {
    if (!image) return HKCV_ERR_NULL;
    const int f = image->format;
    if (f < HKCV_PIXEL_GRAY8 || f > HKCV_PIXEL_BGRA) return HKCV_ERR_FORMAT;
    const int w = image->width, h = image->height;
    if (w <= 0 || h <= 0 || w > kFrame.max_dimension || h > kFrame.max_dimension) return HKCV_ERR_SIZE;
    const bool chroma_subsampled = f == HKCV_PIXEL_I420 || f == HKCV_PIXEL_NV12;
    if (chroma_subsampled && ((w & 1) || (h & 1))) return HKCV_ERR_SIZE;
    const int n = plane_count(image->format);
    for (int i = 0; i < n; ++i)
        if (!image->planes[i]) return HKCV_ERR_NULL;
    int row_bytes[3] = {w, 0, 0};
    switch (image->format) {
    case HKCV_PIXEL_BGR: row_bytes[0] = 3 * w; break;
    case HKCV_PIXEL_BGRA: row_bytes[0] = 4 * w; break;
    case HKCV_PIXEL_NV12: row_bytes[1] = w; break;            // w/2 UV pairs
    case HKCV_PIXEL_I420: row_bytes[1] = row_bytes[2] = w / 2; break;
    default: break;
    }
    for (int i = 0; i < n; ++i)
        if (image->strides[i] < row_bytes[i]) return HKCV_ERR_STRIDE;
    return HKCV_OK;
}

static cv::Mat wrap(const uint8_t *p, int rows, int cols, int type, int stride) {
    return cv::Mat(rows, cols, type, const_cast<uint8_t *>(p), size_t(stride));
}

cv::Mat luma_of(const hkcv_image &im, cv::Mat &scratch) {
    switch (im.format) {
    case HKCV_PIXEL_GRAY8: case HKCV_PIXEL_I420: case HKCV_PIXEL_NV12:
        return wrap(im.planes[0], im.height, im.width, CV_8UC1, im.strides[0]);
    case HKCV_PIXEL_BGR:
        cv::cvtColor(wrap(im.planes[0], im.height, im.width, CV_8UC3, im.strides[0]), scratch,
                     cv::COLOR_BGR2GRAY);
        return scratch;
    case HKCV_PIXEL_BGRA:
        cv::cvtColor(wrap(im.planes[0], im.height, im.width, CV_8UC4, im.strides[0]), scratch,
                     cv::COLOR_BGRA2GRAY);
        return scratch;
    }
    return cv::Mat();
}

LevelHistogram levels_in_view(const cv::Mat &luma) {
    constexpr int kStride = 8;
    LevelHistogram levels;
    for (int y = kStride / 2; y < luma.rows; y += kStride) {
        const uint8_t *row = luma.ptr<uint8_t>(y);
        for (int x = kStride / 2; x < luma.cols; x += kStride) levels.add(row[x]);
    }
    return levels;
}

// Where a 4:2:0 colour sample sits against the luma grid, in luma pixels.
static cv::Point2f siting_of(hkcv_chroma_site site) {
    switch (site) {
    case HKCV_CHROMA_SITE_JPEG: return {0.5f, 0.5f};
    case HKCV_CHROMA_SITE_COSITED: return {0.f, 0.f};
    default: return {0.f, 0.5f};  // MPEG-2's, and what an unknown value is read as
    }
}

Chroma chroma_of(const hkcv_image &im, std::array<cv::Mat, 2> &nv12_split) {
    Chroma c;
    c.siting = siting_of(im.chroma_site);
    const int w = (im.width + 1) / 2, h = (im.height + 1) / 2;
    if (im.format == HKCV_PIXEL_I420) {
        c.u = wrap(im.planes[1], h, w, CV_8UC1, im.strides[1]);
        c.v = wrap(im.planes[2], h, w, CV_8UC1, im.strides[2]);
    } else if (im.format == HKCV_PIXEL_NV12) {
        cv::split(wrap(im.planes[1], h, w, CV_8UC2, im.strides[1]), nv12_split.data());
        c.u = nv12_split[0];
        c.v = nv12_split[1];
    }
    return c;
}

// Y'CbCr to BGR with the stream's range and matrix: limited-range levels
// are stretched to 0-255 first (Y' - 16) * 255/219, (C - 128) * 255/224.
static cv::Mat yuv_to_bgr(const cv::Mat &y, const cv::Mat &u_half, const cv::Mat &v_half, hkcv_color_range range,
                          hkcv_color_matrix matrix) {
    cv::Mat u, v, yuv, bgr;
    cv::resize(u_half, u, y.size(), 0, 0, cv::INTER_LINEAR);
    cv::resize(v_half, v, y.size(), 0, 0, cv::INTER_LINEAR);
    cv::merge(std::vector<cv::Mat>{y, u, v}, yuv);
    const bool limited = range == HKCV_RANGE_LIMITED;
    const float ys = limited ? 255.f / 219.f : 1.f, cs = limited ? 255.f / 224.f : 1.f, y0 = limited ? 16.f : 0.f;
    const YCbCrMatrix &k = matrix == HKCV_MATRIX_BT709 ? kBt709 : kBt601;
    const float b_cb = k.b_cb, g_cb = k.g_cb, g_cr = k.g_cr, r_cr = k.r_cr;
    const cv::Matx34f m(ys, b_cb * cs, 0.f, -ys * y0 - b_cb * cs * 128.f,
                        ys, g_cb * cs, g_cr * cs, -ys * y0 - (g_cb + g_cr) * cs * 128.f,
                        ys, 0.f, r_cr * cs, -ys * y0 - r_cr * cs * 128.f);
    cv::transform(yuv, bgr, m);
    return bgr;
}

ColourRaster warp_colour(const hkcv_image &im, const cv::Matx33d &H, int w, int h) {
    ColourRaster raster;
    raster.range = im.range;
    raster.matrix = im.matrix;
    const int flags = cv::INTER_LINEAR | cv::WARP_INVERSE_MAP;
    const cv::Size size(w, h);
    switch (im.format) {
    case HKCV_PIXEL_GRAY8: {
        cv::Mat g;
        cv::warpPerspective(wrap(im.planes[0], im.height, im.width, CV_8UC1, im.strides[0]), g, H,
                            size, flags, cv::BORDER_REPLICATE);
        cv::cvtColor(g, raster.bgr, cv::COLOR_GRAY2BGR);
        return raster;
    }
    case HKCV_PIXEL_BGR:
        cv::warpPerspective(wrap(im.planes[0], im.height, im.width, CV_8UC3, im.strides[0]), raster.bgr, H,
                            size, flags, cv::BORDER_REPLICATE);
        return raster;
    case HKCV_PIXEL_BGRA: {
        cv::Mat a;
        cv::warpPerspective(wrap(im.planes[0], im.height, im.width, CV_8UC4, im.strides[0]), a, H,
                            size, flags, cv::BORDER_REPLICATE);
        cv::cvtColor(a, raster.bgr, cv::COLOR_BGRA2BGR);
        return raster;
    }
    case HKCV_PIXEL_I420: case HKCV_PIXEL_NV12: {
        // Warp each plane on its own grid. A chroma sample (i) sits at luma
        // coordinate 2i + 0.5, so raster-chroma -> image-chroma is
        // A * H * B with B: c -> 2c + 0.5 and A: x -> (x - 0.5) / 2.
        const cv::Matx33d B(2, 0, 0.5, 0, 2, 0.5, 0, 0, 1);
        const cv::Matx33d A(0.5, 0, -0.25, 0, 0.5, -0.25, 0, 0, 1);
        const cv::Matx33d Hc = A * H * B;
        const int cw = im.width / 2, ch = im.height / 2;
        const cv::Size half((w + 1) / 2, (h + 1) / 2);
        cv::Mat y, u, v;
        cv::warpPerspective(wrap(im.planes[0], im.height, im.width, CV_8UC1, im.strides[0]), y, H,
                            size, flags, cv::BORDER_REPLICATE);
        if (im.format == HKCV_PIXEL_I420) {
            cv::warpPerspective(wrap(im.planes[1], ch, cw, CV_8UC1, im.strides[1]), u, Hc, half, flags,
                                cv::BORDER_REPLICATE);
            cv::warpPerspective(wrap(im.planes[2], ch, cw, CV_8UC1, im.strides[2]), v, Hc, half, flags,
                                cv::BORDER_REPLICATE);
        } else {
            cv::Mat uv;
            cv::warpPerspective(wrap(im.planes[1], ch, cw, CV_8UC2, im.strides[1]), uv, Hc, half, flags,
                                cv::BORDER_REPLICATE);
            cv::Mat parts[2];
            cv::split(uv, parts);
            u = parts[0];
            v = parts[1];
        }
        raster.y = y;
        raster.u = u;
        raster.v = v;
        return raster;
    }
    }
    return raster;
}

void CardCrop::assign(const hkcv_image &im, const Quad &card) {
    constexpr int kMargin = kFrame.crop_margin_px;
    cv::Rect b = cv::boundingRect(std::vector<cv::Point2f>(card.begin(), card.end()));
    b = cv::Rect(b.x - kMargin, b.y - kMargin, b.width + 2 * kMargin, b.height + 2 * kMargin) &
        cv::Rect(0, 0, im.width, im.height);
    const bool subsampled = im.format == HKCV_PIXEL_I420 || im.format == HKCV_PIXEL_NV12;
    if (subsampled) {  // whole chroma samples: even origin and size
        const int x0 = b.x & ~1, y0 = b.y & ~1;
        b = cv::Rect(x0, y0, (b.br().x - x0 + 1) & ~1, (b.br().y - y0 + 1) & ~1) & cv::Rect(0, 0, im.width, im.height);
    }
    format = im.format;
    range = im.range;
    matrix = im.matrix;
    box = b;
    // Bytes per pixel of each plane, and each plane's sampling (1 or 2).
    int bpp[3] = {1, 0, 0}, sub = subsampled ? 2 : 1, n = 1;
    switch (im.format) {
    case HKCV_PIXEL_BGR: bpp[0] = 3; break;
    case HKCV_PIXEL_BGRA: bpp[0] = 4; break;
    case HKCV_PIXEL_NV12: bpp[1] = 2; n = 2; break;
    case HKCV_PIXEL_I420: bpp[1] = bpp[2] = 1; n = 3; break;
    default: break;
    }
    for (int i = 0; i < 3; ++i) {
        if (i >= n) { planes[i].release(); continue; }
        const int s = i == 0 ? 1 : sub;
        const cv::Rect r(b.x / s * bpp[i], b.y / s, b.width / s * bpp[i], b.height / s);
        const cv::Mat whole(im.height / s, (im.width / s) * bpp[i], CV_8UC1, const_cast<uint8_t *>(im.planes[i]),
                            size_t(im.strides[i]));
        whole(r).copyTo(planes[i]);
    }
    for (int i = 0; i < 4; ++i) quad[i] = card[i] - cv::Point2f(float(b.x), float(b.y));
}

hkcv_image CardCrop::view() const {
    hkcv_image im{};
    im.format = format;
    im.range = range;
    im.matrix = matrix;
    im.width = box.width;
    im.height = box.height;
    for (int i = 0; i < 3; ++i) {
        im.planes[i] = planes[i].empty() ? nullptr : planes[i].data;
        im.strides[i] = planes[i].empty() ? 0 : int(planes[i].step[0]);
    }
    return im;
}

cv::Mat ColourRaster::to_bgr() const {
    if (!bgr.empty()) return bgr;
    if (y.empty()) return cv::Mat();
    return yuv_to_bgr(y, u, v, range, matrix);
}

}  // namespace cardvision
