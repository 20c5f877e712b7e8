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
//
// Only the card and a margin around it are copied and built into a
// pyramid: the card fills a tenth of a typical frame, and the pyramid of the
// whole frame would be half the cost of a tracked frame.
#include "internal.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <climits>
#include <cmath>

namespace cardvision {

namespace {

// Every threshold and tuning constant of the flow, in one place. Sizes in
// px are pixels of the small copy the flow runs on unless they say "full".
struct FlowParams {
    // ---- The small copy and its pyramid ----
    // The frame is halved until its long side is at most this (full px):
    // the print's corners stay several pixels across, and the flow's cost
    // stops growing with the camera's resolution.
    int long_side_px = 640;
    // Pyramid levels above the copy (OpenCV's maxLevel), and the
    // Lucas-Kanade window (px square): the coarsest level is a quarter of
    // the copy, so a window there reaches four times as far as on the copy,
    // while a window of 15 px still holds enough of the print to lock on.
    int levels = 2, window_px = 15;
    // The crop around the card: its box plus a margin each side of
    // crop_margin of the box's longer side and crop_margin_px (room for the
    // card's motion to the next frame and for the coarsest level's window),
    // in size steps of crop_step_grids grid cells (a cell is 4 px, so that
    // every level starts on a whole pixel; a step 32 px), so that the
    // pyramid's size, which must be the same for both frames, changes
    // seldom. A crop is kept while it holds the card and is at most
    // oversize_num / oversize_den of what it needs (plus a step).
    double crop_margin = 0.25;
    int crop_margin_px = 16, crop_step_grids = 8;
    int oversize_num = 10, oversize_den = 7;

    // ---- Following the points (cv::calcOpticalFlowPyrLK) ----
    // Iterations per level at most, and the step (px) below which a point
    // has settled (as OpenCV's lkdemo): hundredths of a pixel are finer
    // than the homography fitted to the points needs.
    int lk_iterations = 20;
    double lk_epsilon = 0.03;
    // How far (px) a point may lie from where the homography puts it and
    // still agree with it: a few times a followed point's error on print,
    // well under what a finger or the background moves against the card.
    double ransac_px = 1.5;
    // Fewer agreeing points than this: no prediction. Also fewer than
    // agree_tenths of the points followed: a hand moving over the card, or
    // print too faint to follow, gives a fit nobody should trust.
    int min_points = 12, agree_tenths = 5;
    // A prediction is firm (may overrule an edge fit) when twice min_points
    // agree and they are firm_tenths of those followed: glare washing out
    // the print or a hand sliding over it leaves fewer, and a looser fit.
    int firm_tenths = 8;

    // ---- Picking new points (cv::goodFeaturesToTrack) ----
    // Corners of the print wanted; new ones are picked when fewer than half
    // of these are left on the card.
    int wanted_points = 48;
    // Picked within the card shrunk to this fraction about its centre: away
    // from its edges, where the background and the fingers are.
    float print_inset = 0.85f;
    // No corners are picked in a box narrower or lower than this (px): too
    // few to follow.
    int min_pick_box_px = 8;
    // A corner is kept at corner_quality of the strongest one's response,
    // at least corner_spacing_px from another (px), measured over
    // corner_block_px square (px): faint print still yields points, spread
    // over the card rather than heaped on its sharpest letters.
    double corner_quality = 0.01;
    int corner_spacing_px = 6, corner_block_px = 5;
};
constexpr FlowParams kFlow{};
const cv::Size kWindow(kFlow.window_px, kFlow.window_px);

}  // namespace

cv::Point2f TextureFlow::origin(const cv::Rect &crop) const {
    return cv::Point2f(crop.tl()) * float(scale_);  // crops start on the grid: whole small pixels
}

int TextureFlow::shrink_for(const cv::Mat &luma) {
    // The scale depends on the frame only, so that points carry over from
    // frame to frame: halved until it fits.
    int shrink = 1;
    while (std::max(luma.cols, luma.rows) / shrink > kFlow.long_side_px) shrink *= 2;
    return shrink;
}

cv::Size TextureFlow::wanted_crop(const cv::Mat &luma, const Quad &card) const {
    // The card's box and a margin for its motion to the next frame and for
    // the coarsest level's window, rounded up to 32 pixels of the small
    // image so that the size changes seldom: Lucas-Kanade wants both
    // pyramids the same size. A crop that is still large enough, and not
    // much too large, is kept.
    const int shrink = shrink_for(luma), grid = 4 * shrink, unit = kFlow.crop_step_grids * grid;
    const cv::Size frame(luma.cols / grid * grid, luma.rows / grid * grid);
    const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(card.begin(), card.end()));
    const int margin = int(kFlow.crop_margin * std::max(box.width, box.height)) + kFlow.crop_margin_px * shrink;
    auto round_up = [&](int v, int limit) { return std::min(limit, (v + unit - 1) / unit * unit); };
    const cv::Size want(round_up(box.width + 2 * margin, frame.width), round_up(box.height + 2 * margin, frame.height));
    const cv::Size last = next_ready_ ? next_crop_.size() : prev_.empty() ? cv::Size() : prev_crop_.size();
    auto roomy = [&](int have, int need) {
        return have <= need * kFlow.oversize_num / kFlow.oversize_den + unit;
    };
    const bool keep = last.width >= want.width && last.height >= want.height && roomy(last.width, want.width) &&
                      roomy(last.height, want.height);
    return keep ? last : want;
}

