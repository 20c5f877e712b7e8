// detect.cpp — finding a card-like quad when we do not know where the card is.
//
// On a downscaled copy (long side ~640): Canny edges at two sensitivities,
// contours, each contour's convex hull simplified to four vertices, then the
// card model (convex, ID-1 aspect after removing perspective, not tiny) and
// the edge support along the four sides decide. The result is coarse (a pixel
// or two of the small image); refine.cpp makes it exact at full resolution.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

// Fraction of points along the quad's sides that lie on a strong gradient
// roughly perpendicular to the side.
static double edge_support(const cv::Mat &gx, const cv::Mat &gy, const Quad &q) {
    int hits = 0, total = 0;
    for (int s = 0; s < 4; ++s) {
        cv::Point2f a = q[s], b = q[(s + 1) % 4];
        cv::Point2f d = b - a;
        double len = cv::norm(d);
        if (len < 1) return 0;
        cv::Point2f n(float(-d.y / len), float(d.x / len));
        int samples = std::clamp(int(len / 4), 8, 40);
        for (int i = 0; i < samples; ++i) {
            float t = 0.1f + 0.8f * (i + 0.5f) / samples;
            cv::Point2f p = a + d * t;
            ++total;
            for (int k = -2; k <= 2; ++k) {
                int x = cvRound(p.x + n.x * k), y = cvRound(p.y + n.y * k);
                if (x < 0 || y < 0 || x >= gx.cols || y >= gx.rows) continue;
                float g = std::abs(gx.at<short>(y, x) * n.x + gy.at<short>(y, x) * n.y);
                if (g > 60) { ++hits; break; }  // Sobel 3x3 units: ~15 grey levels per pixel
            }
        }
    }
    return total ? double(hits) / total : 0;
}

// The four sides of a contour that is a (rounded) quadrilateral: the hull
// simplified to four vertices says roughly where the sides are; lines
// fitted to the contour points along the middle of each side give the sharp
// corners (hull vertices sit inside the rounded corners).
static std::optional<Quad> quad_from_contour(const std::vector<cv::Point> &contour) {
    std::vector<cv::Point> hull, poly;
    cv::convexHull(contour, hull);
    const double perimeter = cv::arcLength(hull, true);
    for (double eps : {0.02, 0.03, 0.045, 0.06}) {
        cv::approxPolyDP(hull, poly, eps * perimeter, true);
        if (poly.size() <= 4) break;
    }
    if (poly.size() != 4) return std::nullopt;
    std::array<cv::Vec4f, 4> lines;
    for (int s = 0; s < 4; ++s) {
        const cv::Point2f a(poly[s]), b(poly[(s + 1) % 4]);
        const cv::Point2f d = b - a;
        const float len2 = d.dot(d);
        if (len2 < 16) return std::nullopt;
        const float len = std::sqrt(len2);
        std::vector<cv::Point2f> on_side;
        for (const auto &p : contour) {
            const cv::Point2f q = cv::Point2f(p) - a;
            const float t = q.dot(d) / len2;
            if (t < 0.15f || t > 0.85f) continue;
            if (std::abs(q.x * d.y - q.y * d.x) / len > 3.0f) continue;
            on_side.push_back(cv::Point2f(p));
        }
        if (on_side.size() < 6) {
            lines[s] = cv::Vec4f(d.x / len, d.y / len, a.x, a.y);
        } else {
            cv::fitLine(on_side, lines[s], cv::DIST_HUBER, 0, 0.01, 0.01);
        }
    }
    std::array<cv::Point2f, 4> pts;
    for (int i = 0; i < 4; ++i) {
        auto c = intersect(lines[(i + 3) % 4], lines[i]);
        if (!c || cv::norm(*c - cv::Point2f(poly[i])) > 0.1 * perimeter) return std::nullopt;
        pts[i] = *c;
    }
    return order_corners(pts);
}

std::optional<Detection> detect_card(const cv::Mat &luma, cv::Rect roi, int long_side, double focal_px) {
    roi &= cv::Rect(0, 0, luma.cols, luma.rows);
    if (roi.width < 16 || roi.height < 16) return std::nullopt;
    const double scale = std::min(1.0, double(long_side) / std::max(roi.width, roi.height));
    cv::Mat small;
    if (scale < 1.0)
        cv::resize(luma(roi), small, cv::Size(), scale, scale, cv::INTER_AREA);
    else
        small = luma(roi).clone();
    cv::GaussianBlur(small, small, cv::Size(3, 3), 0);
    cv::Mat gx, gy;
    cv::Sobel(small, gx, CV_16S, 1, 0, 3);
    cv::Sobel(small, gy, CV_16S, 0, 1, 3);

    const cv::Size full(luma.cols, luma.rows);
    const double min_side_small = std::max(16.0, 0.06 * std::max(small.cols, small.rows));
    const double max_area = 0.98 * double(small.cols) * small.rows;
    const cv::Point2f offset(float(roi.x), float(roi.y));
    const float inv = float(1.0 / scale);

    std::optional<Detection> best;
    double best_rank = 0;
    cv::Mat edges;
    const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    // Thresholds in 3x3 Sobel units (L1 norm): a card edge of ~90 grey
    // levels, spread over three pixels by the downscale, gives ~250.
    for (auto [lo, hi] : {std::pair{60.0, 160.0}, std::pair{30.0, 80.0}}) {
        cv::Canny(gx, gy, edges, lo, hi, false);
        cv::dilate(edges, edges, kernel);  // close one-pixel gaps (rounded corners, noise)
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(edges, contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
        for (const auto &c : contours) {
            cv::Rect box = cv::boundingRect(c);
            if (box.width < min_side_small || box.height < min_side_small * 0.5) continue;
            auto q = quad_from_contour(c);
            if (!q) continue;
            if (min_side(*q) < min_side_small * 0.5) continue;
            double area = quad_area(*q);
            if (area > max_area) continue;
            Quad fq = scale_quad(*q, inv, offset);
            if (!card_shaped(fq, full, focal_px)) continue;
            const double support = edge_support(gx, gy, *q);
            if (support < 0.65) continue;
            // Rank by support times size: the card beats the portrait and
            // the printed boxes inside it, which are as well supported.
            const double rank = support * std::sqrt(area / max_area);
            if (!best || rank > best_rank) {
                best = Detection{fq, support, 3.0f * inv};
                best_rank = rank;
            }
        }
        if (best && best->score > 0.85) break;
    }
    return best;
}

}  // namespace cardvision
