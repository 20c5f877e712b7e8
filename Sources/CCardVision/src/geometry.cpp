// geometry.cpp — the card model: corner order, convexity, and whether a quad
// can be an ID-1 card seen through a pinhole camera.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

// The thresholds of the card model and of the fits geometry.cpp does, in
// one place. (The rest of its numbers are the card's corners and sides,
// midpoints, pixel centres, and guards against dividing by zero.)
struct GeometryParams {
    // ---- A card's image (card_shaped) ----
    // The recovered aspect within min_aspect to max_aspect of an ID-1
    // card's, and the recovered corner's cosine under max_corner_cos (8.6
    // degrees off square). The configured focal length may be off by tens
    // of percent, which skews the recovered shape of a strongly tilted
    // card by a few percent (a 30 degree tilt read as 26 changes the aspect
    // by 5 %). Wider than that lets in the boxes printed on a card: the
    // body of a card below its header band (aspect 1.8) passes as a card
    // tilted by 30 degrees when 1.25 times the aspect is allowed.
    double min_aspect = 0.9, max_aspect = 1.1, max_corner_cos = 0.15;
    // Held landscape: rolled by at most 50 degrees, the top side's rise at
    // most this times its run (tan 50°). Beyond, the card is upright
    // (is_upright): its long sides run up the image.
    float max_roll_rise = 1.19f;

    // ---- Enclosing (encloses) ----
    // An outer quad encloses another only when it is at least this much
    // larger in area: nearly the same quad (the same card refitted) does
    // not enclose it.
    double enclose_min_area = 1.05;

    // ---- Huber line fit (refit_line_huber) ----
    // Residuals (px) beyond huber_k are weighted down as k / r: Huber's
    // constant for 95 % efficiency under Gaussian noise of unit scale, the
    // scale taken as a pixel.
    float huber_k = 1.345f;
    // At most huber_iterations reweighted fits; it stops once the line
    // moves less than huber_settled (the sine of its turn plus
    // huber_shift_weight of its shift in px): a few iterations settle it.
    int huber_iterations = 6;
    float huber_shift_weight = 0.01f, huber_settled = 1e-4f;

    // ---- Placing a hidden side (place_hidden_side) ----
    // Newton's method: at most hidden_iterations steps, stopping when both
    // residuals (relative aspect error, corner cosine) are under
    // hidden_settled; the Jacobian by forward differences of hidden_step of
    // each distance. A placement whose residuals stay above
    // hidden_max_residual is not a card's image and is refused.
    int hidden_iterations = 8;
    double hidden_settled = 1e-4, hidden_step = 1e-3, hidden_max_residual = 1e-3;
};
constexpr GeometryParams kGeometry{};

}  // namespace

static double cross(cv::Point2f o, cv::Point2f a, cv::Point2f b) {
    return double(a.x - o.x) * (b.y - o.y) - double(a.y - o.y) * (b.x - o.x);
}

// Four points in clockwise order (on screen), started at the top edge: the
// long pair of opposite sides is the card's top and bottom edges
// (foreshortening of up to ~50 degrees keeps them the longer pair).
static Quad top_edge_first(const std::array<cv::Point2f, 4> &cw) {
    auto len = [&](int i) { return cv::norm(cw[(i + 1) % 4] - cw[i]); };
    int first = (len(0) + len(2) >= len(1) + len(3)) ? 0 : 1;
    int second = first + 2;
    auto mid_y = [&](int i) { return 0.5f * (cw[i].y + cw[(i + 1) % 4].y); };
    int top = mid_y(first) <= mid_y(second) ? first : second;
    Quad q;
    for (int k = 0; k < 4; ++k) q[k] = cw[(top + k) % 4];
    return q;
}

