// background.cpp — the desk behind the card: wood grain, uneven light and a
// few soft out-of-focus objects, all from the seed.
//
// Deliberately without straight high-contrast rectangles: a card detector
// must not see cards in the background, and a real desk at this depth of
// field is mostly soft.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace cardrender {

// Smooth noise: random values on a coarse grid, bicubically upsampled.
static cv::Mat smooth_noise(cv::Size size, int cells_x, cv::RNG &rng) {
    const int cx = std::max(2, cells_x), cy = std::max(2, cells_x * size.height / std::max(1, size.width));
    cv::Mat coarse(cy + 3, cx + 3, CV_32F);
    rng.fill(coarse, cv::RNG::UNIFORM, -1.0, 1.0);
    cv::Mat fine;
    cv::resize(coarse, fine, size, 0, 0, cv::INTER_CUBIC);
    return fine;
}

cv::Mat draw_background(cv::Size size, uint64_t seed) {
    cv::RNG rng(seed * 0x9E3779B97F4A7C15ull + 1);
    // Wood: a base tone modulated by grain along a random direction.
    const bool light_wood = rng.uniform(0, 2) == 0;
    const cv::Vec3f base = light_wood ? cv::Vec3f(120, 160, 195) : cv::Vec3f(60, 85, 115);
    const double angle = rng.uniform(-0.3, 0.3);
    const double ca = std::cos(angle), sa = std::sin(angle);
    cv::Mat warp = smooth_noise(size, 6, rng);
    cv::Mat fibre = smooth_noise(size, 90, rng);
    cv::Mat light = smooth_noise(size, 3, rng);
    cv::Mat out(size, CV_8UC3);
    const double period = size.height / (18.0 + rng.uniform(0.0, 10.0));
    for (int y = 0; y < size.height; ++y) {
        const float *wr = warp.ptr<float>(y), *fr = fibre.ptr<float>(y), *lr = light.ptr<float>(y);
        cv::Vec3b *o = out.ptr<cv::Vec3b>(y);
        for (int x = 0; x < size.width; ++x) {
            const double across = -sa * x + ca * y + wr[x] * period * 1.5;
            const double grain = 0.5 + 0.5 * std::sin(2 * kPi * across / period);
            const double g = 0.82 + 0.14 * grain * grain + 0.05 * fr[x];
            const double l = 0.85 + 0.15 * lr[x];
            for (int c = 0; c < 3; ++c) o[x][c] = cv::saturate_cast<uint8_t>(base[c] * g * l);
        }
    }
    // Soft objects: a mug-like round shape, a pen, a shadowy blob.
    cv::Mat objects = out.clone();
    const int n = 2 + rng.uniform(0, 3);
    for (int i = 0; i < n; ++i) {
        cv::Point c(rng.uniform(0, size.width), rng.uniform(0, size.height));
        cv::Scalar colour(rng.uniform(30, 220), rng.uniform(30, 220), rng.uniform(30, 220));
        int r = int(size.width * rng.uniform(0.04, 0.10));
        if (i % 2 == 0)
            cv::circle(objects, c, r, colour, cv::FILLED, cv::LINE_AA);
        else
            cv::line(objects, c, c + cv::Point(int(r * 3 * std::cos(i)), int(r * 3 * std::sin(i))), colour,
                     std::max(2, r / 6), cv::LINE_AA);
    }
    cv::GaussianBlur(objects, objects, cv::Size(0, 0), std::max(2.0, size.width / 200.0));
    return objects;
}

}  // namespace cardrender
