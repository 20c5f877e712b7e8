// person.cpp — the person at the webcam, sitting behind the card: head,
// hair, neck and shoulders in clothes, optionally a name badge of the card's
// own aspect on a lanyard. What a counter's or a home webcam sees behind
// every card, and what a card detector must not mistake for the card: skin
// and a white shirt as light as the card's edge, a collar's and a lapel's
// straight lines, a badge that is a small card.
//
// Everything but the size, the place and the badge comes from the seed:
// skin tone, hair, the kind and colour of the clothes, a tie, stripes. The
// person is drawn once per renderer and frame size (a layer with its
// coverage), slightly out of focus, and laid over the background; it moves
// with the camera's shake, not on its own.
#include "render_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <vector>

namespace cardrender {

namespace {

// Tones from light to deep (BGR), hair colours, clothes.
const cv::Vec3f kSkin[] = {{175, 200, 238}, {140, 175, 225}, {110, 150, 205}, {85, 125, 180},
                           {65, 95, 145},   {45, 65, 105}};
const cv::Vec3f kHair[] = {{25, 25, 30}, {30, 45, 70}, {60, 95, 140}, {120, 170, 210}, {150, 150, 155}};
const cv::Vec3f kJacket[] = {{70, 40, 30}, {55, 55, 58}, {30, 30, 32}, {125, 125, 128}, {120, 150, 170},
                             {45, 60, 85}};
const cv::Vec3f kShirt[] = {{245, 245, 245}, {240, 225, 205}, {235, 240, 245}, {215, 225, 230}};
const cv::Vec3f kBright[] = {{50, 50, 180},  {160, 90, 40},  {60, 140, 60},  {40, 170, 220},
                             {200, 200, 200}, {235, 235, 235}, {140, 60, 130}, {30, 30, 30}};

template <size_t N> cv::Vec3f pick(const cv::Vec3f (&palette)[N], cv::RNG &rng) { return palette[rng.uniform(0, int(N))]; }

cv::Scalar scalar(const cv::Vec3f &c) { return cv::Scalar(c[0], c[1], c[2]); }

// Where the person is in the layer's pixels: u is the head's width.
struct Figure {
    double u = 0;
    cv::Point2d head;        // centre of the face
    double shoulders_y = 0;  // top of the shoulders
    int bottom = 0;          // the layer's last row
};

// A point in OpenCV's fixed point with 4 fractional bits (shift 4 below).
cv::Point fixed_point(cv::Point2d p) { return {int(std::lround(p.x * 16)), int(std::lround(p.y * 16))}; }

// A polygon in that fixed point, as cv::fillPoly takes it.
std::vector<std::vector<cv::Point>> fixed_polygon(const std::vector<cv::Point2d> &poly) {
    std::vector<std::vector<cv::Point>> polys(1);
    for (const auto &q : poly) polys[0].push_back(fixed_point(q));
    return polys;
}

// A filled polygon on the layer and its coverage.
void fill(cv::Mat &layer, cv::Mat &cover, const std::vector<cv::Point2d> &poly, const cv::Vec3f &colour) {
    const auto polys = fixed_polygon(poly);
    cv::fillPoly(layer, polys, scalar(colour), cv::LINE_AA, 4);
    cv::fillPoly(cover, polys, cv::Scalar(255), cv::LINE_AA, 4);
}

// A filled ellipse (or the part of it from start to end, degrees).
void ellipse(cv::Mat &layer, cv::Mat &cover, cv::Point2d c, cv::Size2d axes, const cv::Vec3f &colour,
             double start = 0, double end = 360) {
    const cv::Point centre = fixed_point(c);
    const cv::Size size(int(std::lround(axes.width * 16)), int(std::lround(axes.height * 16)));
    cv::ellipse(layer, centre, size, 0, start, end, scalar(colour), cv::FILLED, cv::LINE_AA, 4);
    cv::ellipse(cover, centre, size, 0, start, end, cv::Scalar(255), cv::FILLED, cv::LINE_AA, 4);
}

// A line drawn over what the layer already covers (it adds no coverage of
// its own, so it must not leave it: a fold, a strap, a brow).
void line(cv::Mat &layer, cv::Point2d a, cv::Point2d b, const cv::Vec3f &colour, double width) {
    cv::line(layer, fixed_point(a), fixed_point(b), scalar(colour), std::max(1, int(std::lround(width))), cv::LINE_AA, 4);
}

// Stripes across a sweater from row `from` down: long straight edges
// behind the card, kept within the torso's outline (a line beyond it would
// be colour without coverage).
void add_stripes(cv::Mat &layer, const std::vector<cv::Point2d> &torso, double from, double u, cv::RNG &rng) {
    const cv::Vec3f stripe = pick(kBright, rng);
    const double period = u * rng.uniform(0.18, 0.35);
    cv::Mat striped = layer.clone(), inside(layer.size(), CV_8U, cv::Scalar(0));
    for (double y = from; y < layer.rows; y += period) line(striped, {0, y}, {double(layer.cols), y}, stripe, period * 0.4);
    cv::fillPoly(inside, fixed_polygon(torso), cv::Scalar(255), cv::LINE_8, 4);
    striped.copyTo(layer, inside);
}

// Shoulders and chest down past the frame, in clothes; the neckline's V (a
// jacket or an open shirt) or a round neck (a sweater).
void draw_clothes(cv::Mat &layer, cv::Mat &cover, const Figure &f, const cv::Vec3f &skin, cv::RNG &rng) {
    const double u = f.u, cx = f.head.x, top = f.shoulders_y;
    const double half = u * rng.uniform(1.35, 1.7);
    const std::vector<cv::Point2d> torso = {
        {cx - 0.3 * u, top - 0.1 * u}, {cx + 0.3 * u, top - 0.1 * u}, {cx + half * 0.85, top + 0.12 * u},
        {cx + half, top + 0.5 * u},   {cx + half * 1.08, double(f.bottom)}, {cx - half * 1.08, double(f.bottom)},
        {cx - half, top + 0.5 * u},   {cx - half * 0.85, top + 0.12 * u}};
    const int kind = rng.uniform(0, 3);  // 0 jacket and shirt, 1 sweater, 2 open shirt
    const cv::Vec3f cloth = kind == 0 ? pick(kJacket, rng) : kind == 1 ? pick(kBright, rng) : pick(kShirt, rng);
    fill(layer, cover, torso, cloth);
    if (kind == 1 && rng.uniform(0, 3) == 0) add_stripes(layer, torso, top + 0.4 * u, u, rng);
    if (kind == 1) {
        ellipse(layer, cover, {cx, top - 0.05 * u}, {0.3 * u, 0.22 * u}, skin * 0.85f);
        return;
    }
    // The V of the neckline, the shirt (and tie) in it, the collar's points.
    const double depth = kind == 0 ? u * rng.uniform(1.3, 2.0) : u * rng.uniform(0.6, 0.9);
    const cv::Vec3f shirt = kind == 0 ? pick(kShirt, rng) : skin * 0.85f;
    fill(layer, cover, {{cx - 0.3 * u, top - 0.1 * u}, {cx + 0.3 * u, top - 0.1 * u}, {cx, top + depth}}, shirt);
    const cv::Vec3f collar = kind == 0 ? shirt : cloth;
    fill(layer, cover, {{cx - 0.3 * u, top - 0.15 * u}, {cx - 0.02 * u, top + 0.25 * u}, {cx - 0.2 * u, top + 0.3 * u}},
         collar * 0.95f);
    fill(layer, cover, {{cx + 0.3 * u, top - 0.15 * u}, {cx + 0.02 * u, top + 0.25 * u}, {cx + 0.2 * u, top + 0.3 * u}},
         collar * 0.95f);
    if (kind == 0) {
        // Lapels: a darker fold along each side of the V.
        const cv::Vec3f fold = cloth * 0.7f;
        line(layer, {cx - 0.32 * u, top}, {cx - 0.04 * u, top + depth}, fold, 0.05 * u);
        line(layer, {cx + 0.32 * u, top}, {cx + 0.04 * u, top + depth}, fold, 0.05 * u);
        if (rng.uniform(0, 3) > 0) {
            const cv::Vec3f tie = pick(kBright, rng);
            fill(layer, cover, {{cx - 0.07 * u, top + 0.2 * u}, {cx + 0.07 * u, top + 0.2 * u},
                                {cx + 0.11 * u, top + depth * 0.9}, {cx, top + depth}, {cx - 0.11 * u, top + depth * 0.9}},
                 tie);
        }
    }
}

// A name badge of the card's aspect on a lanyard, hanging on the chest: a
// white card with a coloured band, a photograph's box and lines of text.
void draw_badge(cv::Mat &layer, cv::Mat &cover, const Figure &f, cv::RNG &rng) {
    const double u = f.u, w = u * rng.uniform(0.55, 0.8), h = w * kCardHeightMm / kCardWidthMm;
    const cv::Point2d c(f.head.x + u * rng.uniform(-0.5, 0.5), f.shoulders_y + u * rng.uniform(0.6, 1.0));
    const double roll = rng.uniform(-0.12, 0.12), cr = std::cos(roll), sr = std::sin(roll);
    const auto at = [&](double x, double y) { return cv::Point2d(c.x + x * cr - y * sr, c.y + x * sr + y * cr); };
    const auto box = [&](double x0, double y0, double x1, double y1) {
        return std::vector<cv::Point2d>{at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)};
    };
    const cv::Vec3f strap = pick(kBright, rng);
    line(layer, {f.head.x - 0.3 * u, f.shoulders_y - 0.05 * u}, at(0, -h / 2), strap, 0.06 * u);
    line(layer, {f.head.x + 0.3 * u, f.shoulders_y - 0.05 * u}, at(0, -h / 2), strap, 0.06 * u);
    fill(layer, cover, box(-w / 2, -h / 2, w / 2, h / 2), {238, 240, 242});
    fill(layer, cover, box(-w / 2, -h / 2, w / 2, -h / 2 + h * 0.2), pick(kBright, rng));
    fill(layer, cover, box(-w / 2 + w * 0.06, -h / 2 + h * 0.3, -w / 2 + w * 0.34, h / 2 - h * 0.1), pick(kSkin, rng));
    for (int i = 0; i < 3; ++i) {
        const double y = -h / 2 + h * (0.38 + 0.16 * i);
        fill(layer, cover, box(-w / 2 + w * 0.42, y, w / 2 - w * (0.08 + 0.12 * i), y + h * 0.06), {90, 90, 90});
    }
}

// Who sits there: skin tone, hair colour and cut.
struct Look {
    cv::Vec3f skin, hair;
    bool long_hair = false, bald = false;
};

Look pick_look(cv::RNG &rng) {
    Look look;
    look.skin = pick(kSkin, rng);
    look.hair = pick(kHair, rng);
    look.long_hair = rng.uniform(0, 3) == 0;
    look.bald = !look.long_hair && rng.uniform(0, 8) == 0;
    return look;
}

// Long hair falls behind the shoulders: drawn before the clothes, it shows
// only beside the neck and above the shoulders, its ends hidden.
void draw_long_hair(cv::Mat &layer, cv::Mat &cover, const Figure &f, const Look &look) {
    if (!look.long_hair) return;
    const double u = f.u;
    const cv::Point2d h = f.head;
    fill(layer, cover, {{h.x - 0.62 * u, h.y - 0.3 * u}, {h.x + 0.62 * u, h.y - 0.3 * u},
                        {h.x + 0.75 * u, f.shoulders_y + 0.6 * u}, {h.x - 0.75 * u, f.shoulders_y + 0.6 * u}},
         look.hair);
}

// The head: neck, ears, face, the hair's cap, eyes, brows and mouth.
void draw_head(cv::Mat &layer, cv::Mat &cover, const Figure &f, const Look &look) {
    const double u = f.u;
    const cv::Point2d h = f.head;
    const cv::Vec3f skin = look.skin;
    fill(layer, cover, {{h.x - 0.24 * u, h.y + 0.3 * u}, {h.x + 0.24 * u, h.y + 0.3 * u},
                        {h.x + 0.27 * u, f.shoulders_y + 0.05 * u}, {h.x - 0.27 * u, f.shoulders_y + 0.05 * u}},
         skin * 0.8f);
    ellipse(layer, cover, {h.x - 0.5 * u, h.y}, {0.08 * u, 0.14 * u}, skin * 0.9f);
    ellipse(layer, cover, {h.x + 0.5 * u, h.y}, {0.08 * u, 0.14 * u}, skin * 0.9f);
    ellipse(layer, cover, h, {0.5 * u, 0.65 * u}, skin);
    if (!look.bald) ellipse(layer, cover, {h.x, h.y - 0.2 * u}, {0.54 * u, 0.55 * u}, look.hair, 180, 360);
    const cv::Vec3f dark(35, 35, 40);
    for (int side : {-1, 1}) {
        ellipse(layer, cover, {h.x + side * 0.2 * u, h.y + 0.02 * u}, {0.06 * u, 0.035 * u}, dark);
        line(layer, {h.x + side * 0.1 * u, h.y - 0.1 * u}, {h.x + side * 0.3 * u, h.y - 0.11 * u},
             look.bald ? dark : look.hair, 0.03 * u);
    }
    line(layer, {h.x - 0.15 * u, h.y + 0.38 * u}, {h.x + 0.15 * u, h.y + 0.38 * u}, skin * 0.6f, 0.03 * u);
}

// Light from above and one side: a smooth gain over the person.
void shade(cv::Mat &layer, const Figure &f, cv::RNG &rng) {
    const double side = rng.uniform(-1.0, 1.0);
    for (int y = 0; y < layer.rows; ++y) {
        cv::Vec3b *row = layer.ptr<cv::Vec3b>(y);
        const double down = (y - f.head.y) / (4 * f.u);
        for (int x = 0; x < layer.cols; ++x) {
            const double across = (x - f.head.x) / (3 * f.u);
            const double gain = std::clamp(1.0 - 0.12 * down + 0.12 * side * across, 0.7, 1.15);
            for (int c = 0; c < 3; ++c) row[x][c] = cv::saturate_cast<uint8_t>(row[x][c] * gain);
        }
    }
}

}  // namespace