void TextureFlow::build(const cv::Mat &luma, const Quad &around, cv::Size size) {
    const int shrink = shrink_for(luma), grid = 4 * shrink;
    scale_ = 1.0 / shrink;
    // Centred on the card, inside the frame, on a grid of 4 * shrink pixels
    // so that every level of the pyramid starts on a whole pixel.
    const cv::Size frame(luma.cols / grid * grid, luma.rows / grid * grid);
    size = cv::Size(std::min(size.width, frame.width), std::min(size.height, frame.height));
    const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(around.begin(), around.end()));
    const cv::Point centre((box.x + box.br().x) / 2, (box.y + box.br().y) / 2);
    const int x0 = std::clamp(centre.x - size.width / 2, 0, frame.width - size.width) / grid * grid;
    const int y0 = std::clamp(centre.y - size.height / 2, 0, frame.height - size.height) / grid * grid;
    next_crop_ = cv::Rect(x0, y0, size.width, size.height);
    // Halving by whole-pixel averaging is the resize's fast path; a single
    // 4:1 INTER_AREA step takes 0.9 ms at 1080p, two 2:1 steps 0.06 ms.
    // At full size the crop is only looked at (the pyramid copies it).
    cv::Mat level = luma(next_crop_);
    for (int s = shrink; s > 1; s /= 2) {
        cv::Mat &out = s == 2 ? small_ : half_;
        cv::resize(level, out, cv::Size(level.cols / 2, level.rows / 2), 0, 0, cv::INTER_AREA);
        level = out;
    }
    view_ = level;
    // The pyramid is built once per frame and kept for the next one, so it
    // must not reuse the frame's memory (OpenCV would, for a crop of it).
    // Without derivatives: those of the previous frame are taken where they
    // are read (derive_around).
    cv::buildOpticalFlowPyramid(view_, next_, kWindow, kFlow.levels, false, cv::BORDER_REFLECT_101, cv::BORDER_CONSTANT,
                                false);
    next_ready_ = true;
}

namespace {

// Rows [y0, y1) and columns [x0, x1) of a level's Scharr derivatives (dx, dy
// interleaved, 16-bit), as cv::buildOpticalFlowPyramid computes them for the
// whole level: mirrored at the level's edge (reflect 101), zero in the
// border around it. Coordinates are the level's; the range may reach into
// the border (`bordered` holds the level's derivatives `border` pixels in).
void scharr_into(const cv::Mat &level, cv::Mat &bordered, cv::Size border, int x0, int x1, int y0, int y1) {
    const int rows = level.rows, cols = level.cols;
    auto mirror = [](int i, int n) { return i < 0 ? (n > 1 ? 1 : 0) : i >= n ? (n > 1 ? n - 2 : 0) : i; };
    for (int y = y0; y < y1; ++y) {
        int16_t *out = bordered.ptr<int16_t>(y + border.height) + 2 * border.width;  // column 0; x < 0 is border
        if (y < 0 || y >= rows) {
            std::fill(out + 2 * x0, out + 2 * x1, int16_t(0));
            continue;
        }
        const uint8_t *r0 = level.ptr<uint8_t>(mirror(y - 1, rows)), *r1 = level.ptr<uint8_t>(y),
                      *r2 = level.ptr<uint8_t>(mirror(y + 1, rows));
        // Vertical smoothing (t0) and difference (t1) of one column.
        auto t0 = [&](int c) { return (int(r0[c]) + r2[c]) * 3 + int(r1[c]) * 10; };
        auto t1 = [&](int c) { return int(r2[c]) - r0[c]; };
        auto at = [&](int x) {
            const int xm = mirror(x - 1, cols), xp = mirror(x + 1, cols);
            out[2 * x] = int16_t(t0(xp) - t0(xm));
            out[2 * x + 1] = int16_t((t1(xp) + t1(xm)) * 3 + t1(x) * 10);
        };
        const int b = std::max(x0, 0), e = std::min(x1, cols);
        if (x0 < b) std::fill(out + 2 * x0, out + 2 * b, int16_t(0));
        if (e < x1) std::fill(out + 2 * e, out + 2 * x1, int16_t(0));
        if (b >= e) continue;
        // The edge columns mirror; those between read their neighbours
        // directly, in a loop the compiler vectorises.
        const int ib = std::max(b, 1), ie = std::min(e, cols - 1);
        for (int x = b; x < std::min(ib, e); ++x) at(x);
        for (int x = ib; x < ie; ++x) {
            out[2 * x] = int16_t(t0(x + 1) - t0(x - 1));
            out[2 * x + 1] = int16_t((t1(x + 1) + t1(x - 1)) * 3 + t1(x) * 10);
        }
        for (int x = std::max(ie, ib); x < e; ++x) at(x);
    }
}

}  // namespace

