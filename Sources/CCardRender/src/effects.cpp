// effects.cpp — what makes a synthetic frame look like a camera frame:
// a specular highlight on the laminate, a thumb holding the card, focus and
// motion blur, sensor noise.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace cardrender {

void add_glare(cv::Mat &face, double ppm, const cr_scene &s) {
    // Saturated core of glare_radius_mm, then a halo that lifts the surface
    // towards white and fades out by 2.5 radii.
    const double cx = s.glare_u * face.cols - 0.5, cy = s.glare_v * face.rows - 0.5;
    const double rc = std::max(0.5, s.glare_radius_mm * ppm);
    const double reach = 2.5 * rc;
    const int x0 = std::max(0, int(cx - reach)), x1 = std::min(face.cols - 1, int(cx + reach) + 1);
    const int y0 = std::max(0, int(cy - reach)), y1 = std::min(face.rows - 1, int(cy + reach) + 1);
    const double strength = std::clamp(s.glare_strength, 0.0, 1.0);
    for (int y = y0; y <= y1; ++y) {
        cv::Vec3b *row = face.ptr<cv::Vec3b>(y);
        for (int x = x0; x <= x1; ++x) {
            const double d = std::hypot(x - cx, y - cy);
            double w;
            if (d <= rc) w = 1.0;
            else {
                const double u = (d - rc) / (1.5 * rc);
                w = strength * std::exp(-4.0 * u * u);
            }
            if (w <= 0.002) continue;
            for (int c = 0; c < 3; ++c) row[x][c] = cv::saturate_cast<uint8_t>(row[x][c] + (255 - row[x][c]) * w);
        }
    }
}

// Skin over the frame where mask is set, darker towards the outline (a
// rounded finger or palm); a is the mask's coverage. The hand is in the
// same light as the card: brightness scales it too.
static void paint_skin(cv::Mat &frame, const cv::Mat &mask, float rounding_px, float brightness) {
    cv::Mat inner;
    cv::distanceTransform(mask > 128, inner, cv::DIST_L2, 3);
    const cv::Vec3f skin = cv::Vec3f(120, 150, 205) * brightness;
    for (int y = 0; y < frame.rows; ++y) {
        const uint8_t *m = mask.ptr<uint8_t>(y);
        const float *d = inner.ptr<float>(y);
        cv::Vec3b *o = frame.ptr<cv::Vec3b>(y);
        for (int x = 0; x < frame.cols; ++x) {
            if (!m[x]) continue;
            const float shade = 0.7f + 0.3f * std::min(1.f, d[x] / rounding_px);
            const float a = m[x] / 255.f;
            for (int c = 0; c < 3; ++c) o[x][c] = cv::saturate_cast<uint8_t>(o[x][c] * (1 - a) + skin[c] * shade * a);
        }
    }
}

// In the card plane: where an edge is (origin at pos along it), the
// direction along it in reading order, and the direction into the card.
static void edge_frame(cr_edge edge, double pos, cv::Point2d &origin, cv::Point2d &along, cv::Point2d &inward) {
    const double hw = kCardWidthMm / 2, hh = kCardHeightMm / 2;
    switch (edge) {
    case CR_EDGE_TOP: origin = {-hw + pos * kCardWidthMm, -hh}; along = {1, 0}; inward = {0, 1}; break;
    case CR_EDGE_RIGHT: origin = {hw, -hh + pos * kCardHeightMm}; along = {0, 1}; inward = {-1, 0}; break;
    case CR_EDGE_BOTTOM: origin = {-hw + pos * kCardWidthMm, hh}; along = {1, 0}; inward = {0, -1}; break;
    default: origin = {-hw, -hh + pos * kCardHeightMm}; along = {0, 1}; inward = {1, 0}; break;
    }
}

void add_palm(cv::Mat &frame, const Camera &cam, const cr_hand_part &part, double brightness) {
    // A rounded slab in the card plane from 15 mm behind the edge (hidden by
    // the card) to reach_mm past it, width_mm along it, with round outer
    // corners; it touches the card's outline over its whole width.
    cv::Point2d origin, along, inward;
    edge_frame(part.edge, part.pos, origin, along, inward);
    const double half = part.width_mm / 2, reach = part.reach_mm;
    const double r = std::min(half, reach) * 0.6;  // outer corner radius
    std::vector<cv::Point2d> outline;
    outline.push_back(origin - along * half + inward * 15.0);
    for (int i = 0; i <= 8; ++i) {  // outer corner on the -along side
        const double a = kPi / 2 * i / 8;
        outline.push_back(origin - inward * (reach - r) - along * (half - r) - inward * (r * std::sin(a)) -
                          along * (r * std::cos(a)));
    }
    for (int i = 8; i >= 0; --i) {  // and on the +along side
        const double a = kPi / 2 * i / 8;
        outline.push_back(origin - inward * (reach - r) + along * (half - r) - inward * (r * std::sin(a)) +
                          along * (r * std::cos(a)));
    }
    outline.push_back(origin + along * half + inward * 15.0);
    std::vector<cv::Point> px;
    for (auto &p : outline) {
        cv::Point2d q;
        if (!cam.project(p.x, p.y, q)) return;
        px.emplace_back(int(std::lround(q.x * 16)), int(std::lround(q.y * 16)));
    }
    cv::Mat mask(frame.size(), CV_8UC1, cv::Scalar(0));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{px}, cv::Scalar(255), cv::LINE_AA, 4);
    paint_skin(frame, mask, 30.f, float(brightness));
}

