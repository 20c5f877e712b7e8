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
#include <limits>

namespace cardvision {

double focal_from_hfov(double hfov_deg, int width) {
    return 0.5 * width / std::tan(0.5 * hfov_deg * kPi / 180.0);
}

namespace {

const double kHalfWidthMm = kCardWidthMm * 0.5, kHalfHeightMm = kCardHeightMm * 0.5;

Pose pose_from_rotation(const cv::Matx33d &R) {
    Pose pose;
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

cv::Matx33d rotation_of(const cv::Mat &rvec) {
    cv::Matx33d R;
    cv::Rodrigues(rvec, R);
    return R;
}

struct CardOnCamera {
    std::vector<cv::Point3f> corners;  // the card's corners in its own frame, mm
    std::vector<cv::Point2f> image;    // where the quad puts them, px
    cv::Matx33d K;
};

CardOnCamera card_on_camera(const Quad &q, cv::Size image, double f) {
    const float w = float(kHalfWidthMm), h = float(kHalfHeightMm);
    return {{{-w, -h, 0}, {w, -h, 0}, {w, h, 0}, {-w, h, 0}},
            std::vector<cv::Point2f>(q.begin(), q.end()),
            cv::Matx33d(f, 0, (image.width - 1) * 0.5, 0, f, (image.height - 1) * 0.5, 0, 0, 1)};
}

// A rigid pose of the card: camera point = R card point + t (mm).
struct RigidPose {
    cv::Matx33d R;
    cv::Vec3d t;
};

// The sum of the squared reprojection errors of the four corners (px^2);
// with JtJ and Jtr, the Gauss-Newton normal equations for a small rotation
// w (applied on the left, R' = exp([w]x) R) and a translation dt.
double reprojection(const CardOnCamera &c, const RigidPose &p, cv::Matx66d *JtJ = nullptr, cv::Vec6d *Jtr = nullptr) {
    const double f = c.K(0, 0), cx = c.K(0, 2), cy = c.K(1, 2);
    if (JtJ) {
        *JtJ = cv::Matx66d::zeros();
        *Jtr = cv::Vec6d::all(0);
    }
    double sum = 0;
    for (size_t k = 0; k < c.corners.size(); ++k) {
        const cv::Vec3d RX = p.R * cv::Vec3d(c.corners[k].x, c.corners[k].y, c.corners[k].z), P = RX + p.t;
        if (P[2] <= 0) return std::numeric_limits<double>::infinity();  // behind the camera
        const double iz = 1.0 / P[2];
        const double ru = f * P[0] * iz + cx - c.image[k].x, rv = f * P[1] * iz + cy - c.image[k].y;
        sum += ru * ru + rv * rv;
        if (!JtJ) continue;
        // d(u, v)/dP, and dP/d(w, dt) = [-[RX]x | I].
        const cv::Matx23d projection(f * iz, 0, -f * P[0] * iz * iz, 0, f * iz, -f * P[1] * iz * iz);
        const double dP[18] = {0,      RX[2],  -RX[1], 1, 0, 0,  //
                               -RX[2], 0,      RX[0],  0, 1, 0,  //
                               RX[1],  -RX[0], 0,      0, 0, 1};
        const cv::Matx<double, 3, 6> motion(dP);
        const cv::Matx<double, 2, 6> J = projection * motion;
        *JtJ += J.t() * J;
        *Jtr += J.t() * cv::Vec2d(ru, rv);
    }
    return sum;
}

// Gauss-Newton from p (IPPE's pose) to the least reprojection error. The
// four corners give eight equations for six unknowns, and IPPE's pose is
// near the minimum: a few steps, each kept only while the error falls.
// (OpenCV's solvePnPRefineLM does the same in about 0.2 ms a call, more
// than tracking a frame at 640x480; this, about 15 microseconds.)
RigidPose least_error(const CardOnCamera &c, RigidPose p, double &sum) {
    constexpr int kMaxSteps = 10;
    constexpr double kConverged = 1e-6;  // px^2: a step that gains less ends it
    cv::Matx66d JtJ;
    cv::Vec6d Jtr;
    sum = reprojection(c, p, &JtJ, &Jtr);
    for (int i = 0; i < kMaxSteps && std::isfinite(sum); ++i) {
        const cv::Vec6d step = JtJ.solve(-Jtr, cv::DECOMP_CHOLESKY);
        cv::Matx33d turn;
        cv::Rodrigues(cv::Vec3d(step[0], step[1], step[2]), turn);
        const RigidPose next{turn * p.R, p.t + cv::Vec3d(step[3], step[4], step[5])};
        cv::Matx66d next_JtJ;
        cv::Vec6d next_Jtr;
        const double next_sum = reprojection(c, next, &next_JtJ, &next_Jtr);
        if (!(next_sum < sum)) break;
        const bool converged = sum - next_sum < kConverged;
        p = next;
        sum = next_sum;
        JtJ = next_JtJ;
        Jtr = next_Jtr;
        if (converged) break;
    }
    return p;
}

// IPPE: the two poses a plane's four points allow, best first. With
// refined, each is then moved to the least reprojection error of the four
// corners (least_error), and they are ordered again.
PoseSolutions solve(const Quad &q, cv::Size image, double f, bool refined) {
    PoseSolutions out;
    const CardOnCamera c = card_on_camera(q, image, f);
    std::vector<cv::Mat> rvecs, tvecs;
    cv::Mat errors;
    const int n = cv::solvePnPGeneric(c.corners, c.image, c.K, cv::noArray(), rvecs, tvecs, false,
                                      cv::SOLVEPNP_IPPE, cv::noArray(), cv::noArray(), errors);
    if (!errors.empty()) errors.convertTo(errors, CV_64F);  // float for float points
    out.count = std::min(n, 2);
    if (out.count > 0) out.first_look = pose_from_rotation(rotation_of(rvecs[0]));
    for (int i = 0; i < out.count; ++i) {
        RigidPose p{rotation_of(rvecs[size_t(i)]), cv::Vec3d(tvecs[size_t(i)])};
        out.rms_px[i] = errors.empty() ? 0.0 : errors.at<double>(i);
        if (refined) {
            double sum = 0;
            p = least_error(c, p, sum);
            out.rms_px[i] = std::sqrt(sum / double(c.corners.size()));
        }
        out.pose[i] = pose_from_rotation(p.R);
    }
    if (out.count == 2 && out.rms_px[1] < out.rms_px[0]) {
        std::swap(out.pose[0], out.pose[1]);
        std::swap(out.rms_px[0], out.rms_px[1]);
    }
    return out;
}

}  // namespace

// The pose IPPE reads from the homography of the four corners takes all of
// their error as rotation: a card seen front-on whose top side is a pixel
// low reads several degrees of pitch (its foreshortening, to first order
// nothing near 0, is the only cue the aspect gives). The pose of least
// reprojection error weighs that against the other cue, the sides'
// convergence, which grows linearly with the angle, and leaves the rest
// as error: the maximum-likelihood pose when each corner errs alike.
PoseSolutions pose_solutions(const Quad &q, cv::Size image, double f) { return solve(q, image, f, true); }

Pose pose_from_quad(const Quad &q, cv::Size image, double f) { return solve(q, image, f, false).first_look; }

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
