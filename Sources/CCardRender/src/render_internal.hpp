// render_internal.hpp — pieces of the synthetic scene renderer.
//
// face (the printed card design), background (the desk), camera (the
// pinhole model shared with the vision shim's pose), effects (glare, thumb,
// blur, noise), scene (composition of one frame), overlay (--annotate).
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <map>

#include "card_render.h"

namespace cardrender {

constexpr double kCardWidthMm = 85.60;
constexpr double kCardHeightMm = 53.98;
constexpr double kCornerRadiusMm = 3.18;
constexpr double kPi = 3.14159265358979323846;

// ---- face.cpp -----------------------------------------------------------
// What a face may have besides the procedural design (issue 12's harder
// scenes); the default is the original face, pixel for pixel.
struct FaceOptions {
    bool inner_frames = false;        // bold portrait frame and inset border line
    const cv::Mat *paper = nullptr;   // photograph under the printing instead of paper and guilloche
    const cv::Mat *portrait = nullptr;  // photograph in the portrait boxes instead of the cartoon
};
// The card face drawn at px_per_mm (BGR), procedurally from seed.
cv::Mat draw_card_face(cr_card_type type, double px_per_mm, uint64_t seed, const FaceOptions &options = {});
// Rounded-rectangle coverage of a face raster of that size (0..255, anti-aliased).
cv::Mat card_alpha(cv::Size size, double px_per_mm);

// ---- background.cpp -----------------------------------------------------
// A desk-like texture of the given size, from seed (BGR).
cv::Mat draw_background(cv::Size size, uint64_t seed);

// ---- photo.cpp ----------------------------------------------------------
// A JPEG file as BGR; empty when it cannot be read or decoded.
cv::Mat load_jpeg(const char *path);
// The photograph scaled to cover size and centre-cropped to it.
cv::Mat cover(const cv::Mat &photo, cv::Size size);

// ---- camera.cpp ---------------------------------------------------------
struct Camera {
    double f = 0, cx = 0, cy = 0;
    cv::Matx33d R;     // card -> camera rotation
    cv::Vec3d t;       // card centre in camera coordinates, mm
    // Image of a point of the card plane (mm, card centre origin); false if
    // it is behind the camera.
    bool project(double x_mm, double y_mm, cv::Point2d &out) const;
    // Homography from card-plane mm to image pixels.
    cv::Matx33d homography_mm() const;
};
Camera make_camera(const cr_scene &scene);

// ---- effects.cpp --------------------------------------------------------
// Specular highlight painted on a face raster (ppm = its pixels per mm).
void add_glare(cv::Mat &face, double ppm, const cr_scene &scene);
// A thumb lying on the card over one edge, drawn into the frame.
// brightness: the scene's, the thumb is in the same light as the card.
void add_thumb(cv::Mat &frame, const Camera &cam, cr_edge edge, double pos, double width_mm, double reach_mm,
               double brightness);
// A palm (or fingers) behind the card, sticking out past one edge: drawn
// before the card, so the card hides the part behind it.
void add_palm(cv::Mat &frame, const Camera &cam, const cr_hand_part &part, double brightness);
// Focus blur, motion blur and sensor noise over the whole frame.
void add_optics_and_noise(cv::Mat &frame, const cr_scene &scene, cv::RNG &rng);

// ---- overlay.cpp is self-contained (API only). ---------------------------

}  // namespace cardrender
