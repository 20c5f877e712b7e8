// camera.cpp — the exact pinhole model the ground truth comes from.
//
// Principal point at ((w-1)/2, (h-1)/2) (pixel centres at integers), square
// pixels, f = (w/2) / tan(hfov/2). Card rotation R = Rz(roll) Rx(-pitch)
// Ry(-yaw): yaw > 0 pushes the card's right edge away from the camera, pitch
// > 0 its top edge, roll > 0 turns it clockwise on screen (SPEC section 1).
#include "render_internal.hpp"

#include <cmath>

namespace cardrender {

static cv::Matx33d rot_x(double a) {
    double c = std::cos(a), s = std::sin(a);
    return {1, 0, 0, 0, c, -s, 0, s, c};
}
static cv::Matx33d rot_y(double a) {
    double c = std::cos(a), s = std::sin(a);
    return {c, 0, s, 0, 1, 0, -s, 0, c};
}
static cv::Matx33d rot_z(double a) {
    double c = std::cos(a), s = std::sin(a);
    return {c, -s, 0, s, c, 0, 0, 0, 1};
}

Camera make_camera(const cr_scene &s) {
    Camera cam;
    const double rad = kPi / 180;
    cam.f = 0.5 * s.width / std::tan(0.5 * s.hfov_deg * rad);
    cam.cx = (s.width - 1) * 0.5;
    cam.cy = (s.height - 1) * 0.5;
    cam.R = rot_z(s.roll_deg * rad) * rot_x(-s.pitch_deg * rad) * rot_y(-s.yaw_deg * rad);
    const double z = s.distance_mm;
    cam.t = cv::Vec3d((s.center_x - cam.cx) * z / cam.f, (s.center_y - cam.cy) * z / cam.f, z);
    return cam;
}

bool Camera::project(double x, double y, cv::Point2d &out) const {
    cv::Vec3d p = R * cv::Vec3d(x, y, 0) + t;
    if (p[2] < 1.0) return false;
    out = {f * p[0] / p[2] + cx, f * p[1] / p[2] + cy};
    return true;
}

cv::Matx33d Camera::homography_mm() const {
    cv::Matx33d K(f, 0, cx, 0, f, cy, 0, 0, 1);
    cv::Matx33d M(R(0, 0), R(0, 1), t[0], R(1, 0), R(1, 1), t[1], R(2, 0), R(2, 1), t[2]);
    return K * M;
}

}  // namespace cardrender
