// flow.cpp — where the card's own print moved between two frames.
//
// Edges alone are a poor guide while a card turns in a hand: a finger's
// edge lies a few pixels from the card's, a thumb hides half a side, and an
// edge tracker that is given a wide search radius takes whichever is
// stronger. The print on the card does not care which edge a finger covers:
// corners of the print inside the tracked quad are followed with pyramidal
// Lucas-Kanade on a small copy of the frame, a homography is fitted to them
// with RANSAC, and the tracked quad moved by it predicts the card's edges to
// within a pixel or two, so the edge fit can look close.
#include "internal.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

constexpr int kFlowLongSide = 640;   // the flow runs on a copy at most this size
constexpr int kLevels = 2;
const cv::Size kWindow(15, 15);
constexpr int kWantedPoints = 48;
constexpr int kMinPoints = 12;       // fewer inliers: no prediction

}  // namespace

void TextureFlow::reset() {
    prev_.clear();
    points_.clear();
    next_ready_ = false;
}

void TextureFlow::prepare(const cv::Mat &luma) {
    if (next_ready_) return;
    // Halve until it fits: whole-pixel averaging is the resize's fast path.
    int shrink = 1;
    while (std::max(luma.cols, luma.rows) / shrink > kFlowLongSide) shrink *= 2;
    scale_ = 1.0 / shrink;
    if (shrink == 1) luma.copyTo(small_);
    else cv::resize(luma, small_, cv::Size(luma.cols / shrink, luma.rows / shrink), 0, 0, cv::INTER_AREA);
    // The pyramid is built once per frame and kept for the next one.
    cv::buildOpticalFlowPyramid(small_, next_, kWindow, kLevels);
    next_ready_ = true;
}

std::optional<Quad> TextureFlow::predict(const cv::Mat &luma, const Quad &last) {
    prepare(luma);
    moved_.clear();
    firm_ = false;
    if (prev_.empty() || prev_[0].size() != next_[0].size() || int(points_.size()) < kMinPoints) return std::nullopt;
    cv::calcOpticalFlowPyrLK(prev_, next_, points_, moved_, status_, errors_, kWindow, kLevels,
                             cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 20, 0.03));
    from_.clear();
    to_.clear();
    for (size_t i = 0; i < points_.size(); ++i)
        if (status_[i]) {
            from_.push_back(points_[i]);
            to_.push_back(moved_[i]);
        }
    moved_.clear();
    if (int(from_.size()) < kMinPoints) return std::nullopt;
    cv::Mat H = cv::findHomography(from_, to_, cv::RANSAC, 1.5, inliers_);
    if (H.empty()) return std::nullopt;
    int count = 0;
    for (size_t i = 0; i < to_.size(); ++i)
        if (inliers_[i]) {
            moved_.push_back(to_[i]);
            ++count;
        }
    // Most of the points must agree: a hand moving over the card, or print
    // too faint to follow, gives a fit nobody should trust.
    if (count < kMinPoints || count * 2 < int(from_.size())) {
        moved_.clear();
        return std::nullopt;
    }
    // Firm when nearly all of many points agree; a glare washing out the
    // print or a hand sliding over it leaves fewer, and a looser fit.
    firm_ = count >= 2 * kMinPoints && count * 10 >= int(from_.size()) * 8;
    const float s = float(scale_);
    std::vector<cv::Point2f> corners(4), out(4);
    for (int i = 0; i < 4; ++i) corners[i] = last[i] * s;
    cv::perspectiveTransform(corners, out, H);
    Quad q;
    for (int i = 0; i < 4; ++i) q[i] = out[i] * (1.f / s);
    return q;
}

void TextureFlow::commit(const cv::Mat &luma, const Quad &card) {
    prepare(luma);
    // The points that followed the card go on; when too few are left, new
    // corners of the print are picked inside the card (away from its edges,
    // where the background and the fingers are).
    points_ = moved_;
    if (int(points_.size()) < kWantedPoints / 2) {
        const float s = float(scale_);
        const cv::Point2f centre = (card[0] + card[1] + card[2] + card[3]) * 0.25f;
        cv::Point inner[4];
        for (int i = 0; i < 4; ++i) {
            const cv::Point2f p = (centre + (card[i] - centre) * 0.85f) * s;
            inner[i] = cv::Point(cvRound(p.x), cvRound(p.y));
        }
        // Only the card's box is searched for corners, not the frame.
        const cv::Rect box = cv::boundingRect(std::vector<cv::Point>(inner, inner + 4)) &
                             cv::Rect(0, 0, small_.cols, small_.rows);
        if (box.width >= 8 && box.height >= 8) {
            for (auto &p : inner) p -= box.tl();
            mask_.create(box.size(), CV_8UC1);
            mask_.setTo(0);
            cv::fillConvexPoly(mask_, inner, 4, cv::Scalar(255));
            cv::goodFeaturesToTrack(small_(box), points_, kWantedPoints, 0.01, 6, mask_, 5);
            for (auto &p : points_) p += cv::Point2f(box.tl());
        }
    }
    std::swap(prev_, next_);
    next_ready_ = false;
}

void TextureFlow::skip() {
    // A frame without a card: nothing to follow into the next one.
    prev_.clear();
    points_.clear();
    next_ready_ = false;
}

}  // namespace cardvision