void TextureFlow::derive_around(const std::vector<cv::Point2f> &points) {
    // cv::calcOpticalFlowPyrLK reads the previous image's derivatives only
    // in each point's window, (window + 1) pixels square from the point
    // less half the window, at each level. The derivatives of the whole
    // crop cost as much as the rest of the pyramid; the points, inside the
    // card, need a third of it. The values are the same, so is the flow.
    const int levels = int(prev_.size());
    derivatives_.resize(size_t(levels));
    prev_derived_.resize(size_t(2 * levels));
    const cv::Point2f half_window((kWindow.width - 1) * 0.5f, (kWindow.height - 1) * 0.5f);
    for (int level = 0; level < levels; ++level) {
        const cv::Mat &image = prev_[size_t(level)];
        cv::Mat &d = derivatives_[size_t(level)];
        const cv::Size whole(image.cols + 2 * kWindow.width, image.rows + 2 * kWindow.height);
        d.create(whole, CV_16SC2);
        // The windows' extent, as Lucas-Kanade computes it (the same float
        // scaling and floor), two pixels wider for its vector loads, within
        // the border.
        const float to_level = 1.f / float(1 << level);
        int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
        for (const auto &p : points) {
            const cv::Point2f corner = p * to_level - half_window;
            x0 = std::min(x0, cvFloor(corner.x));
            y0 = std::min(y0, cvFloor(corner.y));
            x1 = std::max(x1, cvFloor(corner.x));
            y1 = std::max(y1, cvFloor(corner.y));
        }
        x0 = std::max(x0 - 2, -kWindow.width);
        y0 = std::max(y0 - 2, -kWindow.height);
        x1 = std::min(x1 + kWindow.width + 3, image.cols + kWindow.width);
        y1 = std::min(y1 + kWindow.height + 3, image.rows + kWindow.height);
        if (x0 < x1 && y0 < y1) scharr_into(image, d, kWindow, x0, x1, y0, y1);
        prev_derived_[size_t(2 * level)] = image;
        prev_derived_[size_t(2 * level + 1)] = d(cv::Rect(kWindow.width, kWindow.height, image.cols, image.rows));
    }
}

std::optional<Quad> TextureFlow::predict(const cv::Mat &luma, const Quad &last) {
    moved_.clear();
    firm_ = false;
    if (prev_.empty() || int(points_.size()) < kFlow.min_points) return std::nullopt;
    // The same size as the last frame's crop, around where the card was.
    build(luma, last, prev_crop_.size());
    if (next_crop_.size() != prev_crop_.size()) return std::nullopt;  // the frame shrank
    // The two pyramids cover different crops: points go in the previous
    // crop's pixels, and start where they were in the new crop's.
    const cv::Point2f prev_origin = origin(prev_crop_), next_origin = origin(next_crop_);
    local_from_.resize(points_.size());
    local_to_.resize(points_.size());
    for (size_t i = 0; i < points_.size(); ++i) {
        local_from_[i] = points_[i] - prev_origin;
        local_to_[i] = points_[i] - next_origin;
    }
    derive_around(local_from_);
    const cv::TermCriteria settled(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, kFlow.lk_iterations,
                                   kFlow.lk_epsilon);
    // (No error per point: nothing reads it, and it is a tenth of the call.)
    cv::calcOpticalFlowPyrLK(prev_derived_, next_, local_from_, local_to_, status_, cv::noArray(), kWindow,
                             kFlow.levels, settled, cv::OPTFLOW_USE_INITIAL_FLOW);
    from_.clear();
    to_.clear();
    for (size_t i = 0; i < points_.size(); ++i)
        if (status_[i]) {
            from_.push_back(points_[i]);
            to_.push_back(local_to_[i] + next_origin);
        }
    if (int(from_.size()) < kFlow.min_points) return std::nullopt;
    cv::Mat H = cv::findHomography(from_, to_, cv::RANSAC, kFlow.ransac_px, inliers_);
    if (H.empty()) return std::nullopt;
    for (size_t i = 0; i < to_.size(); ++i)
        if (inliers_[i]) moved_.push_back(to_[i]);
    const int count = int(moved_.size());
    // Most of the points must agree (kFlow.agree_tenths).
    if (count < kFlow.min_points || count * 10 < int(from_.size()) * kFlow.agree_tenths) {
        moved_.clear();
        return std::nullopt;
    }
    // Firm when nearly all of many points agree (kFlow.firm_tenths).
    firm_ = count >= 2 * kFlow.min_points && count * 10 >= int(from_.size()) * kFlow.firm_tenths;
    moved_by_ = cv::Matx33d(H);
    return carry(last);
}

