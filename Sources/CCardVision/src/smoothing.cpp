// smoothing.cpp — temporal filters: the One-Euro filter for the angles and
// the running median of the focal length estimated from the card.
#include "internal.hpp"

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

// The running focal estimate's window, in one place. (The One-Euro filter's
// cutoffs are its constructor's arguments, defaults in internal.hpp.)
struct SmoothingParams {
    // Estimates kept, the latest: enough that a few wrong quads do not move
    // their median; odd, so that a full window has one middle value.
    size_t focal_window = 31;
    // No estimate from fewer than this: the median of two or three is one
    // wrong quad away from wrong.
    size_t min_focal_samples = 5;
};
constexpr SmoothingParams kSmoothing{};

}  // namespace

void FocalEstimator::add(double f) {
    samples_.push_back(f);
    if (samples_.size() > kSmoothing.focal_window) samples_.erase(samples_.begin());
}

std::optional<double> FocalEstimator::value() const {
    if (samples_.size() < kSmoothing.min_focal_samples) return std::nullopt;
    std::vector<double> s = samples_;
    std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
    return s[s.size() / 2];
}

double OneEuroFilter::filter(double x, double dt) {
    auto alpha = [](double cutoff, double dt_s) {
        double tau = 1.0 / (2 * kPi * cutoff);
        return 1.0 / (1.0 + tau / dt_s);
    };
    if (!initialised_ || !(dt > 0)) {
        initialised_ = true;
        x_ = x;
        dx_ = 0;
        return x_;
    }
    double dx = (x - x_) / dt;
    dx_ += alpha(d_cutoff_, dt) * (dx - dx_);
    double cutoff = min_cutoff_ + beta_ * std::abs(dx_);
    x_ += alpha(cutoff, dt) * (x - x_);
    return x_;
}

}  // namespace cardvision
