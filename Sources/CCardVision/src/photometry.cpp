// photometry.cpp — glare and focus, measured on the rectified card so that
// neither depends on perspective or distance.
//
// The card's luma is rectified (perspective removed) onto a raster; a mask
// drops the rounded corners and a rim that may hold background.
//   sharpness   = v / (v + 60), v = variance of the 3x3 Laplacian over the
//                 masked 320 x 202 raster. 60 puts a sharp, well-lit printed
//                 card around 0.8-0.95 and a card blurred by a sigma of 2-3 px
//                 (at 720p, card half the frame wide) below 0.5; the curve
//                 saturates, so heavier texture cannot exceed 1. v itself
//                 is kept as focus: the liveness evidence compares a
//                 frame's with the same session's sharpest.
//   glare       = fraction of masked raster pixels with luma >= glare_luma
//   glare_blob  = largest 8-connected saturated region / masked area
//
// Cost matters: this runs on every tracked frame, next to a video decoder on
// the same cores. So nothing is allocated per frame (the scratch lives in the
// tracker), the warp is our own single-threaded one (cv::warpPerspective
// hands its stripes to the OpenCV thread pool and costs ~4 ns per pixel
// here), and only what the numbers need is rectified:
//   - the Laplacian's variance is a statistic: it is taken on every eighth
//     row of the 320 x 202 raster (a band of three rows is warped for each),
//     about 8,000 of the 62,000 masked pixels, spread evenly over the card;
//   - glare is looked for in those same rows first; only around the bands
//     that hold a saturated pixel is the card rectified, at 160 x 101
//     (enough for a fraction good to +-0.005 and for the connected blob):
//     from the band before to the band after, which holds all of any
//     saturated region that touches the band. A region that touches no band
//     is not seen, just as when no band sees glare at all. Most cards show
//     a few saturated pixels in the print on most frames, and rectifying
//     the whole card for them would be a quarter of the warping. Measuring
//     only around the bands changes the glare of a frame seldom and by
//     about 0.001 (a few print pixels between bands): too little to move
//     an event or the choice of still.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace cardvision {

static constexpr int kRasterW = 320, kRasterH = 202;      // the sharpness grid
static constexpr int kGlareW = 160, kGlareH = 101;        // the glare grid
static constexpr int kSharpRowStep = 8;                   // Laplacian on every 8th row
static constexpr double kSharpnessKnee = 60.0;

// Rounded-rectangle mask of a w x h raster: rim pixels and the corners off.
static cv::Mat card_mask(int w, int h, int rim) {
    cv::Mat mask(h, w, CV_8UC1, cv::Scalar(0));
    const double px_per_mm = w / kCardWidthMm;
    const int r = int(std::round(kCornerRadiusMm * px_per_mm));
    cv::Rect inner(rim, rim, w - 2 * rim, h - 2 * rim);
    // Rounded rectangle: two overlapping rectangles plus four discs.
    cv::rectangle(mask, cv::Rect(inner.x + r, inner.y, inner.width - 2 * r, inner.height), 255, cv::FILLED);
    cv::rectangle(mask, cv::Rect(inner.x, inner.y + r, inner.width, inner.height - 2 * r), 255, cv::FILLED);
    for (cv::Point c : {cv::Point(inner.x + r, inner.y + r), cv::Point(inner.br().x - 1 - r, inner.y + r),
                        cv::Point(inner.br().x - 1 - r, inner.br().y - 1 - r), cv::Point(inner.x + r, inner.br().y - 1 - r)})
        cv::circle(mask, c, r, 255, cv::FILLED);
    return mask;
}

// The mask as one [begin, end) span per row (each row of a rounded
// rectangle is one run); empty rows have begin == end.
static void mask_spans(const cv::Mat &mask, std::vector<std::pair<int, int>> &spans, int &area) {
    spans.assign(mask.rows, {0, 0});
    area = 0;
    for (int y = 0; y < mask.rows; ++y) {
        const uint8_t *m = mask.ptr<uint8_t>(y);
        int b = 0;
        while (b < mask.cols && !m[b]) ++b;
        int e = mask.cols;
        while (e > b && !m[e - 1]) --e;
        spans[y] = {b, e};
        area += e - b;
    }
}

