// photometry.cpp — glare and focus, measured on the rectified card so that
// neither depends on perspective or distance.
//
// The card's luma is warped into a 320 x 202 raster (perspective removed);
// a mask drops the rounded corners and a two-pixel rim that may hold
// background.
//   glare       = fraction of masked raster pixels with luma >= glare_luma
//   glare_blob  = largest 8-connected saturated region / masked area
//   sharpness   = v / (v + 60), v = variance of the 3x3 Laplacian over the
//                 masked raster. 60 puts a sharp, well-lit printed card
//                 around 0.8-0.95 and a card blurred by a sigma of 2-3 px
//                 (at 720p, card half the frame wide) below 0.5; the curve
//                 saturates, so heavier texture cannot exceed 1.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

namespace cardvision {

static constexpr int kRasterW = 320, kRasterH = 202;
static constexpr double kSharpnessKnee = 60.0;

static cv::Mat card_mask() {
    cv::Mat mask(kRasterH, kRasterW, CV_8UC1, cv::Scalar(0));
    const double px_per_mm = kRasterW / kCardWidthMm;
    const int r = int(std::round(kCornerRadiusMm * px_per_mm));
    const int rim = 2;
    cv::Rect inner(rim, rim, kRasterW - 2 * rim, kRasterH - 2 * rim);
    // Rounded rectangle: two overlapping rectangles plus four discs.
    cv::rectangle(mask, cv::Rect(inner.x + r, inner.y, inner.width - 2 * r, inner.height), 255, cv::FILLED);
    cv::rectangle(mask, cv::Rect(inner.x, inner.y + r, inner.width, inner.height - 2 * r), 255, cv::FILLED);
    for (cv::Point c : {cv::Point(inner.x + r, inner.y + r), cv::Point(inner.br().x - 1 - r, inner.y + r),
                        cv::Point(inner.br().x - 1 - r, inner.br().y - 1 - r), cv::Point(inner.x + r, inner.br().y - 1 - r)})
        cv::circle(mask, c, r, 255, cv::FILLED);
    return mask;
}

Photometry measure_photometry(const cv::Mat &luma, const Quad &q, int glare_luma) {
    // The mask is small and constant; building it per call keeps the shim
    // free of global state and costs a few microseconds.
    const cv::Mat mask = card_mask();
    const double mask_area = cv::countNonZero(mask);
    cv::Mat raster;
    cv::warpPerspective(luma, raster, raster_to_quad(q, kRasterW, kRasterH), cv::Size(kRasterW, kRasterH),
                        cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
    Photometry p;
    cv::Mat saturated = (raster >= glare_luma) & mask;
    const int n = cv::countNonZero(saturated);
    p.glare = float(n / mask_area);
    if (n > 0) {
        cv::Mat labels, stats, centroids;
        int count = cv::connectedComponentsWithStats(saturated, labels, stats, centroids, 8, CV_32S);
        int largest = 0;
        for (int i = 1; i < count; ++i) largest = std::max(largest, stats.at<int>(i, cv::CC_STAT_AREA));
        p.glare_blob = float(largest / mask_area);
    }
    cv::Mat lap;
    cv::Laplacian(raster, lap, CV_16S, 1);
    cv::Scalar mean, stddev;
    cv::meanStdDev(lap, mean, stddev, mask);
    const double v = stddev[0] * stddev[0];
    p.sharpness = float(v / (v + kSharpnessKnee));
    return p;
}

}  // namespace cardvision
