// refine.cpp — the card's four edges at full resolution.
//
// For each side of the guess, sample points between 10 % and 90 % of its
// length (the rounded corners are not on the line), look along the outward
// normal within +-radius for the strongest luma step of the side's dominant
// polarity (sub-pixel by a parabola), fit a line with a Huber loss and refit
// on the inliers, so a thumb over part of an edge is outvoted. A side with
// no edge in luma is fitted the same way on the colour planes, when the
// frame's are given. The corners are the intersections of adjacent lines.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cardvision {

namespace {

// Every threshold of the edge fit and of the side corrections built on it
// (restore_faint_side, widen_to_card_edge), in one place. Sizes in px are
// pixels of the frame fitted; steps are the luma derivative across a side
// ([1 2 1]-smoothed central difference, grey levels per pixel); shares are
// fractions 0..1 of the places along a side.
struct RefineParams {
    // ---- Reading the steps across a side (sample_steps) ----
    // Smallest step that is an edge (grey levels per pixel): weaker is
    // taken for noise.
    float min_step = 5.0f;
    // Places along a side: one per sample_spacing_px of its length, from
    // min_samples to max_samples. A lower cap would cost less in the wide
    // first pass of a track, but lets printed lines outvote a fast card's
    // edge now and then, which reads as a false OVERSPEED.
    int sample_spacing_px = 5, min_samples = 12, max_samples = 64;
    // The places lie from sample_from to sample_from + sample_span of the
    // side's length: its rounded corners are not on the line.
    float sample_from = 0.1f, sample_span = 0.8f;

    // ---- Fitting one side (fit_side) ----
    // A side shorter than this (px) is not fitted.
    int min_side_px = 4;
    // A side is fitted only with at least 1/min_in_frame_den of its places
    // in the frame: a side the frame cuts off keeps its predicted line.
    int min_in_frame_den = 3;
    // Steps near the prediction are mildly preferred over equally strong
    // ones further away (printed lines inside the card): a Gaussian of the
    // offset whose sigma is nearness_sigma search radii (wider than the
    // search, so a step at its end still weighs 0.7).
    float nearness_sigma = 1.2f;
    // A line is fitted to at least min_line_points steps found, and to at
    // least 1/min_found_den of the side's places.
    int min_line_points = 4, min_found_den = 4;
    // Huber still leans towards a thumb: the line is refitted on the steps
    // within inlier_px of it (px). A side's support is the share of its
    // places with a step within on_line_px of the final line (px).
    float inlier_px = 1.5f, on_line_px = 1.2f;

    // ---- The quad (refine_quad) ----
    // An image smaller than this (px, either way) is not fitted.
    int min_image_px = 8;
    // The search radius, px either side of the guess, is kept within
    // these: a step needs a neighbour either side for its sub-pixel
    // parabola, and the cost of a side grows with the radius.
    int min_radius_px = 2, max_radius_px = 80;
    // A trusted guess (the print vouches for it, texture flow) is right to
    // a pixel or two. A side fitted with support under trusted_support
    // whose line passes further than lean_share of the side's length (at
    // least lean_px, px) from the guess's corners followed a finger or the
    // background along part of its length: the guess is kept for it.
    float trusted_support = 0.85f, lean_px = 2.0f, lean_share = 0.008f;
    // A fitted side with less support than this is no edge: it keeps its
    // predicted line.
    float min_side_support = 0.3f;
    // A side with no edge in luma is fitted on the colour-difference
    // planes (half size, search radius halved, at least
    // min_colour_radius_px of theirs): a card's green title band before a
    // grey wall steps in colour, hardly in luma. At half the resolution,
    // and blurred by the codec, a colour step is taken only where it runs
    // along most of the side (min_colour_support of its places): one along
    // a third of it is as likely the chin just above a card's top as the
    // card. Where their samples sit against the luma grid is the stream's
    // (Chroma::siting, from hkcv_image.chroma_site).
    int min_colour_radius_px = 2;
    float min_colour_support = 0.7f;
    // Sides that may keep their predicted line (the frame cuts them off or
    // a hand hides them): the other sides carry the fit. One more when the
    // guess is trusted.
    int max_unfitted = 1, max_unfitted_trusted = 2;
    // A corner may lie at most max_corner_move search radii plus
    // max_corner_move_px (px) from the guess: each side was looked for
    // within a radius of it, and where two fitted lines meet moves
    // somewhat more than either line.
    double max_corner_move = 1.5, max_corner_move_px = 3;
    // Mean support of the four sides for the fit to hold.
    float min_confidence = 0.5f;

