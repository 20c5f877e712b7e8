// screen_grid.cpp — the pixel grid of a screen, seen through the card.
//
// A screen is a lattice of light: each pixel three coloured stripes with
// dark gaps between them. Re-filmed, the lens blurs that lattice and every
// sensor pixel integrates its area, but neither removes it entirely: what
// survives is a sum of a few pure sinusoids (the grid's harmonics, aliased
// by the sensor's sampling into moire). In the spectrum of the card's
// middle they are isolated peaks, a few bins wide, standing far above the
// spectrum around them. A card's print filmed by a camera has a smooth
// spectrum at those frequencies: text, portrait and guilloche are edges and
// curves, and the camera's noise is flat.
//
// Measured at the camera's own pixels (the moire is a beat against the
// sensor's grid; resampling the card to a raster would blur it into its
// neighbours): the middle of the card, up to 128 x 128 pixels, averaged
// over 64 x 64 blocks overlapping by half (Welch: one block's periodogram
// has peaks anywhere by chance, nine blocks' average has few). A bin's
// background is the larger of the medians of its 8 neighbours along each
// axis, so a line of energy (a row of text, a block edge of the codec
// repeated down the frame) is background, not a peak. The lattice of the
// codec's 8-pixel blocks is left out, since a compressed card has it too.
#include "liveness.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

constexpr int kBlock = 64;            // the DFT's block, camera pixels
constexpr int kHop = kBlock / 2;      // Welch's overlap: half a block
constexpr int kMaxPatch = 128;        // the measured middle of the card, at most
constexpr int kMinRadius = 6;         // bins: periods under 64 / 6 = 10.7 px (the card's print owns the rest)
constexpr int kNeighbours = 4;        // bins each way along each axis for a bin's background
constexpr int kCodecLattice = kBlock / 8;  // bins: the harmonics of an 8-pixel block

float median_of(float *v, int n) {
    std::nth_element(v, v + n / 2, v + n);
    return v[n / 2];
}

}  // namespace

float screen_grid_peak(const cv::Mat &luma, const Quad &q) {
    // The largest square around the card's centre that stays inside it:
    // a card's shorter side is its height; 60 % of it leaves the edges out.
    cv::Point2f centre(0, 0);
    for (const auto &p : q) centre += p * 0.25f;
    const double height = 0.5 * (cv::norm(q[3] - q[0]) + cv::norm(q[2] - q[1]));
    int patch = std::min(kMaxPatch, int(0.6 * std::min(height, mean_width(q))) / kHop * kHop);
    if (patch < kBlock) return -1;
    const cv::Rect box(int(std::lround(centre.x)) - patch / 2, int(std::lround(centre.y)) - patch / 2, patch, patch);
    if (box.x < 0 || box.y < 0 || box.x + box.width > luma.cols || box.y + box.height > luma.rows) return -1;

    static thread_local cv::Mat window, block, spectrum, power;
    if (window.empty()) cv::createHanningWindow(window, cv::Size(kBlock, kBlock), CV_32F);
    power.create(kBlock, kBlock, CV_32F);  // kept across calls: no allocation a frame
    power.setTo(0);
    for (int y = box.y; y + kBlock <= box.y + box.height; y += kHop)
        for (int x = box.x; x + kBlock <= box.x + box.width; x += kHop) {
            luma(cv::Rect(x, y, kBlock, kBlock)).convertTo(block, CV_32F);
            block -= cv::mean(block)[0];
            block = block.mul(window);
            cv::dft(block, spectrum, cv::DFT_COMPLEX_OUTPUT);
            for (int r = 0; r < kBlock; ++r) {
                const cv::Vec2f *s = spectrum.ptr<cv::Vec2f>(r);
                float *p = power.ptr<float>(r);
                for (int c = 0; c < kBlock; ++c) p[c] += s[c][0] * s[c][0] + s[c][1] * s[c][1];
            }
        }

    // Half the plane (the spectrum of a real image is symmetric).
    auto at = [&](int ky, int kx) { return power.at<float>((ky + kBlock) % kBlock, (kx + kBlock) % kBlock); };
    float peak = 0;
    float along[2 * kNeighbours];
    for (int ky = 0; ky <= kBlock / 2; ++ky)
        for (int kx = -kBlock / 2 + 1; kx <= kBlock / 2; ++kx) {
            if (ky == 0 && kx <= 0) continue;
            if (ky * ky + kx * kx < kMinRadius * kMinRadius || ky * ky + kx * kx > (kBlock / 2) * (kBlock / 2))
                continue;
            if (kx % kCodecLattice == 0 && ky % kCodecLattice == 0) continue;
            const float p = at(ky, kx);
            int n = 0;
            for (int d = 1; d <= kNeighbours; ++d) {
                along[n++] = at(ky, kx - d);
                along[n++] = at(ky, kx + d);
            }
            const float row = median_of(along, n);
            n = 0;
            for (int d = 1; d <= kNeighbours; ++d) {
                along[n++] = at(ky - d, kx);
                along[n++] = at(ky + d, kx);
            }
            const float column = median_of(along, n);
            const float background = std::max({row, column, 1e-3f});
            peak = std::max(peak, p / background);
        }
    return peak;
}

}  // namespace cardvision
