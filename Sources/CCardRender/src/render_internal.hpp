// render_internal.hpp — pieces of the synthetic scene renderer.
//
// face (the printed card design), background (the desk), camera (the
// pinhole model shared with the vision shim's pose), effects (glare, thumb,
// blur, noise), compression (a low-bitrate encoder's blocks), scene
// (composition of one frame), overlay (--annotate).
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

// ---- person.cpp ---------------------------------------------------------
// The person behind the card (cr_scene.person) on a layer of the
// background's size (the frame plus margin on each side): colours drawn on
// black, so already weighted by their coverage, and the coverage (0..255).
struct PersonLayer {
    cv::Mat bgr, cover;
};
PersonLayer draw_person(cv::Size size, int margin, const cr_scene &scene, uint64_t seed);
// The layer laid over the frame (both of the frame's size).
void lay_over(cv::Mat &frame, const PersonLayer &person);

// ---- photo.cpp ----------------------------------------------------------
// A JPEG file as BGR; empty when it cannot be read or decoded.
cv::Mat load_jpeg(const char *path);
// The photograph scaled to cover size and centre-cropped to it.
cv::Mat cover(const cv::Mat &photo, cv::Size size);

// ---- compression.cpp ----------------------------------------------------
// The image (8-bit grey or BGR) after a JPEG round trip at quality 1..100.
void compress(cv::Mat &image, int quality);

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
// A straight-edged shadow over everything drawn so far (scene.shadow).
void add_cast_shadow(cv::Mat &frame, const cr_scene &scene);
// Focus blur, motion blur and sensor noise over the whole frame.
void add_optics_and_noise(cv::Mat &frame, const cr_scene &scene, cv::RNG &rng);
// Gaussian sensor noise of sigma levels on a BGR frame (nothing when sigma <= 0).
void add_sensor_noise(cv::Mat &frame, double sigma, cv::RNG &rng);

// ---- material.cpp -------------------------------------------------------
// The optically variable patch painted on a face raster of ppm px per mm, as
// seen from (view_yaw_deg, view_pitch_deg) (0, 0 = straight on).
void draw_ovi(cv::Mat &face, double ppm, cr_card_type type, uint64_t seed, double view_yaw_deg,
              double view_pitch_deg);
// The direction the camera sees the patch from, in the card's yaw and pitch sense.
void view_angles(const Camera &cam, cr_card_type type, double &yaw_deg, double &pitch_deg);
// A face raster turned into its paper copy (colour or grey), in place.
void make_copy(cv::Mat &face, double ppm, cr_material material);
// Where the torch next to the lens is mirrored on the card, as fractions of
// the face's width and height; false when far off the card.
bool torch_point(const Camera &cam, double &u, double &v);
// The screen's pixel grid as the camera sees it: a gain per pixel and channel.
struct ScreenLook {
    ScreenLook() = default;
    ScreenLook(cv::Size size, uint64_t seed);
    cv::Mat gain;  // CV_32FC3
};
// The finished frame (a recording) shown on a screen and filmed again:
// bezel, focus, the screen's tone and grid, the second camera's noise.
// truth's corners follow the bezel's shrink.
void film_screen(cv::Mat &frame, const ScreenLook &look, const cr_scene &s, cv::RNG &rng, cr_truth *truth);

// ---- overlay.cpp is self-contained (API only). ---------------------------

}  // namespace cardrender
