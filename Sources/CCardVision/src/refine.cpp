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

constexpr float kMinStep = 5.0f;  // grey levels per pixel; weaker is not an edge

struct SideFit {
    cv::Vec4f line;
    float support = 0;
    bool fitted = false;
};

// Huber M-estimate of a line (refit_line_huber). It starts from
// a fit that a thumb over part of the edge cannot drag: the line through the
// medians of the offsets along the normal in the two halves of the side.
cv::Vec4f fit_line_huber(const cv::Point2f *p, const float *offsets, int n, cv::Point2f origin_dir,
                         RefineScratch &s) {
    cv::Vec4f line;
    {
        s.work.assign(offsets, offsets + n / 2);
        std::nth_element(s.work.begin(), s.work.begin() + s.work.size() / 2, s.work.end());
        const int i0 = int(std::find(offsets, offsets + n / 2, s.work[s.work.size() / 2]) - offsets);
        s.work.assign(offsets + n / 2, offsets + n);
        std::nth_element(s.work.begin(), s.work.begin() + s.work.size() / 2, s.work.end());
        const int i1 = n / 2 + int(std::find(offsets + n / 2, offsets + n, s.work[s.work.size() / 2]) - (offsets + n / 2));
        cv::Point2f d = p[i1] - p[i0];
        const float len = std::sqrt(d.dot(d));
        if (len > 1e-3f) line = cv::Vec4f(d.x / len, d.y / len, p[i0].x, p[i0].y);
        else line = cv::Vec4f(origin_dir.x, origin_dir.y, p[0].x, p[0].y);
    }
    return refit_line_huber(p, n, line, s.weights);
}

