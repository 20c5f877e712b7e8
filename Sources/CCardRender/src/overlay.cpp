// overlay.cpp — what --annotate draws on a frame: the tracked quad, a few
// lines of text, a progress bar. On I420 the same shape is drawn into Y at
// full size and into U and V at half size, with the colour's full-range
// BT.601 components.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <functional>

namespace cardrender {

static bool frame_valid(const cr_frame *f) {
    if (!f || !f->planes[0]) return false;
    if (f->width <= 0 || f->height <= 0 || f->width > 16384 || f->height > 16384) return false;
    if (f->format == CR_FRAME_BGR) return f->strides[0] >= 3 * f->width;
    if (f->format == CR_FRAME_I420)
        return f->planes[1] && f->planes[2] && !(f->width & 1) && !(f->height & 1) && f->strides[0] >= f->width &&
               f->strides[1] >= f->width / 2 && f->strides[2] >= f->width / 2;
    return false;
}

// Calls draw(plane, scale, value) once per plane with the colour in that plane.
static void each_plane(const cr_frame &f, cr_color c,
                       const std::function<void(cv::Mat &, double, cv::Scalar)> &draw) {
    if (f.format == CR_FRAME_BGR) {
        cv::Mat m(f.height, f.width, CV_8UC3, f.planes[0], size_t(f.strides[0]));
        draw(m, 1.0, cv::Scalar(c.b, c.g, c.r));
        return;
    }
    const double y = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
    const double u = 128 - 0.168736 * c.r - 0.331264 * c.g + 0.5 * c.b;
    const double v = 128 + 0.5 * c.r - 0.418688 * c.g - 0.081312 * c.b;
    cv::Mat Y(f.height, f.width, CV_8UC1, f.planes[0], size_t(f.strides[0]));
    cv::Mat U(f.height / 2, f.width / 2, CV_8UC1, f.planes[1], size_t(f.strides[1]));
    cv::Mat V(f.height / 2, f.width / 2, CV_8UC1, f.planes[2], size_t(f.strides[2]));
    draw(Y, 1.0, cv::Scalar(y));
    draw(U, 0.5, cv::Scalar(u));
    draw(V, 0.5, cv::Scalar(v));
}

}  // namespace cardrender

using namespace cardrender;

extern "C" {

cr_status cr_draw_quad(const cr_frame *frame, const float corners[8], cr_color color, int thickness) {
    if (!frame_valid(frame) || !corners) return frame && corners ? CR_ERR_SIZE : CR_ERR_NULL;
    if (thickness < 1 || thickness > 64) return CR_ERR_ARG;
    for (int i = 0; i < 8; ++i)
        if (!std::isfinite(corners[i]) || std::abs(corners[i]) > 1e6f) return CR_ERR_ARG;
    try {
        each_plane(*frame, color, [&](cv::Mat &m, double s, cv::Scalar v) {
            std::vector<cv::Point> pts;
            for (int i = 0; i < 4; ++i)
                pts.emplace_back(int(std::lround(corners[2 * i] * s * 16)), int(std::lround(corners[2 * i + 1] * s * 16)));
            cv::polylines(m, pts, true, v, std::max(1, int(thickness * s)), cv::LINE_AA, 4);
            cv::circle(m, pts[0], int(std::max(2.0, 2.5 * thickness * s) * 16), v, cv::FILLED, cv::LINE_AA, 4);
        });
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

cr_status cr_draw_text(const cr_frame *frame, const char *const *lines, int count, int x, int y, double scale,
                       cr_color color) {
    if (!frame || !lines) return CR_ERR_NULL;
    if (!frame_valid(frame)) return CR_ERR_SIZE;
    if (count < 0 || count > 256 || !(scale > 0.1 && scale < 10)) return CR_ERR_ARG;
    try {
        const double fs = 0.6 * scale;
        const int line_h = int(22 * scale);
        int width = 0;
        for (int i = 0; i < count; ++i) {
            if (!lines[i]) return CR_ERR_NULL;
            int base = 0;
            width = std::max(width, cv::getTextSize(lines[i], cv::FONT_HERSHEY_SIMPLEX, fs, 1, &base).width);
        }
        const cv::Rect box(x, y, width + int(12 * scale), count * line_h + int(8 * scale));
        each_plane(*frame, cr_color{20, 20, 20}, [&](cv::Mat &m, double s, cv::Scalar v) {
            cv::Rect b(int(box.x * s), int(box.y * s), int(box.width * s), int(box.height * s));
            b &= cv::Rect(0, 0, m.cols, m.rows);
            if (b.area() > 0) m(b).setTo(v);
        });
        each_plane(*frame, color, [&](cv::Mat &m, double s, cv::Scalar v) {
            if (s < 1) return;  // glyphs are too thin for half-size chroma: luma carries the text
            for (int i = 0; i < count; ++i)
                cv::putText(m, lines[i], cv::Point(x + int(6 * scale), y + (i + 1) * line_h), cv::FONT_HERSHEY_SIMPLEX,
                            fs, v, std::max(1, int(scale * 1.2)), cv::LINE_AA);
        });
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

cr_status cr_draw_progress(const cr_frame *frame, int x, int y, int width, int height, double fraction,
                           cr_color color) {
    if (!frame) return CR_ERR_NULL;
    if (!frame_valid(frame)) return CR_ERR_SIZE;
    if (width <= 0 || height <= 0 || !std::isfinite(fraction)) return CR_ERR_ARG;
    fraction = std::clamp(fraction, 0.0, 1.0);
    try {
        each_plane(*frame, color, [&](cv::Mat &m, double s, cv::Scalar v) {
            cv::Rect outer(int(x * s), int(y * s), std::max(1, int(width * s)), std::max(1, int(height * s)));
            cv::rectangle(m, outer, v, 1);
            cv::Rect fill(outer.x, outer.y, int(outer.width * fraction), outer.height);
            fill &= cv::Rect(0, 0, m.cols, m.rows);
            if (fill.area() > 0) m(fill).setTo(v);
        });
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

}  // extern "C"
