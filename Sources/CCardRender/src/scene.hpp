// scene.hpp — the renderer object behind cr_renderer: caches the face
// rasters and backgrounds it has drawn, and owns the noise generator.
#pragma once

#include "render_internal.hpp"

#include <map>
#include <vector>

namespace cardrender {

class Renderer {
public:
    explicit Renderer(uint64_t seed);
    // Draws one BGR frame of s.width x s.height into frame.
    cr_status render(const cr_scene &s, cv::Mat &frame, cr_truth *truth);
    cv::Mat face_raster(cr_card_type type, cv::Size size);
    // A photograph for one slot (empty path: back to the drawing).
    cr_status set_photo(cr_photo_slot slot, const char *path);

private:
    struct FacePyramid {
        std::vector<cv::Mat> levels, alphas;
        std::vector<double> ppm;
    };
    // material: genuine, or a copy (its printed face, patch frozen when ovi).
    const FacePyramid &face(cr_card_type type, bool inner_frames = false,
                            cr_material material = CR_MATERIAL_GENUINE, bool ovi = false);
    const cv::Mat &background(cv::Size size);
    const PersonLayer &person(cv::Size size, const cr_scene &s);

    uint64_t seed_;
    cv::RNG rng_;
    std::map<int, FacePyramid> faces_;
    std::map<std::pair<int, int>, cv::Mat> backgrounds_;
    std::map<std::array<long, 5>, PersonLayer> people_;  // by frame size and the scene's person
    cv::Mat photos_[3];  // by cr_photo_slot; empty = procedural
    std::map<std::pair<int, int>, ScreenLook> screens_;  // by frame size
};

}  // namespace cardrender
