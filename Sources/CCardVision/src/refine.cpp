// refine.cpp — the card's four edges at full resolution.
//
// For each side of the guess, sample points between 10 % and 90 % of its
// length (the rounded corners are not on the line), look along the outward
// normal within +-radius for the strongest luma step of the side's dominant
// polarity (sub-pixel by a parabola), fit a line with a Huber loss and refit
// on the inliers, so a thumb over part of an edge is outvoted. The corners
// are the intersections of adjacent lines.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

// Bilinear luma read; the caller keeps p at least one pixel inside.
inline float sample(const cv::Mat &im, float x, float y) {
    int x0 = int(x), y0 = int(y);
    float fx = x - x0, fy = y - y0;
    const uint8_t *r0 = im.ptr<uint8_t>(y0) + x0;
    const uint8_t *r1 = im.ptr<uint8_t>(y0 + 1) + x0;
    return (r0[0] * (1 - fx) + r0[1] * fx) * (1 - fy) + (r1[0] * (1 - fx) + r1[1] * fx) * fy;
}

struct EdgeHit {
    cv::Point2f point;
    float strength;  // signed step, positive = brighter outside
};

struct SideFit {
    cv::Vec4f line;
    float support = 0;
    bool fitted = false;
};

constexpr float kMinStep = 5.0f;  // grey levels per pixel; weaker is not an edge

SideFit fit_side(const cv::Mat &luma, cv::Point2f a, cv::Point2f b, cv::Point2f centre, int radius) {
    SideFit fit;
    cv::Point2f d = b - a;
    float len = float(cv::norm(d));
    if (len < 4) return fit;
    cv::Point2f u = d / len;
    cv::Point2f n(u.y, -u.x);
    if ((a + d * 0.5f - centre).dot(n) < 0) n = -n;  // outward

    const int samples = std::clamp(int(len / 5), 12, 64);
    const float xmax = float(luma.cols - 2), ymax = float(luma.rows - 2);
    std::vector<float> profile(2 * radius + 3), grad(2 * radius + 3);
    std::vector<EdgeHit> hits;
    hits.reserve(samples * 2);
    std::vector<std::vector<float>> grads;  // kept per sample for the polarity pass
    std::vector<cv::Point2f> origins;
    grads.reserve(samples);
    int inside = 0;
    for (int i = 0; i < samples; ++i) {
        cv::Point2f p = a + d * (0.1f + 0.8f * (i + 0.5f) / samples);
        if (p.x < 0 || p.y < 0 || p.x > xmax || p.y > ymax) continue;  // this stretch of edge is off-frame
        ++inside;
        // The search line may run past the frame border when the card lies
        // close to it; clamping repeats the border pixel there, which makes
        // a flat profile (no false step) while the real edge inside is still
        // found. Skipping such samples instead left a side near the border
        // unfitted, and the tracker then kept extrapolating its motion.
        cv::Point2f p0 = p - n * float(radius + 1);
        for (int k = 0; k < 2 * radius + 3; ++k) {
            cv::Point2f q = p0 + n * float(k);
            profile[k] = sample(luma, std::clamp(q.x, 0.f, xmax), std::clamp(q.y, 0.f, ymax));
        }
        std::vector<float> g(2 * radius + 1);
        // Central difference of a [1 2 1]-smoothed profile: g[k] at offset k - radius.
        for (int k = 1; k <= 2 * radius + 1; ++k) {
            float s0 = k >= 2 ? profile[k - 2] : profile[k - 1];
            float sm = (s0 + 2 * profile[k - 1] + profile[k]) * 0.25f;
            float s2 = k + 2 < int(profile.size()) ? profile[k + 2] : profile[k + 1];
            float sp = (profile[k] + 2 * profile[k + 1] + s2) * 0.25f;
            g[k - 1] = (sp - sm) * 0.5f;
        }
        grads.push_back(std::move(g));
        origins.push_back(p);
    }
    if (inside < samples / 3) return fit;

    // Dominant polarity of the side: the card is brighter or darker than
    // what lies beyond this edge, the same all along it.
    double vote = 0;
    for (auto &g : grads) {
        auto it = std::max_element(g.begin(), g.end(), [](float x, float y) { return std::abs(x) < std::abs(y); });
        vote += *it;
    }
    const float polarity = vote >= 0 ? 1.f : -1.f;
    const float sigma = float(radius) * 1.2f;
    for (size_t i = 0; i < grads.size(); ++i) {
        const auto &g = grads[i];
        int best = -1;
        float best_score = 0;
        for (int k = 1; k + 1 < int(g.size()); ++k) {
            float v = polarity * g[k];
            if (v < kMinStep) continue;
            float off = float(k - radius);
            // Mildly prefer steps near the prediction over equally strong
            // steps further away (printed lines inside the card).
            float score = v * std::exp(-0.5f * off * off / (sigma * sigma));
            if (score > best_score) { best_score = score; best = k; }
        }
        if (best < 0) continue;
        float gm = polarity * g[best - 1], g0 = polarity * g[best], gp = polarity * g[best + 1];
        float den = gm - 2 * g0 + gp;
        float sub = std::abs(den) > 1e-6f ? std::clamp(0.5f * (gm - gp) / den, -0.5f, 0.5f) : 0.f;
        float off = float(best - radius) + sub;
        hits.push_back({origins[i] + n * off, g0});
    }
    if (int(hits.size()) < std::max(4, samples / 4)) return fit;

    std::vector<cv::Point2f> pts;
    pts.reserve(hits.size());
    for (auto &h : hits) pts.push_back(h.point);
    cv::Vec4f line;
    cv::fitLine(pts, line, cv::DIST_HUBER, 0, 0.01, 0.01);
    // Refit on the inliers only: Huber still leans towards a thumb.
    std::vector<cv::Point2f> inliers;
    for (auto &p : pts) {
        float r = std::abs((p.x - line[2]) * line[1] - (p.y - line[3]) * line[0]);
        if (r < 1.5f) inliers.push_back(p);
    }
    if (inliers.size() >= 4) cv::fitLine(inliers, line, cv::DIST_L2, 0, 0.01, 0.01);
    int on_line = 0;
    for (auto &p : pts) {
        float r = std::abs((p.x - line[2]) * line[1] - (p.y - line[3]) * line[0]);
        if (r < 1.2f) ++on_line;
    }
    fit.line = line;
    fit.support = float(on_line) / float(samples);
    fit.fitted = true;
    return fit;
}