    // ---- Band colours (band_colour, colour_step) ----
    // A band's median colour is read at band_places places along the side
    // (from band_from to band_from + band_span of its length, away from the
    // corners) and up to band_rows_max rows across it.
    int band_places = 16, band_rows_max = 8;
    float band_from = 0.15f, band_span = 0.7f;
    // Bands lie line_gap_px from the line they run along (px), past the
    // blur of its edge; edge_gap_px from the line a side moves to (px): its
    // edge was found within a pixel of a vote's peak.
    float line_gap_px = 1.f, edge_gap_px = 2.f;
    // Two band colours pass for the same ground within alike_luma levels
    // of luma and alike_colour of colour (|dCb| + |dCr|): shading across a
    // card changes its brightness more than its colour.
    float alike_luma = 25.f, alike_colour = 12.f;

    // ---- Moving a side to another line (side_moved, line_votes) ----
    // The window of offsets looked at: half the reach plus a pixel, either
    // way of its centre, kept within these (px).
    int min_move_radius = 3, max_move_radius = 40;
    // Fewer than 1/votes_in_frame_den of the side's places in the frame: no
    // line is looked for.
    int votes_in_frame_den = 2;
    // A line is one where line_votes_share of the side's places have a step.
    float line_votes_share = 0.4f;
    // The moved quad is refitted within moved_refit_px (px), and the moved
    // side must keep moved_side_support: an edge, not only the votes' line.
    float moved_refit_px = 2.0f, moved_side_support = 0.4f;

    // ---- A side running on past a corner (runs_on_past_a_corner) ----
    // The stretch looked at, beyond the corner: run_on_from to run_on_to
    // of the side's length past it.
    float run_on_from = 0.03f, run_on_to = 0.18f;
    // A step is read across the line run_on_probe_px either side of it
    // (px), at run_on_across_px places either way across it (px).
    float run_on_probe_px = 3.f;
    int run_on_across_px = 2;
    // A side whose median step is under run_on_min_step grey levels has no
    // edge to follow.
    int run_on_min_step = 8;
    // A place beyond the corner runs on with a step of the side's polarity
    // of at least run_on_step of the side's median step; the side runs on
    // when run_on_share of the places do.
    double run_on_step = 0.5, run_on_share = 0.6;
    // Places read along the side (half of them in frame at least, or
    // nothing is said), and half as many in each stretch beyond a corner
    // (a quarter of them in frame at least).
    int run_on_places = 12;
    // A side shorter than this (px) is not judged.
    int run_on_min_side_px = 20;

    // ---- Restoring a faint side (restore_faint_side) ----
    // A side is looked at when moving it, in steps of restore_step_px (px),
    // out to restore_reach_out or in to restore_reach_in of the card's
    // extent across it, makes the quad's inconsistency at most
    // restore_scan_gain of what it was.
    float restore_step_px = 2.f, restore_reach_out = 0.25f, restore_reach_in = 0.2f;
    double restore_scan_gain = 0.5;
    // Then the lines from restore_min_move_px (px) to restore_far times
    // that move plus restore_far_px (px), within the reach, are tried.
    float restore_min_move_px = 2.f, restore_far = 2.f, restore_far_px = 3.f;
    // A side moved onto a line is kept when the quad's inconsistency is at
    // most restore_gain of what it was.
    double restore_gain = 0.7;