void PhotometryScratch::prepare() {
    if (!sharp_spans.empty()) return;
    mask_spans(card_mask(kRasterW, kRasterH, 2), sharp_spans, sharp_area);
    glare_mask = card_mask(kGlareW, kGlareH, 1);
    mask_spans(glare_mask, glare_spans, glare_area);
    glare_raster.create(kGlareH, kGlareW, CV_8UC1);
    saturated.create(kGlareH, kGlareW, CV_8UC1);
    rows.create(3, kRasterW, CV_8UC1);
}

// One row of a rectification: out[x] = luma at H * (x, y, 1), bilinear,
// border replicated. The coordinates are computed in a loop the compiler
// vectorises, the reads (a gather) in a second one; weights in 1/256.
static void warp_row(const cv::Mat &src, const cv::Matx33f &H, int y, int width, uint8_t *out) {
    constexpr int kMax = 512;
    int offset[kMax];
    int16_t wx[kMax], wy[kMax];
    const float xmax = float(src.cols - 1) - 1e-3f, ymax = float(src.rows - 1) - 1e-3f;
    const int step = int(src.step);
    const float fy = float(y);
    const float X0 = H(0, 1) * fy + H(0, 2), Y0 = H(1, 1) * fy + H(1, 2), W0 = H(2, 1) * fy + H(2, 2);
    const float hx = H(0, 0), hy = H(1, 0), hw = H(2, 0);
    for (int x = 0; x < width; ++x) {
        const float fx = float(x);
        const float inv = 1.f / (W0 + hw * fx);
        float sx = (X0 + hx * fx) * inv, sy = (Y0 + hy * fx) * inv;
        sx = sx >= 0.f ? sx : 0.f;  // also catches NaN
        sy = sy >= 0.f ? sy : 0.f;
        sx = sx <= xmax ? sx : xmax;
        sy = sy <= ymax ? sy : ymax;
        const int ix = int(sx), iy = int(sy);
        wx[x] = int16_t((sx - float(ix)) * 256.f + 0.5f);
        wy[x] = int16_t((sy - float(iy)) * 256.f + 0.5f);
        offset[x] = iy * step + ix;
    }
    const uint8_t *base = src.data;
    // The frame was just decoded on another core, so most of the cache lines
    // this row crosses miss; asking for them all first lets the misses
    // overlap instead of stalling the gather one by one. Samples are ~2-3 px
    // apart, so every fourth one reaches every line.
    for (int x = 0; x < width; x += 4) {
        __builtin_prefetch(base + offset[x]);
        __builtin_prefetch(base + offset[x] + step);
    }
    for (int x = 0; x < width; ++x)
        out[x] = uint8_t((bilinear_q16(base + offset[x], size_t(step), wx[x], wy[x]) + (1 << 15)) >> 16);
}

static int count_at_least(const uint8_t *row, int b, int e, int threshold) {
    int n = 0;
    for (int x = b; x < e; ++x) n += row[x] >= threshold;
    return n;
}