cv::Vec4f line_through(cv::Point2f a, cv::Point2f b) {
    cv::Point2f d = b - a;
    float len = std::max(1e-6f, float(cv::norm(d)));
    return {d.x / len, d.y / len, a.x, a.y};
}

}  // namespace

Refinement refine_quad(const cv::Mat &luma, const Quad &guess, float radius) {
    Refinement r;
    if (luma.cols < 8 || luma.rows < 8) return r;
    cv::Point2f centre(0, 0);
    for (auto &p : guess) centre += p * 0.25f;
    const int rad = std::clamp(int(std::ceil(radius)), 2, 80);
    std::array<cv::Vec4f, 4> lines;
    int unfitted = 0;
    float support_sum = 0;
    for (int s = 0; s < 4; ++s) {
        SideFit f = fit_side(luma, guess[s], guess[(s + 1) % 4], centre, rad);
        // A side the frame cuts off or a hand hides keeps its predicted line;
        // one such side is tolerated, the other three carry the fit.
        if (!f.fitted || f.support < 0.3f) {
            ++unfitted;
            lines[s] = line_through(guess[s], guess[(s + 1) % 4]);
            r.support[s] = f.fitted ? f.support : 0.f;
        } else {
            lines[s] = f.line;
            r.support[s] = f.support;
        }
        support_sum += r.support[s];
    }
    if (unfitted > 1) return r;
    for (int i = 0; i < 4; ++i) {
        auto c = intersect(lines[(i + 3) % 4], lines[i]);
        if (!c) return r;
        r.quad[i] = *c;
    }
    for (int i = 0; i < 4; ++i)
        if (cv::norm(r.quad[i] - guess[i]) > rad * 1.5 + 3) return r;
    if (!is_convex(r.quad)) return r;
    r.confidence = support_sum / 4;
    r.ok = r.confidence >= 0.5f;
    return r;
}

}  // namespace cardvision
