// material.cpp — what the card is made of, and what is filmed (issue 13):
// the optically variable patch a genuine card carries, the paper copies of
// a card (colour and grey), a recording replayed on a screen and re-filmed,
// and the phone's torch reflected in the laminate.
//
// The numbers are physical rather than tuned to a detector: a copier keeps
// about 60 % of the colour saturation and its toner black on paper is 15-20 %
// of the paper's white under room light; a phone or monitor filmed by a
// camera shows its black at about 30 % of its white (backlight bleed plus the
// room reflected in the glass) and a faint beat pattern between its pixel
// grid and the camera's (moire).
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardrender {

namespace {

// Where the patch sits on each layout (mm from the face's top-left corner)
// and its radius: about 12 % of the card's width, between the fields and the
// small portrait, well inside the card's edge (the detector looks there).
struct PatchPlace {
    double cx, cy, r;
};
PatchPlace patch_place(cr_card_type type) {
    if (type == CR_CARD_2003) return {49.8, 41.5, 5.0};  // between the small portrait and the large one
    return {63.0, 42.0, 5.5};                            // 2018: left of the small portrait
}

// A 64-bit mix of the seed (SplitMix64's finaliser), for values that must
// not disturb the random draws of the face, background or noise.
uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
double unit(uint64_t seed, uint64_t salt) { return double(mix(seed ^ mix(salt)) >> 11) / double(1ull << 53); }

// HSV (hue in degrees, s and v 0..1) to BGR 0..255.
cv::Vec3f hsv_bgr(double h, double s, double v) {
    h = std::fmod(h, 360.0);
    if (h < 0) h += 360;
    const double c = v * s, x = c * (1 - std::abs(std::fmod(h / 60.0, 2.0) - 1)), m = v - c;
    double r = 0, g = 0, b = 0;
    switch (int(h / 60.0) % 6) {
    case 0: r = c; g = x; break;
    case 1: r = x; g = c; break;
    case 2: g = c; b = x; break;
    case 3: g = x; b = c; break;
    case 4: r = x; b = c; break;
    default: r = c; b = x; break;
    }
    return cv::Vec3f(float((b + m) * 255), float((g + m) * 255), float((r + m) * 255));
}

}  // namespace

// Hue degrees per degree of viewing angle: turning the card 20 degrees turns
// the patch's hue by 100 degrees (a diffractive foil sweeps the spectrum
// over a few tens of degrees).
static constexpr double kOviHuePerDegree = 5.0;

void draw_ovi(cv::Mat &face, double ppm, cr_card_type type, uint64_t seed, double view_yaw_deg,
              double view_pitch_deg) {
    const PatchPlace p = patch_place(type);
    // From the seed: the hue it shows front-on, which way the swirl turns,
    // and how strongly each axis moves it (a foil is not isotropic).
    const double base = 360.0 * unit(seed, 1);
    const double turn = unit(seed, 2) < 0.5 ? -1.0 : 1.0;
    const double k_yaw = kOviHuePerDegree * (0.9 + 0.2 * unit(seed, 3));
    const double k_pitch = kOviHuePerDegree * (0.9 + 0.2 * unit(seed, 4)) * (unit(seed, 5) < 0.5 ? -1 : 1);
    const double phase = k_yaw * view_yaw_deg + k_pitch * view_pitch_deg;

    const double cx = p.cx * ppm - 0.5, cy = p.cy * ppm - 0.5, R = p.r * ppm;
    const int x0 = std::max(0, int(cx - R) - 1), x1 = std::min(face.cols - 1, int(cx + R) + 2);
    const int y0 = std::max(0, int(cy - R) - 1), y1 = std::min(face.rows - 1, int(cy + R) + 2);
    const double ring_px = 0.6 * ppm;  // fine concentric rings, 0.6 mm apart
    for (int y = y0; y <= y1; ++y) {
        cv::Vec3b *row = face.ptr<cv::Vec3b>(y);
        for (int x = x0; x <= x1; ++x) {
            const double dx = x - cx, dy = y - cy, r = std::hypot(dx, dy);
            const double a = std::clamp(R - r + 0.5, 0.0, 1.0);  // anti-aliased rim
            if (a <= 0) continue;
            // One turn of the spectrum around the centre, a swirl outwards,
            // the whole of it turned by the viewing direction.
            const double theta = std::atan2(dy, dx) * 180 / kPi;
            const double hue = base + turn * theta + 140.0 * r / R + phase;
            const double v = 0.86 + 0.06 * std::cos(2 * kPi * r / std::max(1.0, ring_px));
            const double s = 0.62 * std::min(1.0, 0.35 + 0.65 * r / (0.3 * R));  // paler at the very centre
            const cv::Vec3f c = hsv_bgr(hue, s, v);
            for (int k = 0; k < 3; ++k) row[x][k] = cv::saturate_cast<uint8_t>(row[x][k] * (1 - a) + c[k] * a);
        }
    }
}

void make_copy(cv::Mat &face, double ppm, cr_material material) {
    // The copier's optics and the toner dots soften the finest print.
    cv::GaussianBlur(face, face, cv::Size(0, 0), std::max(0.3, 0.1 * ppm));
    // 60 % of the colour (chroma); a copier's contrasty tone curve prints the
    // card's dark ink (luma ~50) as solid toner, and solid toner on paper
    // is 16 % of the paper's white: the copy's darkest print is 15-20 % of
    // its white, as measured on real copies, not the card's dark grey lifted.
    const float keep = material == CR_MATERIAL_GREY_COPY ? 0.f : 0.52f;  // x 1.16 from the curve: 60 %
    const float lift = 0.16f * 255.f, dark = 60.f, light = 245.f;
    for (int y = 0; y < face.rows; ++y) {
        cv::Vec3b *row = face.ptr<cv::Vec3b>(y);
        for (int x = 0; x < face.cols; ++x) {
            const cv::Vec3f c(row[x][0], row[x][1], row[x][2]);
            const float luma = 0.114f * c[0] + 0.587f * c[1] + 0.299f * c[2];
            for (int k = 0; k < 3; ++k) {
                const float v = std::clamp((luma + keep * (c[k] - luma) - dark) / (light - dark), 0.f, 1.f);
                row[x][k] = cv::saturate_cast<uint8_t>(lift + v * (255.f - lift));
            }
        }
    }
}

bool torch_point(const Camera &cam, double &u, double &v) {
    // The torch sits next to the lens: its reflection is where the card's
    // normal points at the camera, the foot of the perpendicular from the
    // camera centre to the card's plane.
    const cv::Vec3d n(cam.R(0, 2), cam.R(1, 2), cam.R(2, 2));
    const cv::Vec3d foot = n * n.dot(cam.t);
    const cv::Vec3d q = cam.R.t() * (foot - cam.t);
    u = (q[0] + kCardWidthMm / 2) / kCardWidthMm;
    v = (q[1] + kCardHeightMm / 2) / kCardHeightMm;
    return u > -0.5 && u < 1.5 && v > -0.5 && v < 1.5;
}

void view_angles(const Camera &cam, cr_card_type type, double &yaw_deg, double &pitch_deg) {
    // The camera seen from the patch, in card coordinates (x right, y down,
    // z away from the viewer when front-on): front-on both are 0; for a card
    // at the image centre they equal the scene's yaw and pitch.
    const PatchPlace p = patch_place(type);
    const cv::Vec3d patch(p.cx - kCardWidthMm / 2, p.cy - kCardHeightMm / 2, 0);
    const cv::Vec3d c = cam.R.t() * (-cam.t) - patch;
    yaw_deg = std::atan2(-c[0], -c[2]) * 180 / kPi;
    pitch_deg = std::atan2(c[1], -c[2]) * 180 / kPi;
}

ScreenLook::ScreenLook(cv::Size size, uint64_t seed) {
    // The screen's pixel grid seen by the camera: a beat between the two
    // grids (slow fringes, 7-12 px apart, at a small angle) and what is left
    // of the RGB stripes themselves (near the camera's Nyquist limit, each
    // colour a third of a period from the next).
    const double beat = 7.0 + 5.0 * unit(seed, 11), beat_angle = (unit(seed, 12) - 0.5) * 0.5;
    const double stripe = 2.4 + 0.6 * unit(seed, 13), stripe_angle = (unit(seed, 14) - 0.5) * 0.1;
    const double bx = std::cos(beat_angle) / beat, by = std::sin(beat_angle) / beat;
    const double sx = std::cos(stripe_angle) / stripe, sy = std::sin(stripe_angle) / stripe;
    gain.create(size, CV_32FC3);
    for (int y = 0; y < size.height; ++y) {
        cv::Vec3f *row = gain.ptr<cv::Vec3f>(y);
        for (int x = 0; x < size.width; ++x) {
            const double m = 0.035 * std::cos(2 * kPi * (bx * x + by * y));
            const double s = 2 * kPi * (sx * x + sy * y);
            for (int k = 0; k < 3; ++k)
                row[x][k] = float(1.0 + m + 0.025 * std::cos(s + (2 - k) * 2 * kPi / 3));
        }
    }
}

// Where the recording shows inside a bezel taking `bezel` of the frame's
// width on each side: shrunk by one factor both ways about the frame's
// centre, so that the recording keeps its shape (a screen does not stretch
// what it plays).
static cv::Rect screen_area(cv::Size frame, double bezel) {
    const double k = 1.0 - 2.0 * bezel;
    const int w = int(std::lround(k * frame.width)), h = int(std::lround(k * frame.height));
    return cv::Rect((frame.width - w) / 2, (frame.height - h) / 2, w, h);
}

void film_screen(cv::Mat &frame, const ScreenLook &look, const cr_scene &s, cv::RNG &rng, cr_truth *truth) {
    // The recording as the screen shows it: the phone is held close enough
    // that its screen fills the view, or, with a bezel, a little farther.
    const double bezel = std::clamp(s.screen_bezel, 0.0, 0.2);
    const cv::Rect inner = screen_area(frame.size(), bezel);
    if (bezel > 0) {
        const double kx = double(inner.width) / frame.cols, ky = double(inner.height) / frame.rows;
        cv::Mat small;
        cv::resize(frame, small, inner.size(), 0, 0, cv::INTER_AREA);
        frame.setTo(cv::Scalar(0, 0, 0));
        small.copyTo(frame(inner));
        if (truth && truth->card_visible)
            for (int i = 0; i < 4; ++i) {
                truth->corners[2 * i] = float(inner.x + (truth->corners[2 * i] + 0.5) * kx - 0.5);
                truth->corners[2 * i + 1] = float(inner.y + (truth->corners[2 * i + 1] + 0.5) * ky - 0.5);
            }
        if (truth) truth->width_ratio = float(truth->width_ratio * kx);
        // The bezel: black glass and plastic lit by the room, a little
        // lighter towards the top.
        cv::Mat band(frame.size(), CV_8UC1, cv::Scalar(255));
        band(inner).setTo(cv::Scalar(0));
        for (int y = 0; y < frame.rows; ++y) {
            const uint8_t level = cv::saturate_cast<uint8_t>(26 - 10.0 * y / frame.rows);
            cv::Vec3b *row = frame.ptr<cv::Vec3b>(y);
            const uint8_t *b = band.ptr<uint8_t>(y);
            for (int x = 0; x < frame.cols; ++x)
                if (b[x]) row[x] = cv::Vec3b(uint8_t(level + 2), level, level);
        }
    }
    // The camera focused on the screen: the screen's pixels and the lens
    // soften the recording.
    cv::GaussianBlur(frame, frame, cv::Size(0, 0), 0.8);
    // The screen's tone: black at 30 % of its white, a little less colour
    // (the lifted black dilutes it) and a cooler white; then the pixel grid.
    const float black = 0.30f, white = 232.f;
    for (int y = inner.y; y < inner.y + inner.height; ++y) {
        cv::Vec3b *row = frame.ptr<cv::Vec3b>(y);
        const cv::Vec3f *g = look.gain.ptr<cv::Vec3f>(y);
        for (int x = inner.x; x < inner.x + inner.width; ++x) {
            const cv::Vec3f c(row[x][0], row[x][1], row[x][2]);
            const float luma = 0.114f * c[0] + 0.587f * c[1] + 0.299f * c[2];
            const cv::Vec3f tint(1.03f, 1.0f, 0.97f);
            for (int k = 0; k < 3; ++k) {
                const float v = (luma + 0.9f * (c[k] - luma)) / 255.f;
                row[x][k] = cv::saturate_cast<uint8_t>(white * tint[k] * (black + (1 - black) * v) * g[x][k]);
            }
        }
    }
    // The second camera's own noise.
    add_sensor_noise(frame, s.noise_sigma, rng);
}

}  // namespace cardrender