SideFit fit_side(const cv::Mat &luma, cv::Point2f a, cv::Point2f b, cv::Point2f centre, int radius, RefineScratch &s) {
    SideFit fit;
    cv::Point2f d = b - a;
    float len = float(cv::norm(d));
    if (len < 4) return fit;
    cv::Point2f u = d / len;
    cv::Point2f n(u.y, -u.x);
    if ((a + d * 0.5f - centre).dot(n) < 0) n = -n;  // outward

    // One sample per 5 px of side. (A cap of 24 in the wide first pass of a
    // track cost a third less but let printed lines outvote a fast card's
    // edge now and then: translation-only-2003 raised a false OVERSPEED.)
    const int samples = std::clamp(int(len / 5), 12, 64);
    const float xmax = float(luma.cols - 2), ymax = float(luma.rows - 2);
    const int taps = 2 * radius + 3, width = 2 * radius + 1;
    s.profile.resize(taps);
    s.grads.resize(size_t(samples) * width);
    s.origins.clear();
    float *profile = s.profile.data();
    const uint8_t *base = luma.data;
    const size_t step = luma.step;
    // The frame was just decoded on another core, and across a top or bottom
    // side every tap of a profile lies on its own line of the frame. So the
    // next profile's lines are asked for while this one is read, and the
    // misses overlap instead of stalling the reads one by one.
    auto prefetch_profile = [&](int i) {
        const cv::Point2f q = a + d * (0.1f + 0.8f * (i + 0.5f) / samples) - n * float(radius + 1);
        for (int k = 0; k < taps; k += 2) {
            const float qx = std::clamp(q.x + n.x * float(k), 0.f, xmax), qy = std::clamp(q.y + n.y * float(k), 0.f, ymax);
            const uint8_t *at = base + size_t(qy) * step + size_t(qx);
            __builtin_prefetch(at);
            __builtin_prefetch(at + step);
        }
    };
    prefetch_profile(0);
    for (int i = 0; i < samples; ++i) {
        if (i + 1 < samples) prefetch_profile(i + 1);
        cv::Point2f p = a + d * (0.1f + 0.8f * (i + 0.5f) / samples);
        if (p.x < 0 || p.y < 0 || p.x > xmax || p.y > ymax) continue;  // this stretch of edge is off-frame
        // The search line may run past the frame border when the card lies
        // close to it; clamping repeats the border pixel there, which makes
        // a flat profile (no false step) while the real edge inside is still
        // found. Skipping such samples instead left a side near the border
        // unfitted, and the tracker then kept extrapolating its motion.
        const cv::Point2f p0 = p - n * float(radius + 1);
        for (int k = 0; k < taps; ++k) {
            // Bilinear read, weights in 1/256 (the edge's sub-pixel place
            // comes from the parabola below, not from these weights).
            float qx = p0.x + n.x * float(k), qy = p0.y + n.y * float(k);
            qx = qx >= 0.f ? (qx <= xmax ? qx : xmax) : 0.f;
            qy = qy >= 0.f ? (qy <= ymax ? qy : ymax) : 0.f;
            const int x0 = int(qx), y0 = int(qy);
            const int fx = int((qx - float(x0)) * 256.f + 0.5f), fy = int((qy - float(y0)) * 256.f + 0.5f);
            profile[k] = float(bilinear_q16(base + size_t(y0) * step + x0, step, fx, fy)) * (1.f / 65536.f);
        }
        float *g = s.grads.data() + s.origins.size() * width;
        // Central difference of a [1 2 1]-smoothed profile: g[k] at offset k - radius.
        for (int k = 1; k <= 2 * radius + 1; ++k) {
            float s0 = k >= 2 ? profile[k - 2] : profile[k - 1];
            float sm = (s0 + 2 * profile[k - 1] + profile[k]) * 0.25f;
            float s2 = k + 2 < taps ? profile[k + 2] : profile[k + 1];
            float sp = (profile[k] + 2 * profile[k + 1] + s2) * 0.25f;
            g[k - 1] = (sp - sm) * 0.5f;
        }
        s.origins.push_back(p);
    }
    const int inside = int(s.origins.size());
    if (inside < samples / 3) return fit;

    // Dominant polarity of the side: the card is brighter or darker than
    // what lies beyond this edge, the same all along it.
    double vote = 0;
    for (int i = 0; i < inside; ++i) {
        const float *g = s.grads.data() + size_t(i) * width;
        float best = 0;
        for (int k = 0; k < width; ++k)
            if (std::abs(g[k]) > std::abs(best)) best = g[k];
        vote += best;
    }
    const float polarity = vote >= 0 ? 1.f : -1.f;
    // Mildly prefer steps near the prediction over equally strong steps
    // further away (printed lines inside the card): a Gaussian of the offset,
    // the same for every sample, so it is tabulated once per side.
    const float sigma = float(radius) * 1.2f;
    const float inv2s2 = 0.5f / (sigma * sigma);
    s.nearness.resize(width);
    for (int k = 0; k < width; ++k) {
        const float off = float(k - radius);
        s.nearness[k] = std::exp(-off * off * inv2s2);
    }
    const float *nearness = s.nearness.data();
    s.points.clear();
    s.offsets.clear();
    for (int i = 0; i < inside; ++i) {
        const float *g = s.grads.data() + size_t(i) * width;
        int best = -1;
        float best_score = 0;
        for (int k = 1; k + 1 < width; ++k) {
            float v = polarity * g[k];
            if (v < kMinStep) continue;
            float score = v * nearness[k];
            if (score > best_score) { best_score = score; best = k; }
        }
        if (best < 0) continue;
        float gm = polarity * g[best - 1], g0 = polarity * g[best], gp = polarity * g[best + 1];
        float den = gm - 2 * g0 + gp;
        float sub = std::abs(den) > 1e-6f ? std::clamp(0.5f * (gm - gp) / den, -0.5f, 0.5f) : 0.f;
        float off = float(best - radius) + sub;
        s.points.push_back(s.origins[i] + n * off);
        s.offsets.push_back(off);
    }
    const int hits = int(s.points.size());
    if (hits < std::max(4, samples / 4)) return fit;

    cv::Vec4f line = fit_line_huber(s.points.data(), s.offsets.data(), hits, u, s);
    // Refit on the inliers only: Huber still leans towards a thumb.
    s.inliers.clear();
    for (auto &p : s.points)
        if (distance_to(line, p) < 1.5f) s.inliers.push_back(p);
    if (s.inliers.size() >= 4) fit_line_l2(s.inliers.data(), nullptr, int(s.inliers.size()), line);
    int on_line = 0;
    for (auto &p : s.points)
        if (distance_to(line, p) < 1.2f) ++on_line;
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

Refinement refine_quad(const cv::Mat &luma, const Quad &guess, float radius, RefineScratch &scratch,
                       bool trusted_guess) {
    Refinement r;
    if (luma.cols < 8 || luma.rows < 8) return r;
    cv::Point2f centre(0, 0);
    for (auto &p : guess) centre += p * 0.25f;
    const int rad = std::clamp(int(std::ceil(radius)), 2, 80);
    std::array<cv::Vec4f, 4> lines;
    int unfitted = 0;
    float support_sum = 0;
    for (int s = 0; s < 4; ++s) {
        SideFit f = fit_side(luma, guess[s], guess[(s + 1) % 4], centre, rad, scratch);
        // A side the frame cuts off or a hand hides keeps its predicted line;
        // one such side is tolerated, the other three carry the fit.
        // A guess the print vouches for (texture flow) is right to a pixel
        // or two. A side whose fit leans away from it, with part of its
        // samples off the line, followed a finger or the background along
        // part of its length: the guess is kept for it.
        bool leaning = false;
        if (trusted_guess && f.fitted && f.support < 0.85f) {
            const cv::Vec4f &l = f.line;
            const cv::Point2f a = guess[s], b = guess[(s + 1) % 4];
            auto off = [&](cv::Point2f p) { return std::abs((p.x - l[2]) * l[1] - (p.y - l[3]) * l[0]); };
            const float tolerance = std::max(2.0f, 0.008f * float(cv::norm(b - a)));
            leaning = std::max(off(a), off(b)) > tolerance;
        }
        if (!f.fitted || f.support < 0.3f || leaning) {
            ++unfitted;
            lines[s] = line_through(guess[s], guess[(s + 1) % 4]);
            r.support[s] = f.fitted ? f.support : 0.f;
        } else {
            lines[s] = f.line;
            r.support[s] = f.support;
        }
        support_sum += r.support[s];
    }
    if (unfitted > (trusted_guess ? 2 : 1)) return r;
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
