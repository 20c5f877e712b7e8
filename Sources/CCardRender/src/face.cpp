// face.cpp — a procedural card face in the layout of the two HKID types.
//
// Nothing here is a real document: the fields are placeholders and the
// portrait is a cartoon. What matters for the vision tests is the layout
// (2018: large portrait on the left half; 2003: on the right half), a busy
// low-contrast guilloche background like real security printing, printed
// text, and a face that OpenCV's Haar frontal-face detector recognises.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace cardrender {

namespace {

struct Palette {
    cv::Scalar paper_top, paper_bottom, guilloche_a, guilloche_b, title;
};

Palette palette(cr_card_type type) {
    if (type == CR_CARD_2003)  // blue-green
        return {{232, 236, 214}, {214, 226, 200}, {190, 200, 150}, {210, 180, 160}, {120, 70, 20}};
    return {{238, 222, 236}, {226, 214, 206}, {200, 160, 200}, {170, 190, 150}, {110, 40, 90}};  // lilac
}

// Mm -> raster pixel (pixel centres at integers, the card spans [-0.5, W-0.5]).
struct Mm {
    double ppm;
    cv::Point operator()(double x, double y) const {  // in 1/16 px fixed point
        return {int(std::lround((x * ppm - 0.5) * 16)), int(std::lround((y * ppm - 0.5) * 16))};
    }
    int px(double mm) const { return std::max(1, int(std::lround(mm * ppm))); }
};
constexpr int kShift = 4;

void guilloche(cv::Mat &face, const Mm &mm, const Palette &p, cv::RNG &rng) {
    // Interleaved sinusoidal bands, the classic banknote look; thin and only
    // ~20 grey levels off the paper so they do not compete with the edges.
    const int lines = 26;
    for (int i = 0; i < lines; ++i) {
        const double y0 = kCardHeightMm * (i + 0.5) / lines;
        const double amp = 1.2 + 0.8 * rng.uniform(0.0, 1.0), period = 9 + 4 * rng.uniform(0.0, 1.0);
        const double phase = rng.uniform(0.0, 2 * kPi);
        for (int k = 0; k < 2; ++k) {
            std::vector<cv::Point> pts;
            for (double x = 0; x <= kCardWidthMm; x += 0.4)
                pts.push_back(mm(x, y0 + (k ? -1 : 1) * amp * std::sin(2 * kPi * x / period + phase)));
            cv::polylines(face, pts, false, k ? p.guilloche_a : p.guilloche_b, std::max(1, mm.px(0.12)),
                          cv::LINE_AA, kShift);
        }
    }
    // A rosette under the fields.
    for (int i = 0; i < 36; ++i) {
        std::vector<cv::Point> pts;
        const double a0 = i * kPi / 18;
        for (double a = 0; a <= 2 * kPi + 1e-6; a += 0.05) {
            double r = 9 + 3 * std::sin(6 * a + a0);
            pts.push_back(mm(60 + r * std::cos(a + a0), 30 + r * std::sin(a + a0)));
        }
        cv::polylines(face, pts, true, p.guilloche_a, std::max(1, mm.px(0.08)), cv::LINE_AA, kShift);
    }
}

void text(cv::Mat &face, const Mm &mm, const std::string &s, double x, double y, double height_mm,
          cv::Scalar colour, int weight = 1) {
    // Hershey simplex: font scale 1 is ~22 px cap height.
    const double scale = height_mm * mm.ppm / 22.0;
    cv::Point o(int(x * mm.ppm), int(y * mm.ppm));
    cv::putText(face, s, o, cv::FONT_HERSHEY_SIMPLEX, scale, colour, std::max(1, int(weight * scale * 1.6)),
                cv::LINE_AA);
}

// A cartoon head and shoulders filling box (pixels), photo-booth style, or
// the given photograph.
void portrait(cv::Mat &face, cv::Rect box, cv::RNG &rng, bool ghost, const cv::Mat *photo) {
    cv::Mat p(box.size(), CV_8UC3, cv::Scalar(225, 212, 200));  // pale studio backdrop
    const double w = box.width, h = box.height;
    const cv::Scalar skin(105 + rng.uniform(0, 30), 150 + rng.uniform(0, 25), 200 + rng.uniform(0, 30));
    const cv::Scalar skin_dark = skin * 0.78;
    const cv::Scalar hair(25 + rng.uniform(0, 20), 28 + rng.uniform(0, 20), 35 + rng.uniform(0, 25));
    const cv::Scalar shirt(90 + rng.uniform(0, 60), 60 + rng.uniform(0, 40), 40 + rng.uniform(0, 40));
    const cv::Point2d c(0.5 * w, 0.47 * h);  // face centre
    const double a = 0.27 * w, b = 0.34 * w;  // face half width / height
    auto P = [](double x, double y) { return cv::Point(int(std::lround(x)), int(std::lround(y))); };
    auto S = [](double x, double y) { return cv::Size(int(std::lround(x)), int(std::lround(y))); };

    // Shoulders and neck.
    cv::ellipse(p, P(c.x, h * 1.02), S(w * 0.52, h * 0.26), 0, 180, 360, shirt, cv::FILLED, cv::LINE_AA);
    cv::rectangle(p, P(c.x - a * 0.42, c.y + b * 0.6), P(c.x + a * 0.42, h * 0.84), skin_dark, cv::FILLED);
    // Hair behind the head, then ears, then the face.
    cv::ellipse(p, P(c.x, c.y - b * 0.12), S(a * 1.18, b * 1.08), 0, 0, 360, hair, cv::FILLED, cv::LINE_AA);
    for (int sgn : {-1, 1})
        cv::ellipse(p, P(c.x + sgn * a * 0.98, c.y + b * 0.05), S(a * 0.16, b * 0.2), 0, 0, 360, skin_dark,
                    cv::FILLED, cv::LINE_AA);
    cv::ellipse(p, P(c.x, c.y), S(a, b), 0, 0, 360, skin, cv::FILLED, cv::LINE_AA);
    // Fringe over the forehead.
    cv::ellipse(p, P(c.x, c.y - b * 0.78), S(a * 1.02, b * 0.42), 0, 180, 360, hair, cv::FILLED, cv::LINE_AA);
    cv::ellipse(p, P(c.x, c.y - b * 0.80), S(a * 1.0, b * 0.22), 0, 0, 180, hair, cv::FILLED, cv::LINE_AA);
    // Eye sockets: the darker band across the eyes that Haar features key on.
    const double ey = c.y - b * 0.12;
    for (int sgn : {-1, 1}) {
        const double ex = c.x + sgn * a * 0.40;
        cv::ellipse(p, P(ex, ey), S(a * 0.30, a * 0.17), 0, 0, 360, skin * 0.82, cv::FILLED, cv::LINE_AA);
        cv::ellipse(p, P(ex, ey), S(a * 0.20, a * 0.09), 0, 0, 360, cv::Scalar(235, 238, 240), cv::FILLED, cv::LINE_AA);
        cv::circle(p, P(ex, ey), int(a * 0.085), cv::Scalar(40, 35, 30), cv::FILLED, cv::LINE_AA);
        cv::ellipse(p, P(ex, ey - a * 0.24), S(a * 0.26, a * 0.07), 0, 190, 350, hair,
                    std::max(2, int(a * 0.08)), cv::LINE_AA);  // brow
    }
    // Nose: shaded bridge side and nostrils.
    cv::line(p, P(c.x + a * 0.10, ey + a * 0.05), P(c.x + a * 0.14, c.y + b * 0.28), skin_dark,
             std::max(1, int(a * 0.07)), cv::LINE_AA);
    for (int sgn : {-1, 1})
        cv::ellipse(p, P(c.x + sgn * a * 0.11, c.y + b * 0.30), S(a * 0.07, a * 0.04), 0, 0, 360,
                    skin * 0.6, cv::FILLED, cv::LINE_AA);
    // Mouth.
    cv::ellipse(p, P(c.x, c.y + b * 0.52), S(a * 0.30, a * 0.10), 0, 0, 360, cv::Scalar(70, 70, 150),
                cv::FILLED, cv::LINE_AA);
    cv::line(p, P(c.x - a * 0.3, c.y + b * 0.52), P(c.x + a * 0.3, c.y + b * 0.52), cv::Scalar(40, 40, 90),
             std::max(1, int(a * 0.03)), cv::LINE_AA);
    // A photo is never perfectly crisp.
    cv::GaussianBlur(p, p, cv::Size(0, 0), std::max(0.6, w * 0.006));
    if (photo) p = cover(*photo, box.size());  // the random draws above still happen: the rest stays the same
    if (ghost) {
        // The small second portrait is printed faintly.
        cv::Mat gray;
        cv::cvtColor(p, gray, cv::COLOR_BGR2GRAY);
        cv::cvtColor(gray, p, cv::COLOR_GRAY2BGR);
        cv::addWeighted(p, 0.45, face(box), 0.55, 0, p);
    }
    p.copyTo(face(box));
    cv::rectangle(face, box, cv::Scalar(120, 110, 110), 1, cv::LINE_AA);
}

// Bold printed boxes that a detector must not take for the card: a dark
// frame just outside the large portrait (its box passes a quadrilateral test
// once perspective is allowed) and a border line 2.5 mm inside the card's
// edge, whose aspect (1.64) is nearly the card's (1.586).
void inner_frames(cv::Mat &face, const Mm &mm, cv::Rect portrait_box) {
    const cv::Scalar dark(55, 40, 40);
    const int k = 16;  // 1/16 px fixed point, like Mm
    const double gap = 0.8 * mm.ppm, line = std::max(1.0, 0.5 * mm.ppm);
    cv::rectangle(face,
                  cv::Point(int(std::lround((portrait_box.x - gap) * k)), int(std::lround((portrait_box.y - gap) * k))),
                  cv::Point(int(std::lround((portrait_box.br().x - 1 + gap) * k)),
                            int(std::lround((portrait_box.br().y - 1 + gap) * k))),
                  dark, int(std::lround(line)), cv::LINE_AA, kShift);
    cv::rectangle(face, mm(2.5, 2.5), mm(kCardWidthMm - 2.5, kCardHeightMm - 2.5), dark,
                  std::max(1, int(std::lround(0.45 * mm.ppm))), cv::LINE_AA, kShift);
}

}  // namespace