Quad order_corners(const std::array<cv::Point2f, 4> &points) {
    cv::Point2f c(0, 0);
    for (auto &p : points) c += p * 0.25f;
    // Increasing atan2 with y pointing down walks the corners clockwise as
    // seen on screen: left, top, right, bottom.
    std::array<std::pair<float, cv::Point2f>, 4> by_angle;
    for (int i = 0; i < 4; ++i) by_angle[i] = {std::atan2(points[i].y - c.y, points[i].x - c.x), points[i]};
    std::sort(by_angle.begin(), by_angle.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::array<cv::Point2f, 4> cw;
    for (int i = 0; i < 4; ++i) cw[i] = by_angle[i].second;
    return top_edge_first(cw);
}

Quad order_cyclic(const std::array<cv::Point2f, 4> &points) {
    // The search orders tens of thousands of hypotheses, each already a
    // walk round its corners: a convex one only needs its direction.
    int sign = 0;
    for (int i = 0; i < 4; ++i) {
        const double z = cross(points[i], points[(i + 1) % 4], points[(i + 2) % 4]);
        const int si = z > 0 ? 1 : z < 0 ? -1 : 0;
        if (si == 0 || (sign != 0 && si != sign)) return order_corners(points);
        sign = si;
    }
    if (sign > 0) return top_edge_first(points);  // y down: positive turns are clockwise on screen
    return top_edge_first({points[3], points[2], points[1], points[0]});
}

bool is_upright(const Quad &q) {
    const cv::Point2f top = q[1] - q[0];
    return std::abs(top.y) > kGeometry.max_roll_rise * std::abs(top.x);
}

bool is_convex(const Quad &q) {
    int sign = 0;
    for (int i = 0; i < 4; ++i) {
        double z = cross(q[i], q[(i + 1) % 4], q[(i + 2) % 4]);
        if (std::abs(z) < 1e-9) return false;
        int s = z > 0 ? 1 : -1;
        if (sign == 0) sign = s;
        else if (s != sign) return false;
    }
    return true;
}

double quad_area(const Quad &q) {
    double a = 0;
    for (int i = 0; i < 4; ++i) {
        const auto &p = q[i], &n = q[(i + 1) % 4];
        a += double(p.x) * n.y - double(n.x) * p.y;
    }
    return std::abs(a) * 0.5;
}

double min_side(const Quad &q) {
    double m = 1e30;
    for (int i = 0; i < 4; ++i) m = std::min(m, cv::norm(q[(i + 1) % 4] - q[i]));
    return m;
}

double mean_width(const Quad &q) {
    return 0.5 * (cv::norm(q[1] - q[0]) + cv::norm(q[2] - q[3]));
}

cv::Point2f outward_normal(const Quad &q, int s) {
    const cv::Point2f a = q[s], b = q[(s + 1) % 4], d = b - a;
    const float len = std::max(1e-6f, float(cv::norm(d)));
    cv::Point2f n(d.y / len, -d.x / len);
    const cv::Point2f centre = (q[0] + q[1] + q[2] + q[3]) * 0.25f;
    if (((a + b) * 0.5f - centre).dot(n) < 0) n = -n;
    return n;
}

Quad scale_quad(const Quad &q, float s, cv::Point2f offset) {
    Quad r;
    for (int i = 0; i < 4; ++i) r[i] = q[i] * s + offset;
    return r;
}

bool fit_line_l2(const cv::Point2f *p, const float *w, int n, cv::Vec4f &line) {
    double sw = 0, sx = 0, sy = 0;
    for (int i = 0; i < n; ++i) {
        const double wi = w ? w[i] : 1.0;
        sw += wi;
        sx += wi * p[i].x;
        sy += wi * p[i].y;
    }
    if (sw <= 0) return false;
    const double mx = sx / sw, my = sy / sw;
    double cxx = 0, cxy = 0, cyy = 0;
    for (int i = 0; i < n; ++i) {
        const double wi = w ? w[i] : 1.0;
        const double dx = p[i].x - mx, dy = p[i].y - my;
        cxx += wi * dx * dx;
        cxy += wi * dx * dy;
        cyy += wi * dy * dy;
    }
    // Direction of the larger eigenvalue of [[cxx cxy] [cxy cyy]].
    const double angle = 0.5 * std::atan2(2 * cxy, cxx - cyy);
    line = cv::Vec4f(float(std::cos(angle)), float(std::sin(angle)), float(mx), float(my));
    return true;
}

cv::Vec4f refit_line_huber(const cv::Point2f *p, int n, cv::Vec4f line, std::vector<float> &weights) {
    constexpr float c = kGeometry.huber_k;
    weights.resize(n);
    for (int iteration = 0; iteration < kGeometry.huber_iterations; ++iteration) {
        for (int i = 0; i < n; ++i) {
            const float r = distance_to(line, p[i]);
            weights[i] = r <= c ? 1.f : c / r;
        }
        cv::Vec4f next;
        if (!fit_line_l2(p, weights.data(), n, next)) break;
        const float moved = std::abs(next[0] * line[1] - next[1] * line[0]) +
                            distance_to(line, {next[2], next[3]}) * kGeometry.huber_shift_weight;
        line = next;
        if (moved < kGeometry.huber_settled) break;
    }
    return line;
}

std::optional<cv::Point2f> intersect(const cv::Vec4f &a, const cv::Vec4f &b) {
    // a: p + t*u, b: q + s*v
    double ux = a[0], uy = a[1], vx = b[0], vy = b[1];
    double den = ux * vy - uy * vx;
    if (std::abs(den) < 1e-9) return std::nullopt;
    double dx = b[2] - a[2], dy = b[3] - a[3];
    double t = (dx * vy - dy * vx) / den;
    return cv::Point2f(float(a[2] + t * ux), float(a[3] + t * uy));
}

PlaneShape plane_shape(const Quad &q, cv::Size image, double f) {
    // H maps the unit square onto normalised image points; for a planar
    // rectangle of size a x b, H ~ [a*r1, b*r2, t], so |h1|/|h2| = a/b and
    // h1.h2 = 0. H in closed form (Heckbert's square-to-quad mapping): the
    // search and the tracker ask this of hundreds of quads a frame.
    const double cx = (image.width - 1) * 0.5, cy = (image.height - 1) * 0.5;
    double x[4], y[4];
    for (int i = 0; i < 4; ++i) {
        x[i] = (q[i].x - cx) / f;
        y[i] = (q[i].y - cy) / f;
    }
    const double sx = x[0] - x[1] + x[2] - x[3], sy = y[0] - y[1] + y[2] - y[3];
    const double dx1 = x[1] - x[2], dx2 = x[3] - x[2], dy1 = y[1] - y[2], dy2 = y[3] - y[2];
    const double den = dx1 * dy2 - dx2 * dy1;
    PlaneShape s;
    if (std::abs(den) < 1e-15) return s;
    const double g = (sx * dy2 - dx2 * sy) / den, h = (dx1 * sy - sx * dy1) / den;
    const cv::Vec3d h1(x[1] - x[0] + g * x[1], y[1] - y[0] + g * y[1], g);
    const cv::Vec3d h2(x[3] - x[0] + h * x[3], y[3] - y[0] + h * y[3], h);
    const double n1 = cv::norm(h1), n2 = cv::norm(h2);
    if (n1 < 1e-12 || n2 < 1e-12) return s;
    s.aspect = n1 / n2;
    s.corner_cos = h1.dot(h2) / (n1 * n2);
    return s;
}

bool card_shaped(const Quad &q, cv::Size image, double f) {
    if (!is_convex(q)) return false;
    PlaneShape s = plane_shape(q, image, f);
    return s.aspect > kCardAspect * kGeometry.min_aspect && s.aspect < kCardAspect * kGeometry.max_aspect &&
           std::abs(s.corner_cos) < kGeometry.max_corner_cos;
}

double card_inconsistency(const Quad &q, cv::Size image, double f) {
    const PlaneShape s = plane_shape(q, image, f);
    return std::max(std::abs(s.aspect / kCardAspect - 1.0), std::abs(s.corner_cos));
}

bool encloses(const Quad &outer, const Quad &inner, float tolerance) {
    std::vector<cv::Point2f> contour(outer.begin(), outer.end());
    if (quad_area(outer) < quad_area(inner) * kGeometry.enclose_min_area) return false;
    for (const auto &p : inner)
        if (cv::pointPolygonTest(contour, p, true) < -tolerance) return false;
    return true;
}

double overlap(const Quad &a, const Quad &b) {
    std::vector<cv::Point2f> pa(a.begin(), a.end()), pb(b.begin(), b.end()), common;
    const double both = cv::intersectConvexConvex(pa, pb, common, true);
    const double either = quad_area(a) + quad_area(b) - both;
    return either > 0 ? both / either : 0;
}

bool inside_frame(cv::Point2f p, cv::Size size) {
    return p.x >= 0 && p.y >= 0 && p.x <= size.width - 1 && p.y <= size.height - 1;
}

bool beyond_frame(const Quad &q, cv::Size size) {
    return !std::all_of(q.begin(), q.end(), [&](cv::Point2f p) { return inside_frame(p, size); });
}

namespace {

// The quad with the hidden side's corners at distances s and t from the
// visible corners they share a side with.
struct HiddenSide {
    int first;  // index of the first hidden corner; first + 1 is the other
    cv::Point2f from[2], dir[2];
    Quad at(const Quad &q, double s, double t) const {
        Quad out = q;
        out[size_t(first)] = from[0] + dir[0] * float(s);
        out[size_t((first + 1) % 4)] = from[1] + dir[1] * float(t);
        return out;
    }
};

// Residuals of a quad from a card's image: relative aspect error and the
// corner angle's cosine, both 0 for a card.
cv::Vec2d card_residual(const Quad &q, cv::Size size, double f) {
    const PlaneShape s = plane_shape(q, size, f);
    return {s.aspect / kCardAspect - 1.0, s.corner_cos};
}

}  // namespace

std::optional<Quad> place_hidden_side(const Quad &q, cv::Size size, double f) {
    // Exactly two corners beyond the frame, and neighbours: one side hidden.
    int first = -1, hidden = 0;
    for (int k = 0; k < 4; ++k)
        if (!inside_frame(q[k], size)) {
            ++hidden;
            if (inside_frame(q[(k + 3) % 4], size)) first = k;
        }
    if (hidden != 2 || first < 0 || inside_frame(q[(first + 1) % 4], size)) return std::nullopt;
    // Each hidden corner moves along the side joining it to its visible
    // neighbour; the two distances are set so that the quad is the image of
    // a card (aspect and right angles), by Newton's method from where they
    // are now. Two equations, two unknowns: the placement is determined.
    HiddenSide h;
    h.first = first;
    const int a = first, b = (first + 1) % 4, va = (first + 3) % 4, vb = (first + 2) % 4;
    double st[2];
    const int corner[2] = {a, b}, visible[2] = {va, vb};
    for (int i = 0; i < 2; ++i) {
        const cv::Point2f d = q[size_t(corner[i])] - q[size_t(visible[i])];
        st[i] = cv::norm(d);
        if (st[i] < 1) return std::nullopt;
        h.from[i] = q[size_t(visible[i])];
        h.dir[i] = d * float(1.0 / st[i]);
    }
    for (int iteration = 0; iteration < kGeometry.hidden_iterations; ++iteration) {
        const cv::Vec2d r = card_residual(h.at(q, st[0], st[1]), size, f);
        if (std::abs(r[0]) < kGeometry.hidden_settled && std::abs(r[1]) < kGeometry.hidden_settled) break;
        cv::Matx22d J;
        for (int j = 0; j < 2; ++j) {
            const double step = kGeometry.hidden_step * st[j];
            double moved[2] = {st[0], st[1]};
            moved[j] += step;
            const cv::Vec2d rj = card_residual(h.at(q, moved[0], moved[1]), size, f);
            J(0, j) = (rj[0] - r[0]) / step;
            J(1, j) = (rj[1] - r[1]) / step;
        }
        if (std::abs(cv::determinant(J)) < 1e-15) return std::nullopt;
        const cv::Vec2d delta = J.inv() * r;
        st[0] -= delta[0];
        st[1] -= delta[1];
        if (!(st[0] > 1 && st[1] > 1)) return std::nullopt;
    }
    const Quad placed = h.at(q, st[0], st[1]);
    const cv::Vec2d r = card_residual(placed, size, f);
    if (std::abs(r[0]) > kGeometry.hidden_max_residual || std::abs(r[1]) > kGeometry.hidden_max_residual)
        return std::nullopt;
    // The side was not seen: a placement that would put it in view says the
    // visible part is not a card's, and changes nothing.
    if (inside_frame(placed[size_t(a)], size) || inside_frame(placed[size_t(b)], size) || !is_convex(placed))
        return std::nullopt;
    return placed;
}

double area_within(const Quad &q, cv::Size size) {
    std::vector<cv::Point2f> pq(q.begin(), q.end()), common;
    const std::vector<cv::Point2f> frame{{-0.5f, -0.5f}, {size.width - 0.5f, -0.5f},
                                         {size.width - 0.5f, size.height - 0.5f}, {-0.5f, size.height - 0.5f}};
    return cv::intersectConvexConvex(pq, frame, common, true);
}

cv::Matx33d raster_to_quad(const Quad &q, int w, int h) {
    // Raster pixel centres at integers: the card spans [-0.5, w-0.5].
    cv::Point2f src[4] = {{-0.5f, -0.5f}, {w - 0.5f, -0.5f}, {w - 0.5f, h - 0.5f}, {-0.5f, h - 0.5f}};
    cv::Point2f dst[4] = {q[0], q[1], q[2], q[3]};
    cv::Mat H = cv::getPerspectiveTransform(src, dst);
    return cv::Matx33d(H);
}

}  // namespace cardvision