Quad TextureFlow::carry(const Quad &q) const {
    const double s = scale_;
    Quad out;
    for (int i = 0; i < 4; ++i) {
        const cv::Vec3d p = moved_by_ * cv::Vec3d(q[i].x * s, q[i].y * s, 1);
        out[i] = cv::Point2f(float(p[0] / (p[2] * s)), float(p[1] / (p[2] * s)));
    }
    return out;
}

void TextureFlow::commit(const cv::Mat &luma, const Quad &card) {
    // This frame's pyramid, around the card as it was found, when none was
    // built for the prediction or the card no longer fits it (the points
    // are kept in whole-frame coordinates and carry over).
    const cv::Size want = wanted_crop(luma, card);
    if (!next_ready_ || want != next_crop_.size()) build(luma, card, want);
    // The points that followed the card go on, those still on it: when a
    // search puts the card elsewhere (the tracker had followed something
    // behind it, a badge on a photograph, and then finds the card beside
    // it), the old object's points stay still, all of them agreeing, and
    // their homography, extrapolated to the card's corners, would move
    // those tens of pixels a frame.
    // When too few are left, new corners of the print are picked inside the
    // card (away from its edges, where the background and the fingers are).
    const float s = float(scale_);
    const std::vector<cv::Point2f> outline{card[0] * s, card[1] * s, card[2] * s, card[3] * s};
    points_.clear();
    for (const auto &p : moved_)
        if (cv::pointPolygonTest(outline, p, false) >= 0) points_.push_back(p);
    if (int(points_.size()) < kFlow.wanted_points / 2) {
        const cv::Point2f centre = (card[0] + card[1] + card[2] + card[3]) * 0.25f;
        cv::Point inner[4];
        for (int i = 0; i < 4; ++i) {
            const cv::Point2f p = (centre + (card[i] - centre) * kFlow.print_inset) * s;
            inner[i] = cv::Point(cvRound(p.x), cvRound(p.y));
        }
        // Only the card's box is searched for corners, not the frame.
        const cv::Point2f crop_origin = origin(next_crop_);
        const cv::Point at(cvRound(crop_origin.x), cvRound(crop_origin.y));
        for (auto &p : inner) p -= at;
        const cv::Rect box = cv::boundingRect(std::vector<cv::Point>(inner, inner + 4)) &
                             cv::Rect(0, 0, view_.cols, view_.rows);
        if (box.width >= kFlow.min_pick_box_px && box.height >= kFlow.min_pick_box_px) {
            for (auto &p : inner) p -= box.tl();
            mask_.create(box.size(), CV_8UC1);
            mask_.setTo(0);
            cv::fillConvexPoly(mask_, inner, 4, cv::Scalar(255));
            cv::goodFeaturesToTrack(view_(box), points_, kFlow.wanted_points, kFlow.corner_quality,
                                    kFlow.corner_spacing_px, mask_, kFlow.corner_block_px);
            for (auto &p : points_) p += cv::Point2f(box.tl() + at);
        }
    }
    std::swap(prev_, next_);
    prev_crop_ = next_crop_;
    view_.release();  // it may be a view of the caller's frame
    next_ready_ = false;
}

void TextureFlow::reset() {
    // A frame without a card (or a new start): nothing to follow into the
    // next one.
    view_.release();
    prev_.clear();
    points_.clear();
    next_ready_ = false;
}

}  // namespace cardvision