cv::Mat draw_card_face(cr_card_type type, double ppm, uint64_t seed, const FaceOptions &options) {
    const cv::Size size(int(std::lround(kCardWidthMm * ppm)), int(std::lround(kCardHeightMm * ppm)));
    const Palette pal = palette(type);
    const Mm mm{ppm};
    cv::RNG rng(seed * 2654435761u + 17 + int(type));
    cv::Mat face(size, CV_8UC3);
    for (int y = 0; y < size.height; ++y) {
        double t = double(y) / size.height;
        face.row(y).setTo(pal.paper_top * (1 - t) + pal.paper_bottom * t);
    }
    guilloche(face, mm, pal, rng);
    // A photographic card: the picture replaces paper and guilloche (drawn
    // anyway, so the random draws for the rest stay the same).
    if (options.paper) cover(*options.paper, size).copyTo(face);

    const bool portrait_left = type == CR_CARD_2018;
    const double photo_x = portrait_left ? 4.5 : 55.5;
    const double fields_x = portrait_left ? 33.0 : 5.0;
    const cv::Scalar ink(60, 50, 45);

    text(face, mm, "HONG KONG IDENTITY CARD", 5.0, 6.5, 2.6, pal.title, 2);
    text(face, mm, type == CR_CARD_2018 ? "SPECIMEN  (2018 LAYOUT)" : "SPECIMEN  (2003 LAYOUT)", 5.0, 10.5, 1.6,
         pal.title);
    const char *fields[][2] = {{"NAME", "CHAN, Tai Man"}, {"DATE OF BIRTH", "01-01-1990"},
                               {"SEX", "M"}, {"DATE OF ISSUE", "(01-20)"}};
    double y = 17.0;
    for (auto &f : fields) {
        text(face, mm, f[0], fields_x, y, 1.3, ink);
        text(face, mm, f[1], fields_x, y + 3.2, 2.0, ink, 2);
        y += 7.6;
    }
    text(face, mm, "X000000(0)", fields_x, 50.5, 2.6, ink, 2);

    auto rect_mm = [&](double x, double yy, double w, double h) {
        return cv::Rect(int(x * ppm), int(yy * ppm), int(w * ppm), int(h * ppm));
    };
    const cv::Rect photo_box = rect_mm(photo_x, 13.0, 26.0, 34.0);
    portrait(face, photo_box, rng, false, options.portrait);
    const double ghost_x = portrait_left ? 70.0 : 33.0;
    portrait(face, rect_mm(ghost_x, 34.0, 11.0, 14.5), rng, true, options.portrait);
    if (options.inner_frames) inner_frames(face, mm, photo_box);
    return face;
}

cv::Mat card_alpha(cv::Size size, double ppm) {
    // Rounded rectangle spanning exactly [-0.5, W-0.5] x [-0.5, H-0.5],
    // in 1/16-pixel fixed point so the edge sits where the model says.
    cv::Mat alpha(size, CV_8UC1, cv::Scalar(0));
    const double r = kCornerRadiusMm * ppm;
    const double x0 = -0.5, y0 = -0.5, x1 = size.width - 0.5, y1 = size.height - 0.5;
    std::vector<cv::Point> poly;
    auto arc = [&](double cx, double cy, double a0) {
        for (int i = 0; i <= 12; ++i) {
            double a = (a0 + 90.0 * i / 12) * kPi / 180;
            poly.emplace_back(int(std::lround((cx + r * std::cos(a)) * 16)), int(std::lround((cy + r * std::sin(a)) * 16)));
        }
    };
    arc(x0 + r, y0 + r, 180);
    arc(x1 - r, y0 + r, 270);
    arc(x1 - r, y1 - r, 0);
    arc(x0 + r, y1 - r, 90);
    cv::fillPoly(alpha, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255), cv::LINE_AA, kShift);
    return alpha;
}

}  // namespace cardrender
