// pose.cpp — yaw, pitch and roll of the card from its four corners.
//
// Card frame: origin at the centre of the face, x right, y down (both in
// mm), z away from the camera, so a card facing the camera has R = I.
// We write R = Rz(roll) * Rx(-pitch) * Ry(-yaw): yaw turns the card about its
// own vertical axis (yaw > 0 pushes the right edge away), pitch about its
// horizontal axis (pitch > 0 pushes the top edge away), roll is clockwise on
// screen. The renderer uses the same model, so ground truth is exact.
#include "internal.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

double focal_from_hfov(double hfov_deg, int width) {
    return 0.5 * width / std::tan(0.5 * hfov_deg * kPi / 180.0);
}

namespace {

const double kHalfWidthMm = kCardWidthMm * 0.5, kHalfHeightMm = kCardHeightMm * 0.5;

Pose pose_from_rvec(const cv::Mat &rvec) {
    Pose pose;
    cv::Matx33d R;
    cv::Rodrigues(rvec, R);
    const double deg = 180.0 / kPi;
    // R = Rz(phi) Rx(a) Ry(b): row 2 = (-cos a sin b, sin a, cos a cos b),
    // column 1 rows 0,1 = (-sin phi cos a, cos phi cos a).
    const double a = std::asin(std::clamp(R(2, 1), -1.0, 1.0));
    const double b = std::atan2(-R(2, 0), R(2, 2));
    const double phi = std::atan2(-R(0, 1), R(1, 1));
    pose.yaw = -b * deg;
    pose.pitch = -a * deg;
    pose.roll = phi * deg;
    pose.ok = std::isfinite(pose.yaw) && std::isfinite(pose.pitch) && std::isfinite(pose.roll);
    return pose;
}

}  // namespace

PoseSolutions pose_solutions(const Quad &q, cv::Size image, double f) {
    PoseSolutions out;
    const float w = float(kHalfWidthMm), h = float(kHalfHeightMm);
    std::vector<cv::Point3f> object = {{-w, -h, 0}, {w, -h, 0}, {w, h, 0}, {-w, h, 0}};
    std::vector<cv::Point2f> points(q.begin(), q.end());
    cv::Matx33d K(f, 0, (image.width - 1) * 0.5, 0, f, (image.height - 1) * 0.5, 0, 0, 1);
    std::vector<cv::Mat> rvecs, tvecs;
    cv::Mat errors;
    // IPPE: the two poses a plane's four points allow, best first, each
    // with its RMS reprojection error.
    const int n = cv::solvePnPGeneric(object, points, K, cv::noArray(), rvecs, tvecs, false, cv::SOLVEPNP_IPPE,
                                      cv::noArray(), cv::noArray(), errors);
    if (!errors.empty()) errors.convertTo(errors, CV_64F);  // float for float points
    for (int i = 0; i < std::min(n, 2); ++i) {
        out.pose[i] = pose_from_rvec(rvecs[size_t(i)]);
        out.rms_px[i] = errors.empty() ? 0.0 : errors.at<double>(i);
    }
    out.count = std::min(n, 2);
    return out;
}

Pose pose_from_quad(const Quad &q, cv::Size image, double f) { return pose_solutions(q, image, f).best(); }

std::optional<double> focal_from_quad(const Quad &q, cv::Size image) {
    // H maps card mm (centred) to image pixels relative to the principal
    // point; K^-1 H = s [r1 r2 t] with K = diag(f, f, 1) gives, with u = 1/f^2:
    //   r1.r2 = 0:        (h11 h12 + h21 h22) u + h31 h32 = 0
    //   |r1| = |r2|:      (h11^2 + h21^2 - h12^2 - h22^2) u + h31^2 - h32^2 = 0
    // Solved in the least-squares sense for u.
    const double cx = (image.width - 1) * 0.5, cy = (image.height - 1) * 0.5;
    const float w = float(kCardWidthMm * 0.5), h = float(kCardHeightMm * 0.5);
    cv::Point2f src[4] = {{-w, -h}, {w, -h}, {w, h}, {-w, h}};
    cv::Point2f dst[4];
    for (int i = 0; i < 4; ++i) dst[i] = {float(q[i].x - cx), float(q[i].y - cy)};
    cv::Mat Hm = cv::getPerspectiveTransform(src, dst);
    cv::Matx33d H(Hm);
    const double a1 = H(0, 0) * H(0, 1) + H(1, 0) * H(1, 1), b1 = H(2, 0) * H(2, 1);
    const double a2 = H(0, 0) * H(0, 0) + H(1, 0) * H(1, 0) - H(0, 1) * H(0, 1) - H(1, 1) * H(1, 1);
    const double b2 = H(2, 0) * H(2, 0) - H(2, 1) * H(2, 1);
    const double den = a1 * a1 + a2 * a2;
    if (den <= 0) return std::nullopt;
    const double u = -(a1 * b1 + a2 * b2) / den;
    if (!(u > 0)) return std::nullopt;
    const double f = 1.0 / std::sqrt(u);
    if (!std::isfinite(f)) return std::nullopt;
    return f;
}

}  // namespace cardvision