void add_thumb(cv::Mat &frame, const Camera &cam, cr_edge edge, double pos, double width_mm, double reach_mm,
               double brightness) {
    // In the card plane: along the edge (a), inward from the edge (n). The
    // thumb runs from 35 mm outside the card to reach_mm inside, with a
    // round tip; it lies on the card, so it is projected like the card.
    cv::Point2d origin, along, inward;
    edge_frame(edge, pos, origin, along, inward);
    const double r = width_mm / 2, tip = reach_mm - r;
    std::vector<cv::Point2d> outline;
    outline.push_back(origin - along * r - inward * 35.0);
    for (int i = 0; i <= 16; ++i) {  // rounded tip
        const double a = kPi * i / 16;
        outline.push_back(origin + inward * (tip + r * std::sin(a)) - along * (r * std::cos(a)));
    }
    outline.push_back(origin + along * r - inward * 35.0);
    std::vector<cv::Point> px;
    for (auto &p : outline) {
        cv::Point2d q;
        if (!cam.project(p.x, p.y, q)) return;
        px.emplace_back(int(std::lround(q.x * 16)), int(std::lround(q.y * 16)));
    }
    const std::vector<std::vector<cv::Point>> polys{px};
    cv::Mat mask(frame.size(), CV_8UC1, cv::Scalar(0));
    cv::fillPoly(mask, polys, cv::Scalar(255), cv::LINE_AA, 4);
    paint_skin(frame, mask, 12.f, float(brightness));
    // The nail, a paler rounded patch near the tip.
    cv::Point2d nail_c, nail_e;
    if (cam.project(origin.x + inward.x * (tip - r * 0.1), origin.y + inward.y * (tip - r * 0.1), nail_c) &&
        cam.project(origin.x + inward.x * (tip - r * 0.1) + along.x * r * 0.55,
                    origin.y + inward.y * (tip - r * 0.1) + along.y * r * 0.55, nail_e)) {
        const double rr = cv::norm(nail_e - nail_c);
        cv::circle(frame, nail_c, int(rr), cv::Scalar(175, 190, 230) * brightness, cv::FILLED, cv::LINE_AA);
    }
}

void add_optics_and_noise(cv::Mat &frame, const cr_scene &s, cv::RNG &rng) {
    if (s.blur_sigma > 0.05) cv::GaussianBlur(frame, frame, cv::Size(0, 0), s.blur_sigma);
    if (s.motion_blur_px >= 1.5) {
        const int len = int(std::ceil(s.motion_blur_px)) | 1;
        cv::Mat k(len, len, CV_32F, cv::Scalar(0));
        const double a = s.motion_blur_deg * kPi / 180;
        const cv::Point2d c(len / 2, len / 2);  // centre tap
        const cv::Point2d d(std::cos(a) * s.motion_blur_px / 2, std::sin(a) * s.motion_blur_px / 2);
        cv::line(k, cv::Point(int(std::lround((c.x - d.x) * 16)), int(std::lround((c.y - d.y) * 16))),
                 cv::Point(int(std::lround((c.x + d.x) * 16)), int(std::lround((c.y + d.y) * 16))), cv::Scalar(1.0),
                 1, cv::LINE_AA, 4);
        k /= cv::sum(k)[0];
        cv::filter2D(frame, frame, -1, k);
    }
    add_sensor_noise(frame, s.noise_sigma, rng);
}

void add_cast_shadow(cv::Mat &frame, const cr_scene &s) {
    if (s.shadow <= 0) return;
    // Light falls off linearly across the penumbra: the shadow of something
    // far above the desk, so one straight edge across the whole frame.
    const double a = s.shadow_angle_deg * kPi / 180;
    const double nx = std::cos(a), ny = std::sin(a);
    const double px = s.shadow_x * frame.cols - 0.5, py = s.shadow_y * frame.rows - 0.5;
    const double half = std::max(0.5, s.shadow_soft_px / 2);
    for (int y = 0; y < frame.rows; ++y) {
        cv::Vec3b *row = frame.ptr<cv::Vec3b>(y);
        for (int x = 0; x < frame.cols; ++x) {
            const double d = (x - px) * nx + (y - py) * ny;
            if (d <= -half) continue;
            const double w = d >= half ? 1.0 : (d + half) / (2 * half);
            const float k = float(1 - s.shadow * w);
            for (int c = 0; c < 3; ++c) row[x][c] = cv::saturate_cast<uint8_t>(row[x][c] * k);
        }
    }
}

void add_sensor_noise(cv::Mat &frame, double sigma, cv::RNG &rng) {
    if (sigma <= 0) return;
    cv::Mat noise(frame.size(), CV_16SC3);
    rng.fill(noise, cv::RNG::NORMAL, 0, sigma);
    cv::Mat f16;
    frame.convertTo(f16, CV_16SC3);
    f16 += noise;
    f16.convertTo(frame, CV_8UC3);
}

}  // namespace cardrender