    // ---- Widening to the card's edge (widen_to_card_edge) ----
    // Out to the outermost line from widen_min_share of the card's extent
    // across the side (at least widen_min_px, px) to widen_max_share of it:
    // a card's printed frames and rules lie a few millimetres inside its
    // edge, within a sixth of the card.
    float widen_min_px = 3.f, widen_min_share = 0.015f, widen_max_share = 0.16f;
    // A side held back to where it came from: that far give or take
    // held_back_slack_px (px), and at least held_back_min_px (px) out.
    float held_back_min_px = 2.f, held_back_slack_px = 3.f;
    // A widened quad may be up to widen_shape_slack times as inconsistent
    // with a card as the quad it widens (or kInconsistentCard): a side
    // moved out alone may leave the quad somewhat less a card's shape while
    // another side is still on the print.
    double widen_shape_slack = 1.5;
};
constexpr RefineParams kRefine{};

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

// The luma step across the side a-b at one place per 5 px of its length
// (10 % to 90 % of it): s.grads holds, per place inside the frame, the
// derivative along the outward normal n at offsets -radius..radius from the
// line (s.origins the places). Returns how many places there were in all.
int sample_steps(const cv::Mat &luma, cv::Point2f a, cv::Point2f b, cv::Point2f n, int radius, RefineScratch &s) {
    const cv::Point2f d = b - a;
    const float len = float(cv::norm(d));
    const int samples = std::clamp(int(len / kRefine.sample_spacing_px), kRefine.min_samples, kRefine.max_samples);
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
        const cv::Point2f q =
            a + d * (kRefine.sample_from + kRefine.sample_span * (i + 0.5f) / samples) - n * float(radius + 1);
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
        cv::Point2f p = a + d * (kRefine.sample_from + kRefine.sample_span * (i + 0.5f) / samples);
        if (p.x < 0 || p.y < 0 || p.x > xmax || p.y > ymax) continue;  // this stretch of edge is off-frame
        // The search line may run past the frame border when the card lies
        // close to it; clamping repeats the border pixel there, which makes
        // a flat profile (no false step) while the real edge inside is still
        // found. Skipping such samples would leave a side near the border
        // unfitted, and the tracker would keep extrapolating its motion.
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
    return samples;
}

SideFit fit_side(const cv::Mat &luma, cv::Point2f a, cv::Point2f b, cv::Point2f centre, int radius, RefineScratch &s) {
    SideFit fit;
    cv::Point2f d = b - a;
    float len = float(cv::norm(d));
    if (len < kRefine.min_side_px) return fit;
    cv::Point2f u = d / len;
    cv::Point2f n(u.y, -u.x);
    if ((a + d * 0.5f - centre).dot(n) < 0) n = -n;  // outward

    const int samples = sample_steps(luma, a, b, n, radius, s), width = 2 * radius + 1;
    const int inside = int(s.origins.size());
    if (inside < samples / kRefine.min_in_frame_den) return fit;

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
    // Steps near the prediction are preferred (nearness_sigma): a Gaussian
    // of the offset, the same for every sample, so tabulated once per side.
    const float sigma = float(radius) * kRefine.nearness_sigma;
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
            if (v < kRefine.min_step) continue;
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
    if (hits < std::max(kRefine.min_line_points, samples / kRefine.min_found_den)) return fit;

    cv::Vec4f line = fit_line_huber(s.points.data(), s.offsets.data(), hits, u, s);
    // Refit on the inliers only (inlier_px).
    s.inliers.clear();
    for (auto &p : s.points)
        if (distance_to(line, p) < kRefine.inlier_px) s.inliers.push_back(p);
    if (s.inliers.size() >= size_t(kRefine.min_line_points))
        fit_line_l2(s.inliers.data(), nullptr, int(s.inliers.size()), line);
    int on_line = 0;
    for (auto &p : s.points)
        if (distance_to(line, p) < kRefine.on_line_px) ++on_line;
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

// A side fitted on a colour-difference plane of luma's frame (Cb or Cr,
// whichever supports its line better), the line brought back to luma
// pixels. Not fitted when the planes are not luma's half-size ones.
SideFit fit_side_in_colour(const cv::Mat &luma, const Chroma &chroma, cv::Point2f a, cv::Point2f b,
                           cv::Point2f centre, int radius, RefineScratch &s) {
    SideFit best;
    if (chroma.u.empty() || chroma.u.cols != (luma.cols + 1) / 2 || chroma.u.rows != (luma.rows + 1) / 2) return best;
    const cv::Point2f siting = chroma.siting;
    auto to_plane = [&](cv::Point2f p) { return (p - siting) * 0.5f; };
    const int plane_radius = std::max(kRefine.min_colour_radius_px, (radius + 1) / 2);
    for (const cv::Mat *plane : {&chroma.u, &chroma.v}) {
        SideFit f = fit_side(*plane, to_plane(a), to_plane(b), to_plane(centre), plane_radius, s);
        if (f.fitted && f.support > best.support) best = f;
    }
    if (best.fitted) {
        best.line[2] = best.line[2] * 2.f + siting.x;
        best.line[3] = best.line[3] * 2.f + siting.y;
    }
    return best;
}

}  // namespace

Refinement refine_quad(const cv::Mat &luma, const Quad &guess, float radius, RefineScratch &scratch,
                       bool trusted_guess, const Chroma *chroma) {
    Refinement r;
    if (luma.cols < kRefine.min_image_px || luma.rows < kRefine.min_image_px) return r;
    cv::Point2f centre(0, 0);
    for (auto &p : guess) centre += p * 0.25f;
    const int rad = std::clamp(int(std::ceil(radius)), kRefine.min_radius_px, kRefine.max_radius_px);
    std::array<cv::Vec4f, 4> lines;
    int unfitted = 0;
    float support_sum = 0;
    for (int s = 0; s < 4; ++s) {
        SideFit f = fit_side(luma, guess[s], guess[(s + 1) % 4], centre, rad, scratch);
        if (chroma && (!f.fitted || f.support < kRefine.min_side_support)) {
            const SideFit c = fit_side_in_colour(luma, *chroma, guess[s], guess[(s + 1) % 4], centre, rad, scratch);
            if (c.fitted && c.support >= kRefine.min_colour_support) f = c;
        }
        // A side the frame cuts off or a hand hides keeps its predicted line
        // (max_unfitted), as does one that leans away from a trusted guess
        // (trusted_support).
        bool leaning = false;
        if (trusted_guess && f.fitted && f.support < kRefine.trusted_support) {
            const cv::Vec4f &l = f.line;
            const cv::Point2f a = guess[s], b = guess[(s + 1) % 4];
            auto off = [&](cv::Point2f p) { return std::abs((p.x - l[2]) * l[1] - (p.y - l[3]) * l[0]); };
            const float tolerance = std::max(kRefine.lean_px, kRefine.lean_share * float(cv::norm(b - a)));
            leaning = std::max(off(a), off(b)) > tolerance;
        }
        if (!f.fitted || f.support < kRefine.min_side_support || leaning) {
            ++unfitted;
            lines[s] = line_through(guess[s], guess[(s + 1) % 4]);
            r.support[s] = f.fitted ? f.support : 0.f;
        } else {
            lines[s] = f.line;
            r.support[s] = f.support;
        }
        support_sum += r.support[s];
    }
    if (unfitted > (trusted_guess ? kRefine.max_unfitted_trusted : kRefine.max_unfitted)) return r;
    for (int i = 0; i < 4; ++i) {
        auto c = intersect(lines[(i + 3) % 4], lines[i]);
        if (!c) return r;
        r.quad[i] = *c;
    }
    for (int i = 0; i < 4; ++i)
        if (cv::norm(r.quad[i] - guess[i]) > rad * kRefine.max_corner_move + kRefine.max_corner_move_px) return r;
    if (!is_convex(r.quad)) return r;
    r.confidence = support_sum / 4;
    r.ok = r.confidence >= kRefine.min_confidence;
    return r;
}

Refinement refine_shaped_quad(const cv::Mat &luma, const Quad &guess, float radius, RefineScratch &scratch,
                              const Chroma *chroma) {
    Refinement r = refine_quad(luma, guess, radius, scratch, false, chroma);
    if (r.ok || r.confidence <= 0) return r;  // held, or no quad was fitted
    const auto weakest = std::min_element(r.support.begin(), r.support.end());
    const float others = (r.support[0] + r.support[1] + r.support[2] + r.support[3] - *weakest) / 3;
    if (*weakest < kRefine.min_side_support && others >= kRefine.min_confidence) {
        r.confidence = others;
        r.ok = true;
    }
    return r;
}

namespace {

// The median colour (Y', Cb, Cr) of a band along the side a-b, from d0 to
// d1 pixels along the normal n: medians, so that the letters printed in a
// band of the card do not count.
cv::Vec3f band_colour(const cv::Mat &luma, const Chroma &chroma, cv::Point2f a, cv::Point2f b, cv::Point2f n,
                      float d0, float d1, RefineScratch &s) {
    for (auto &c : s.band) c.clear();
    // (At least two rows: the rows' offsets divide by across - 1.)
    const int along = kRefine.band_places, across = std::clamp(int(d1 - d0) + 1, 2, kRefine.band_rows_max);
    for (int i = 0; i < along; ++i)
        for (int j = 0; j < across; ++j) {
            const cv::Point2f p = a + (b - a) * (kRefine.band_from + kRefine.band_span * float(i) / (along - 1)) +
                                  n * (d0 + (d1 - d0) * float(j) / float(across - 1));
            const int x = cvRound(p.x), y = cvRound(p.y);
            if (x < 0 || y < 0 || x >= luma.cols || y >= luma.rows) continue;
            s.band[0].push_back(luma.at<uint8_t>(y, x));
            if (!chroma.empty()) {
                s.band[1].push_back(chroma.u.at<uint8_t>(y / 2, x / 2));
                s.band[2].push_back(chroma.v.at<uint8_t>(y / 2, x / 2));
            }
        }
    cv::Vec3f m(0, 128, 128);
    for (int c = 0; c < 3; ++c) {
        auto &v = s.band[c];
        if (v.empty()) continue;
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        m[c] = v[v.size() / 2];
    }
    return m;
}

// q with side s (on line side, outward normal n) moved d pixels out along
// n, its corners where the moved line meets the neighbouring sides' lines.
std::optional<Quad> side_shifted(const Quad &q, const std::array<cv::Vec4f, 4> &lines, int s, cv::Point2f n, float d) {
    const cv::Vec4f &side = lines[s];
    const cv::Vec4f shifted(side[0], side[1], side[2] + n.x * d, side[3] + n.y * d);
    auto p = intersect(lines[(s + 3) % 4], shifted), r = intersect(shifted, lines[(s + 1) % 4]);
    if (!p || !r) return std::nullopt;
    Quad m = q;
    m[s] = *p;
    m[(s + 1) % 4] = *r;
    return m;
}

// For each offset along n in a window of 2 * radius + 1 pixels centred
// radius + shift pixels out from the side a-b (shift -2 * radius: the
// window ends on the side and lies inside it), how many places along the
// side have a step (either way: the ground beyond a card's edge changes)
// within a pixel of it; each place votes once per offset. Returns how
// many places were looked at, 0 when half of them fell off the frame.
int line_votes(const cv::Mat &luma, cv::Point2f a, cv::Point2f b, cv::Point2f n, int radius, int shift,
               RefineScratch &scratch) {
    const cv::Point2f centre_shift = n * float(radius + shift);
    const int samples = sample_steps(luma, a + centre_shift, b + centre_shift, n, radius, scratch);
    const int width = 2 * radius + 1, inside = int(scratch.origins.size());
    if (inside < samples / kRefine.votes_in_frame_den) return 0;
    std::vector<int> &votes = scratch.votes;
    votes.assign(width, 0);
    for (int i = 0; i < inside; ++i) {
        const float *g = scratch.grads.data() + size_t(i) * width;
        int last = -2;  // the last offset this place voted for
        for (int k = 1; k + 1 < width; ++k) {
            const float m = std::abs(g[k]);
            if (m < kRefine.min_step || m < std::abs(g[k - 1]) || m < std::abs(g[k + 1])) continue;
            for (int j = std::max(k - 1, last + 1); j <= k + 1; ++j) ++votes[j];
            last = k + 1;
        }
    }
    return samples;
}

// How unlike two band colours (medians of Y'CbCr) are: their L1 distance,
// and whether they pass for the same ground (alike_luma, alike_colour).
struct ColourStep {
    float distance;
    bool alike;
};
ColourStep colour_step(const cv::Vec3f &a, const cv::Vec3f &b) {
    const float luma = std::abs(a[0] - b[0]), colour = std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
    return {luma + colour, luma <= kRefine.alike_luma && colour <= kRefine.alike_colour};
}

// Whether a side moved d px out passes over card: the band between must be
// like the card's ground in the band inside the line it leaves (around the
// letters of the title) or inside one of the two sides that meet it (on a
// near card the title's letters fill the first), and more like it than
// like what lies beyond the new line; not a finger behind the card, the
// shadow under it or the desk beside it.
bool moves_over_card(const cv::Mat &luma, const Chroma &chroma, const Quad &q, int s, float d, RefineScratch &scratch) {
    const cv::Point2f a = q[s], b = q[(s + 1) % 4], n = outward_normal(q, s);
    const float gap = kRefine.line_gap_px, edge_gap = kRefine.edge_gap_px;
    const cv::Vec3f strip = band_colour(luma, chroma, a, b, n, gap, d - gap, scratch);
    const cv::Vec3f beyond = band_colour(luma, chroma, a, b, n, d + edge_gap, 2.f * d + edge_gap, scratch);
    float unlike = std::numeric_limits<float>::max();  // the nearest card ground, L1
    for (int t : {s, (s + 1) % 4, (s + 3) % 4}) {
        const cv::Vec3f inner =
            band_colour(luma, chroma, q[t], q[(t + 1) % 4], outward_normal(q, t), -d, -gap, scratch);
        if (const ColourStep c = colour_step(strip, inner); c.alike) unlike = std::min(unlike, c.distance);
    }
    return unlike < cv::norm(strip - beyond, cv::NORM_L1);
}

// Whether a side moved d px in gives up something that is not card: the
// band it leaves must be unlike the card's ground inside the new line and
// inside the two sides that meet it, and nearer to what lies beyond the side
// than to any of them.
bool gives_up_no_card(const cv::Mat &luma, const Chroma &chroma, const Quad &q, int s, float d, RefineScratch &scratch) {
    const cv::Point2f a = q[s], b = q[(s + 1) % 4], n = outward_normal(q, s);
    const float gap = kRefine.line_gap_px, edge_gap = kRefine.edge_gap_px;
    const cv::Vec3f strip = band_colour(luma, chroma, a, b, n, gap - d, -gap, scratch);
    const cv::Vec3f beyond = band_colour(luma, chroma, a, b, n, edge_gap, d + edge_gap, scratch);
    const float to_beyond = float(cv::norm(strip - beyond, cv::NORM_L1));
    for (int t : {s, (s + 1) % 4, (s + 3) % 4}) {
        const float d0 = t == s ? -2.f * d - edge_gap : -d, d1 = t == s ? -d - edge_gap : -gap;
        const cv::Vec3f inner =
            band_colour(luma, chroma, q[t], q[(t + 1) % 4], outward_normal(q, t), d0, d1, scratch);
        if (const ColourStep c = colour_step(strip, inner); c.alike || c.distance <= to_beyond) return false;
    }
    return true;
}

// Side s of q moved along its outward normal (out: the outermost line
// first; in, sign -1: the nearest first), from min_d to reach pixels, to a
// line along which line_votes_share of the places have a step, where the
// band between is card (out) or is not (in). The moved quad is refitted
// within moved_refit_px and must keep an edge on that side
// (moved_side_support) and satisfy accept; nullopt when no line will do.
template <class Accept>
std::optional<Refinement> side_moved(const cv::Mat &luma, const Chroma &chroma, const Quad &q, int s, float sign,
                                     float min_d, float reach, RefineScratch &scratch, Accept accept) {
    std::array<cv::Vec4f, 4> lines;
    for (int k = 0; k < 4; ++k) lines[k] = line_through(q[k], q[(k + 1) % 4]);
    const cv::Point2f n = outward_normal(q, s);
    const bool out = sign > 0;
    const int radius = std::clamp(int(std::ceil(reach * 0.5f)) + 1, kRefine.min_move_radius, kRefine.max_move_radius),
              width = 2 * radius + 1;
    // The window starts on the side (out) or ends on it (in).
    const int samples = line_votes(luma, q[s], q[(s + 1) % 4], n, radius, out ? 0 : -2 * radius, scratch);
    if (samples == 0) return std::nullopt;
    const std::vector<int> &votes = scratch.votes;
    for (int k = width - 2; k >= 1; --k) {
        const float d = float(out ? k : width - 1 - k);  // pixels from the side
        const bool peak = votes[k] >= votes[k - 1] && votes[k] >= votes[k + 1];
        // (Out, lines up to the window's end count, a pixel or two past
        // reach; in, reach is the limit.)
        if (d < min_d || (!out && d > reach) || votes[k] < kRefine.line_votes_share * float(samples) || !peak)
            continue;
        auto guess = side_shifted(q, lines, s, n, sign * d);
        if (!guess) continue;
        Refinement r = refine_quad(luma, *guess, kRefine.moved_refit_px, scratch);
        if (!r.ok || r.support[s] < kRefine.moved_side_support) continue;
        if (out ? !moves_over_card(luma, chroma, q, s, d, scratch)
                : !gives_up_no_card(luma, chroma, q, s, d, scratch))
            continue;
        if (!accept(r)) continue;
        return r;
    }
    return std::nullopt;
}

}  // namespace

// Whether the line side s of q lies on runs on past one of its corners: in
// a stretch beyond the corner (run_on_from to run_on_to of the side's
// length past it) the same step across the line as along the side (at
// least run_on_step of its median step, of the same polarity) at
// run_on_share of the places or more. A card's edge ends at its corners;
// the edge of a sheet of paper, a page or a table under the card runs on
// past one of them at least (past both but at the sheet's own corner).
// The stretch and the share are the values of the search's test of the
// same thing (sides_end_at_corners, detect.cpp: run_on_stretch x
// run_on_from..run_on_to, run_on_share); the measure differs: the widening
// has luma, not the search's gradients, so it reads a step of the side's
// own polarity where the search reads an edge along the line.
bool runs_on_past_a_corner(const cv::Mat &luma, const Quad &q, int s) {
    constexpr float from = kRefine.run_on_from, to = kRefine.run_on_to, probe = kRefine.run_on_probe_px;
    constexpr int places = kRefine.run_on_places;
    const cv::Point2f a = q[s], b = q[(s + 1) % 4], d = b - a, n = outward_normal(q, s);
    if (cv::norm(d) < kRefine.run_on_min_side_px) return false;
    // The step across the line at p (outside minus inside), the largest of
    // a few places across it of the given polarity (0: either); nullopt
    // beyond the frame.
    auto step_at = [&](cv::Point2f p, int polarity) -> std::optional<int> {
        std::optional<int> best;
        for (int k = -kRefine.run_on_across_px; k <= kRefine.run_on_across_px; ++k) {
            const cv::Point2f c = p + n * float(k), i = c - n * probe, o = c + n * probe;
            const int xi = cvRound(i.x), yi = cvRound(i.y), xo = cvRound(o.x), yo = cvRound(o.y);
            if (std::min({xi, yi, xo, yo}) < 0 || std::max(xi, xo) >= luma.cols || std::max(yi, yo) >= luma.rows)
                return std::nullopt;
            const int v = int(luma.at<uint8_t>(yo, xo)) - int(luma.at<uint8_t>(yi, xi));
            const int score = polarity ? v * polarity : std::abs(v);
            if (!best || score > (polarity ? *best * polarity : std::abs(*best))) best = v;
        }
        return best;
    };
    std::array<int, places> own;
    int n_own = 0;
    for (int i = 0; i < places; ++i)
        if (const auto v = step_at(a + d * (kRefine.sample_from + kRefine.sample_span * (i + 0.5f) / places), 0))
            own[n_own++] = *v;
    if (n_own < places / 2) return false;
    std::nth_element(own.begin(), own.begin() + n_own / 2, own.begin() + n_own);
    const int median = own[n_own / 2];
    if (std::abs(median) < kRefine.run_on_min_step) return false;
    const int polarity = median > 0 ? 1 : -1;
    auto runs_on = [&](cv::Point2f corner, cv::Point2f away) {
        int hits = 0, total = 0;
        for (int i = 0; i < places / 2; ++i) {
            const float t = from + (to - from) * (i + 0.5f) / (places / 2);
            const auto v = step_at(corner + away * t, polarity);
            if (!v) continue;
            ++total;
            hits += *v * polarity >= kRefine.run_on_step * std::abs(median);
        }
        return total >= places / 4 && hits >= kRefine.run_on_share * total;
    };
    return runs_on(a, -d) || runs_on(b, d);
}

std::optional<Refinement> restore_faint_side(const cv::Mat &luma, const Chroma &chroma, const Refinement &fit,
                                             double focal, RefineScratch &scratch) {
    // A light card on a light desk, or in front of a white cup, has an edge
    // a few grey levels deep, whose polarity may change along it; the title
    // printed a few millimetres inside runs parallel to it and is much
    // stronger. An edge fit (and the search's line segments) then take the
    // title for the top, and the quad, a card with its top cut off, reads as
    // a card tilted by 20 degrees that is not in perspective: its recovered
    // shape is not the card's. The card's shape, with the other three sides,
    // says which side is short and roughly by how much; the image says where
    // its edge is: the outermost line beyond it, along most of the side, with
    // card between (a finger behind the card is not card).
    //
    // The other way round, a side can run on past the card's edge onto a
    // line of the background: a light grey card on a grey brick wall, whose
    // edge fit settles a pixel out now and then until the side sits on a
    // mortar joint tens of pixels out (the band between passes for card),
    // or a side the bloom of a lamp pushes out onto the hand holding the
    // card. When no
    // side is short, the nearest line inside a side that makes a card, where
    // what the side gives up looks like what lies beyond it.
    const cv::Size size(luma.cols, luma.rows);
    const Quad &q = fit.quad;
    const double before = card_inconsistency(q, size, focal);
    if (before <= kInconsistentCard) return std::nullopt;
    std::array<cv::Vec4f, 4> lines;
    for (int s = 0; s < 4; ++s) lines[s] = line_through(q[s], q[(s + 1) % 4]);
    auto accept = [&](const Refinement &r) {
        return card_inconsistency(r.quad, size, focal) <= kRefine.restore_gain * before;
    };
    for (const float sign : {1.f, -1.f}) {  // out first: a card is the outermost outline
        std::optional<Refinement> restored;
        for (int s = 0; s < 4; ++s) {
            const cv::Point2f a = q[s], b = q[(s + 1) % 4];
            const cv::Point2f n = outward_normal(q, s);
            const float extent = distance_to(lines[(s + 2) % 4], (a + b) * 0.5f);
            // Would moving this side make a card? (Coarse steps, out to
            // restore_reach_out of the card, in to restore_reach_in.)
            const float reach = (sign > 0 ? kRefine.restore_reach_out : kRefine.restore_reach_in) * extent;
            float at = 0;
            double least = before;
            for (float d = kRefine.restore_step_px; d <= reach; d += kRefine.restore_step_px)
                if (auto m = side_shifted(q, lines, s, n, sign * d))
                    if (double v = card_inconsistency(*m, size, focal); v < least) { least = v; at = d; }
            if (at == 0 || least > kRefine.restore_scan_gain * before) continue;
            // The lines that far and about twice that far.
            const float far = std::min(reach, kRefine.restore_far * at + kRefine.restore_far_px);
            auto r = side_moved(luma, chroma, q, s, sign, kRefine.restore_min_move_px, far, scratch, accept);
            if (!r) continue;
            // Two sides that could each be moved to an edge and make a card:
            // the fingers behind the bottom edge as likely as the top's own
            // edge. Nothing says which, so neither is.
            if (restored) return std::nullopt;
            restored = r;
        }
        if (restored) return restored;
    }
    return std::nullopt;
}

std::optional<Refinement> widen_to_card_edge(const cv::Mat &luma, const Chroma &chroma, const Refinement &fit,
                                             double focal, RefineScratch &scratch, const std::array<float, 4> *back,
                                             std::array<bool, 4> *moved) {
    // Cards are printed with boxes and rules that run parallel to their
    // edges a few millimetres inside them: a frame round the whole face, the
    // title, the portrait's box. A printed line is a clean, dark edge; the
    // card's own edge against a light desk or a wall is a few grey levels
    // deep. The search then takes a quad with one side or all four on the
    // print, the card's shape does not say so (a box inset all round is
    // nearly a card's shape), and tracking keeps it. A card is the outermost
    // of such nested outlines: each side goes out to the outermost line
    // within a sixth of the card beyond it that has card between.
    const cv::Size size(luma.cols, luma.rows);
    std::optional<Refinement> widened;
    Refinement r = fit;
    // Where a side's move was refused only because the quad would no longer
    // have a card's shape: the line it would have gone out to. A frame
    // printed round the whole face is inset on every side, and a quad with
    // two of its sides on it is nearly a card's shape; moved out alone,
    // either side makes a quad that is not (the other still on the print).
    std::array<std::optional<cv::Vec4f>, 4> refused;
    for (int s = 0; s < 4; ++s) {
        if (back && (*back)[s] <= 0) continue;
        const Quad &q = r.quad;
        const cv::Vec4f opposite = line_through(q[(s + 2) % 4], q[(s + 3) % 4]);
        const float extent = distance_to(opposite, (q[s] + q[(s + 1) % 4]) * 0.5f);
        const double before = card_inconsistency(q, size, focal);
        // Moved back only about as far as it came from (held_back_slack_px);
        // else out to the outermost line within widen_max_share of the card.
        const float nearest = back ? std::max(kRefine.held_back_min_px, (*back)[s] - kRefine.held_back_slack_px)
                                   : std::max(kRefine.widen_min_px, kRefine.widen_min_share * extent);
        const float furthest = back ? (*back)[s] + kRefine.held_back_slack_px : kRefine.widen_max_share * extent;
        auto out = side_moved(luma, chroma, q, s, 1.f, nearest, furthest, scratch, [&](const Refinement &m) {
            // Not out onto the edge of something larger the card lies on.
            if (runs_on_past_a_corner(luma, m.quad, s)) return false;
            if (card_inconsistency(m.quad, size, focal) <=
                std::max(kInconsistentCard, kRefine.widen_shape_slack * before))
                return true;
            if (!refused[s]) refused[s] = line_through(m.quad[s], m.quad[(s + 1) % 4]);
            return false;
        });
        if (!out) continue;
        refused[s].reset();
        r = *out;
        widened = r;
        if (moved) (*moved)[s] = true;
    }
    // Those sides moved out together (a search's quad only: a tracked side
    // is held back to where it came from, one side at a time).
    if (!back && std::count_if(refused.begin(), refused.end(), [](const auto &l) { return l.has_value(); }) >= 2) {
        std::array<cv::Vec4f, 4> lines;
        for (int k = 0; k < 4; ++k) lines[k] = refused[k] ? *refused[k] : line_through(r.quad[k], r.quad[(k + 1) % 4]);
        Quad guess;
        bool meets = true;
        for (int k = 0; k < 4 && meets; ++k) {
            const auto c = intersect(lines[(k + 3) % 4], lines[k]);
            meets = c.has_value();
            if (meets) guess[k] = *c;
        }
        if (meets && is_convex(guess)) {
            const double before = card_inconsistency(r.quad, size, focal);
            Refinement m = refine_quad(luma, guess, kRefine.moved_refit_px, scratch);
            bool held = m.ok && card_inconsistency(m.quad, size, focal) <=
                                    std::max(kInconsistentCard, kRefine.widen_shape_slack * before);
            for (int k = 0; k < 4 && held; ++k) held = !refused[k] || m.support[k] >= kRefine.moved_side_support;
            if (held) {
                r = m;
                widened = r;
                for (int k = 0; k < 4; ++k)
                    if (refused[k] && moved) (*moved)[k] = true;
            }
        }
    }
    return widened;
}

}  // namespace cardvision
