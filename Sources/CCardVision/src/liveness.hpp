// liveness.hpp — evidence about the card's material, gathered on every
// tracked frame (card_vision.h, "Liveness evidence").
#pragma once

#include "internal.hpp"

#include <array>
#include <vector>

namespace cardvision {

// The strongest isolated peak of the spectrum of the card's middle (the
// camera's own pixels, at most 128 x 128), over the smooth spectrum around
// it: a screen's pixel grid left as moire (screen_grid.cpp). -1 when the
// card is too small (under about 107 pixels high) or its middle leaves the frame.
float screen_grid_peak(const cv::Mat &luma, const Quad &q);

// What one material frame says of the card: its black level and colour
// saturation, with how well the frame resolves the print (the card's width
// in the camera's pixels, the focus measure of its rectified face): both
// are judged on the frames that resolve it best.
struct MaterialReading {
    float width_px, focus, black, chroma;
};

// A card's raster as the evidence reads it: full-range Y (8 bit), and Cb, Cr
// centred on 0 (float, half size); limited when the stream's levels were.
struct CardPlanes {
    cv::Mat y, cb, cr;
    bool limited = false;
};

class LivenessEvidence {
public:
    // The frames that show the material: hkcv_config's material_* limits.
    explicit LivenessEvidence(const hkcv_config &config)
        : min_width_(config.material_min_width), max_width_(config.material_max_width),
          max_glare_(config.material_max_glare) {}
    void reset();
    // Forgets the material frames' evidence (black level, colour, the
    // optically variable cells, fine print); the screen grid and the frame
    // count stay (hkcv_tracker_restart_material).
    void restart_material();
    // A tracked frame (its luma as the tracker read it, and the levels in
    // view, levels_in_view): the card at q with its filtered pose, the
    // saturated fraction of its face and its focus (Photometry::focus).
    void add(const hkcv_image &image, const cv::Mat &luma, const LevelHistogram &view, const Quad &q, double yaw,
             double pitch, float glare, float focus);
    hkcv_liveness summary() const;

private:
    bool shows_material(const Quad &q, double width_px, cv::Size size, float glare) const;
    bool far(double width_px, int frame_width) const;
    CardPlanes full_range(const ColourRaster &card);
    float saturation_percentile(const cv::Mat &cb, const cv::Mat &cr, double q);
    void add_cells(int bin, const CardPlanes &planes, float gain);

    double min_width_, max_width_, max_glare_;
    static constexpr int kCols = 32, kRows = 20;  // colour cells over the card
    static constexpr int kBins = HKCV_POSE_BINS;
    // Per pose bin: the sum of each cell's (Cb, Cr), rescaled to a white of 200.
    std::array<std::vector<cv::Vec2f>, kBins> cell_sums_;
    std::array<int, kBins> bin_frames_{};
    int frames_ = 0, material_frames_ = 0;
    std::vector<float> fine_print_, grid_;
    std::vector<MaterialReading> material_;
    cv::Mat y_, lap_, saturation_;  // scratch
    std::vector<float> saturation_values_;
};

}  // namespace cardvision