PersonLayer draw_person(cv::Size size, int margin, const cr_scene &s, uint64_t seed) {
    cv::RNG rng(seed * 0xD1B54A32D192ED03ull + 7);
    PersonLayer p;
    p.bgr = cv::Mat(size, CV_8UC3, cv::Scalar::all(0));
    p.cover = cv::Mat(size, CV_8U, cv::Scalar(0));
    const double w = size.width - 2.0 * margin, h = size.height - 2.0 * margin;
    Figure f;
    f.u = s.person_size * w;
    f.shoulders_y = margin + h * rng.uniform(0.55, 0.7);
    f.head = cv::Point2d(margin + s.person_x * w, f.shoulders_y - 1.3 * f.u);
    f.bottom = size.height - 1;
    const Look look = pick_look(rng);
    draw_long_hair(p.bgr, p.cover, f, look);
    draw_clothes(p.bgr, p.cover, f, look.skin, rng);
    draw_head(p.bgr, p.cover, f, look);
    shade(p.bgr, f, rng);
    // The badge draws from a generator of its own, so that asking for it
    // changes nothing else.
    cv::RNG badge_rng(seed * 0x9E3779B97F4A7C15ull + 11);
    if (s.person_badge) draw_badge(p.bgr, p.cover, f, badge_rng);
    // Behind the card, a little out of focus.
    const double sigma = std::max(0.5, 0.0015 * w);
    cv::GaussianBlur(p.bgr, p.bgr, cv::Size(0, 0), sigma);
    cv::GaussianBlur(p.cover, p.cover, cv::Size(0, 0), sigma);
    return p;
}

void lay_over(cv::Mat &frame, const PersonLayer &person) {
    for (int y = 0; y < frame.rows; ++y) {
        const cv::Vec3b *src = person.bgr.ptr<cv::Vec3b>(y);
        const uint8_t *a = person.cover.ptr<uint8_t>(y);
        cv::Vec3b *o = frame.ptr<cv::Vec3b>(y);
        for (int x = 0; x < frame.cols; ++x) {
            if (!a[x]) continue;
            // The layer is drawn on black, so its colours are already
            // weighted by their coverage.
            const float k = a[x] / 255.f;
            for (int c = 0; c < 3; ++c) o[x][c] = cv::saturate_cast<uint8_t>(o[x][c] * (1 - k) + src[x][c]);
        }
    }
}

}  // namespace cardrender