namespace {

// Sharpness (the Laplacian's variance over bands of three rows of the
// rectified card, through a knee), and which rows of the glare grid to
// rectify: those around a band that saw a saturated pixel.
struct SharpnessLook {
    float focus = 0;  // the Laplacian's variance
    bool glare_seen = false;
    std::array<bool, kGlareH> glare_rows{};
};

SharpnessLook look_at_sharpness(const cv::Mat &luma, const Quad &q, int glare_luma, PhotometryScratch &s) {
    SharpnessLook look;
    const cv::Matx33f H(raster_to_quad(q, kRasterW, kRasterH));
    int64_t sum = 0, sum_sq = 0;
    int count = 0;
    for (int y = kSharpRowStep / 2; y + 1 < kRasterH; y += kSharpRowStep) {
        const auto [b, e] = s.sharp_spans[y];
        if (e <= b) continue;
        uint8_t *up = s.rows.ptr<uint8_t>(0), *mid = s.rows.ptr<uint8_t>(1), *down = s.rows.ptr<uint8_t>(2);
        warp_row(luma, H, y - 1, kRasterW, up);
        warp_row(luma, H, y, kRasterW, mid);
        warp_row(luma, H, y + 1, kRasterW, down);
        // The mask keeps a two-pixel rim, so x - 1 and x + 1 are inside.
        int row_sum = 0, row_sq = 0;
        for (int x = b; x < e; ++x) {
            const int l = int(up[x]) + down[x] + mid[x - 1] + mid[x + 1] - 4 * int(mid[x]);
            row_sum += l;
            row_sq += l * l;
        }
        sum += row_sum;
        sum_sq += row_sq;
        count += e - b;
        bool band_saturated = false;
        for (int r = -1; r <= 1 && !band_saturated; ++r) {
            const auto [rb, re] = s.sharp_spans[y + r];
            band_saturated = count_at_least(s.rows.ptr<uint8_t>(r + 1), rb, re, glare_luma) > 0;
        }
        if (band_saturated) {
            look.glare_seen = true;
            // Sharpness row y is glare row y * kGlareH / kRasterH; the
            // neighbouring bands are kSharpRowStep sharpness rows away.
            const int centre = y * kGlareH / kRasterH, reach = kSharpRowStep * kGlareH / kRasterH + 1;
            for (int g = std::max(0, centre - reach); g <= std::min(kGlareH - 1, centre + reach); ++g)
                look.glare_rows[g] = true;
        }
    }
    if (count > 0) {
        const double mean = double(sum) / count;
        const double v = std::max(0.0, double(sum_sq) / count - mean * mean);
        look.focus = float(v);
    }
    return look;
}

// Glare on the rows asked for, at half the resolution: the share of the
// card's face at or above glare_luma, and the share its largest blob covers.
void measure_glare(const cv::Mat &luma, const Quad &q, int glare_luma, const std::array<bool, kGlareH> &rows,
                   PhotometryScratch &s, Photometry &p) {
    const cv::Matx33f G(raster_to_quad(q, kGlareW, kGlareH));
    int n = 0, x0 = kGlareW, y0 = kGlareH, x1 = -1, y1 = -1;
    for (int y = 0; y < kGlareH; ++y) {
        uint8_t *row = s.glare_raster.ptr<uint8_t>(y);
        uint8_t *sat = s.saturated.ptr<uint8_t>(y);
        std::fill(sat, sat + kGlareW, uint8_t(0));
        if (!rows[y]) continue;
        warp_row(luma, G, y, kGlareW, row);
        const auto [b, e] = s.glare_spans[y];
        int row_n = 0;
        for (int x = b; x < e; ++x) {
            const uint8_t v = row[x] >= glare_luma ? 255 : 0;
            sat[x] = v;
            row_n += v != 0;
        }
        if (row_n) {
            n += row_n;
            y0 = std::min(y0, y);
            y1 = y;
            for (int x = b; x < e; ++x)
                if (sat[x]) { x0 = std::min(x0, x); break; }
            for (int x = e - 1; x >= b; --x)
                if (sat[x]) { x1 = std::max(x1, x); break; }
        }
    }
    p.glare = float(double(n) / s.glare_area);
    if (n > 0) {
        const cv::Rect box(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
        const int regions = cv::connectedComponentsWithStats(s.saturated(box), s.labels, s.stats, s.centroids, 8, CV_32S);
        int largest = 0;
        for (int i = 1; i < regions; ++i) largest = std::max(largest, s.stats.at<int>(i, cv::CC_STAT_AREA));
        p.glare_blob = float(double(largest) / s.glare_area);
    }
}

}  // namespace

Photometry measure_photometry(const cv::Mat &luma, const Quad &q, int glare_luma, PhotometryScratch &s) {
    s.prepare();
    Photometry p;
    if (luma.cols < 2 || luma.rows < 2) return p;
    // Sharpness, and a first look for glare, on bands of three rows; then
    // the glare itself only where a band saw a saturated pixel.
    const SharpnessLook look = look_at_sharpness(luma, q, glare_luma, s);
    p.focus = look.focus;
    p.sharpness = float(double(look.focus) / (double(look.focus) + kSharpnessKnee));
    if (look.glare_seen) measure_glare(luma, q, glare_luma, look.glare_rows, s, p);
    return p;
}

}  // namespace cardvision
