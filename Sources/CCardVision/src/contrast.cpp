// contrast.cpp — a low-contrast frame stretched before the card's edges
// are looked for.
//
// The search and the tracker judge edges by fixed gradients (Canny's
// hysteresis, a side's step between two surfaces) set for a frame that
// spans most of its levels. A camera that washes the picture out (a veiling
// glare over the lens, a cheap webcam facing a window, a dim room
// brightened by gain) compresses every level towards the middle, and with
// it every edge: the card's sides fall under the thresholds while the card
// is plain to see. The frame is stretched back to a normal span before
// the card is searched for, followed and its sides fitted, so that such a
// camera is treated like any other; the card's glare, sharpness and
// material are measured on the frame as it came.
#include "internal.hpp"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

struct ContrastParams {
    // The span between the frame's darkest and brightest levels (low_share
    // and high_share of its pixels beyond them), as a share of the levels
    // the stream can carry (255 full range, 219 limited), under which a
    // frame is stretched to span min_span, by at most max_gain (a frame
    // flatter still is the scene itself, and its noise is all a stretch
    // would bring out). The development set's scenes span 0.43-0.82 of
    // the levels, but for its dim room (0.31); a camera that washes the
    // picture out (contrast 0.55 about mid-grey) brings most scenes under
    // 0.4, and the real phone photographs the search did not find span
    // 0.19-0.33.
    double min_span = 0.4, max_gain = 2.5;
    // A frame that a stretch would change by less than min_gain is left as
    // it is: that much is an exposure's change from one frame to the next,
    // no camera's loss, and a stretch that small would only move every
    // decision taken near a threshold.
    double min_gain = 1.1;
    double low_share = 0.01, high_share = 0.01;
};
constexpr ContrastParams kContrast{};

}  // namespace

ContrastStretch contrast_stretch_of(const LevelHistogram &view, bool limited) {
    ContrastStretch s;
    if (view.total == 0) return s;
    const int dark = view.percentile(kContrast.low_share), bright = view.percentile(1.0 - kContrast.high_share);
    const double lowest = limited ? 16 : 0, highest = limited ? 235 : 255;
    const double wanted = kContrast.min_span * (highest - lowest);
    const double span = std::max(1, bright - dark);
    if (span * kContrast.min_gain > wanted) return s;
    s.gain = std::min(kContrast.max_gain, wanted / span);
    // The stretched span keeps its middle where it was, moved only as far
    // as it takes to stay within the levels.
    const double half = 0.5 * s.gain * span, middle = 0.5 * (dark + bright);
    s.from = middle;
    s.to = std::clamp(middle, lowest + half, highest - half);
    return s;
}

void ContrastStretch::apply(const cv::Mat &luma, const Chroma &chroma, cv::Mat &luma_out, Chroma &chroma_out,
                            std::array<cv::Mat, 2> &chroma_scratch) const {
    // y' = to + gain (y - from), saturated: one multiply-add a pixel.
    luma.convertTo(luma_out, CV_8U, gain, to - gain * from);
    chroma_out = chroma;
    if (chroma.empty()) return;
    // Colour differences shrink with the levels they are differences of.
    const double beta = 128 * (1 - gain);
    chroma.u.convertTo(chroma_scratch[0], CV_8U, gain, beta);
    chroma.v.convertTo(chroma_scratch[1], CV_8U, gain, beta);
    chroma_out.u = chroma_scratch[0];
    chroma_out.v = chroma_scratch[1];
}

}  // namespace cardvision
