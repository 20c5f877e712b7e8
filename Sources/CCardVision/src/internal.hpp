// internal.hpp — types shared by the files of the card vision shim.
//
// Reading order: geometry (the card model and quad checks), contrast (a
// washed-out frame stretched before the card is looked for), detect (find a
// card-like quad in a downscaled frame), refine (fit the four edges at full
// resolution), pose (3D angles from the quad), smoothing, photometry (glare,
// sharpness), still (the best front-on picture), view change (whether an
// empty view changed), tracker (ties them together), api (the extern "C"
// boundary).
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "card_vision.h"

namespace cv {
class CascadeClassifier;
}

namespace cardvision {

// ISO/IEC 7810 ID-1.
constexpr double kCardWidthMm = 85.60;
constexpr double kCardHeightMm = 53.98;
constexpr double kCardAspect = kCardWidthMm / kCardHeightMm;  // 1.586
constexpr double kCornerRadiusMm = 3.18;
constexpr double kPi = 3.14159265358979323846;

// Corners of the card face: top-left, top-right, bottom-right, bottom-left.
using Quad = std::array<cv::Point2f, 4>;

// Bilinear read of an 8-bit plane between p, p[1], p[step] and p[step + 1]
// with weights fx, fy in 1/256, in 1/65536 grey levels: the one pixel read
// of the per-frame path (edge profiles and photometry rasters, thousands of
// reads a frame), in integers.
inline int bilinear_q16(const uint8_t *p, size_t step, int fx, int fy) {
    const int top = p[0] * 256 + (p[1] - p[0]) * fx;
    const int bottom = p[step] * 256 + (p[step + 1] - p[step]) * fx;
    return top * 256 + (bottom - top) * fy;
}

// ---- geometry.cpp -------------------------------------------------------
// Orders four points as TL, TR, BR, BL of a landscape card that is rolled by
// less than 90 degrees: the top edge is the long side nearer the image top.
Quad order_corners(const std::array<cv::Point2f, 4> &points);
// The same for four points that already walk round a quad, either way
// (falls back to order_corners when they do not make a convex one).
Quad order_cyclic(const std::array<cv::Point2f, 4> &points);
// Whether a quad so ordered is a card held upright (rolled by more than 50
// degrees: its top side rises more than tan 50° of its run), as a card lying
// on a desk is when the phone photographs it in portrait.
bool is_upright(const Quad &q);
bool is_convex(const Quad &q);
double quad_area(const Quad &q);
double min_side(const Quad &q);
double mean_width(const Quad &q);  // mean of top and bottom edge lengths
// The unit normal of side s (corner s to corner s + 1) that points away
// from the quad's centre.
cv::Point2f outward_normal(const Quad &q, int s);
Quad scale_quad(const Quad &q, float s, cv::Point2f offset = {0, 0});
// Intersection of two lines given as (vx, vy, x0, y0); nullopt if parallel.
std::optional<cv::Point2f> intersect(const cv::Vec4f &a, const cv::Vec4f &b);
// Distance of p from a line given as (vx, vy, x0, y0) with a unit direction.
inline float distance_to(const cv::Vec4f &line, cv::Point2f p) {
    return std::abs((p.x - line[2]) * line[1] - (p.y - line[3]) * line[0]);
}
// Total least squares line through the points with weights (all 1 when w
// is null): the centroid and the principal axis of the scatter, in closed
// form; what cv::fitLine(DIST_L2) computes, without its allocations.
bool fit_line_l2(const cv::Point2f *p, const float *w, int n, cv::Vec4f &line);
// Huber M-estimate of a line (c = 1.345 px, OpenCV's default for
// DIST_HUBER) by iteratively reweighted total least squares from `start`:
// what cv::fitLine(DIST_HUBER) computes, without its allocations and its
// restarts from random subsets. `weights` is scratch.
cv::Vec4f refit_line_huber(const cv::Point2f *p, int n, cv::Vec4f start, std::vector<float> &weights);

// The shape of the plane rectangle the quad is the image of, given the focal
// length and a principal point at the image centre: its aspect (width/height)
// and the cosine of its corner angle (0 for a true rectangle).
struct PlaneShape {
    double aspect = 0;
    double corner_cos = 1;
};
PlaneShape plane_shape(const Quad &q, cv::Size image, double focal_px);
// True when the quad can be an ID-1 card seen in perspective.
bool card_shaped(const Quad &q, cv::Size image, double focal_px);
// How far the quad is from the image of an ID-1 card under this focal
// length: the larger of the recovered aspect's relative error and the
// recovered corner angle's cosine. A card's own outline gives 0.00-0.05
// (the more it is tilted, the more a wrong focal length shows); a quad
// with one side on a line printed inside the card, 0.05-0.10.
double card_inconsistency(const Quad &q, cv::Size image, double focal_px);
constexpr double kInconsistentCard = 0.05;
// True when outer is larger than inner and every corner of inner lies
// inside outer or within tolerance pixels of it.
bool encloses(const Quad &outer, const Quad &inner, float tolerance);
// Intersection over union of two convex quads (0 when either is empty).
double overlap(const Quad &a, const Quad &b);
// Whether a corner of q lies outside an image of that size (a card cut by
// the frame).
bool beyond_frame(const Quad &q, cv::Size size);
// Whether a point lies inside an image of that size (pixel centres at integers).
bool inside_frame(cv::Point2f p, cv::Size size);
// A card cut by the frame along one side: its two corners beyond the frame
// placed where the image of an ID-1 card puts them, along the two sides
// that run out of the frame (only the part in view was seen; where the
// hidden corners were is a guess carried from frame to frame). Nothing when
// the quad is not cut that way or no placement beyond the frame fits.
std::optional<Quad> place_hidden_side(const Quad &q, cv::Size size, double focal_px);
// Area of the part of q inside an image of that size (pixel centres at integers).
double area_within(const Quad &q, cv::Size size);
// Homography mapping a (w x h) rectified card raster onto the quad.
cv::Matx33d raster_to_quad(const Quad &q, int w, int h);

// ---- frame.cpp ----------------------------------------------------------
// Checks an input image; HKCV_OK or the error to return.
hkcv_status validate_image(const hkcv_image *image);
// Luma plane as a cv::Mat: wraps the Y plane (no copy) for GRAY8/I420/NV12,
// converts BGR/BGRA into scratch.
cv::Mat luma_of(const hkcv_image &image, cv::Mat &scratch);
// The colour-difference planes at half size, when the frame has them:
// I420's U and V wrapped (no copy), NV12's interleaved pair split into
// nv12_split (reused frame to frame); empty for grey and BGR input. The
// search looks at colour edges too (a light green card in front of a cream
// cup differs in hue, hardly in luma), and the edge fit fits a side on
// them that has no edge in luma.
struct Chroma {
    cv::Mat u, v;
    // Where sample (0, 0) of u and v lies in luma pixels (hkcv_chroma_site):
    // sample (i, j) stands for luma (2i, 2j) + siting.
    cv::Point2f siting{0.f, 0.5f};
    bool empty() const { return u.empty(); }
};
Chroma chroma_of(const hkcv_image &image, std::array<cv::Mat, 2> &nv12_split);
// An 8-bit image's histogram, read for any number of percentiles.
struct LevelHistogram {
    LevelHistogram() = default;
    explicit LevelHistogram(const cv::Mat &m) : total(long(m.total())) {
        for (int r = 0; r < m.rows; ++r) {
            const uint8_t *row = m.ptr<uint8_t>(r);
            for (int c = 0; c < m.cols; ++c) ++counts[row[c]];
        }
    }
    void add(int v) {
        ++counts[v];
        ++total;
    }
    // The p-th percentile (0..1).
    int percentile(double p) const {
        const long target = long(p * double(total));
        long seen = 0;
        for (int v = 0; v < 256; ++v) {
            seen += counts[v];
            if (seen > target) return v;
        }
        return 255;
    }
    long counts[256] = {0};
    long total = 0;
};
// The levels in view: a frame's luma read at one pixel in 64 (a 720p
// frame's 14,400), once a frame, for its span (contrast_stretch_of) and its
// darkest level (the liveness evidence's black level).
LevelHistogram levels_in_view(const cv::Mat &luma);
// A low-contrast frame's levels stretched for finding the card's edges
// (contrast.cpp): level y becomes to + gain * (y - from), a colour
// difference 128 + gain * (c - 128). A gain of 1 leaves the frame as it is.
struct ContrastStretch {
    double gain = 1, from = 128, to = 128;
    bool stretches() const { return gain > 1; }
    double level_to(double y) const { return to + gain * (y - from); }
    // luma and chroma stretched into luma_out and chroma_out (whose colour
    // planes are written into chroma_scratch).
    void apply(const cv::Mat &luma, const Chroma &chroma, cv::Mat &luma_out, Chroma &chroma_out,
               std::array<cv::Mat, 2> &chroma_scratch) const;
};
// The stretch that brings a frame whose levels in view (levels_in_view)
// are view, limited or full range, to a normal scene's span; a gain of 1
// when it spans that already.
ContrastStretch contrast_stretch_of(const LevelHistogram &view, bool limited);
// The card face warped from the source planes, in the source's colour
// space: BGR for RGB-like and grey input, separate Y and half-size U, V
// planes for YUV input (converted only when someone asks for BGR, because
// the conversion costs more than the warp and most kept stills are
// replaced before they are encoded).
struct ColourRaster {
    cv::Mat bgr;
    cv::Mat y, u, v;
    hkcv_color_range range = HKCV_RANGE_FULL;    // of y, u, v
    hkcv_color_matrix matrix = HKCV_MATRIX_BT601;
    bool empty() const { return bgr.empty() && y.empty(); }
    cv::Size size() const { return bgr.empty() ? y.size() : bgr.size(); }
    cv::Mat to_bgr() const;
};
// Warps the card face from the source planes into a (w x h) raster; H maps
// raster pixels to full-resolution image pixels.
ColourRaster warp_colour(const hkcv_image &image, const cv::Matx33d &H, int w, int h);

// The pixels around a card, copied out of a frame the caller will reuse:
// the card's bounding box (plus a margin for the warp's interpolation) cut
// from every plane, in the frame's own format. Keeping a candidate still is
// then a copy of a few hundred kB; the warp to a still waits until someone
// asks for one (a session keeps dozens of candidates and encodes two).
struct CardCrop {
    hkcv_pixel_format format = HKCV_PIXEL_GRAY8;
    hkcv_color_range range = HKCV_RANGE_FULL;
    hkcv_color_matrix matrix = HKCV_MATRIX_BT601;
    cv::Rect box;       // where the crop was in the frame
    cv::Mat planes[3];  // owned copies, rows x bytes
    Quad quad{};        // the card, in crop coordinates
    bool empty() const { return planes[0].empty(); }
    void assign(const hkcv_image &image, const Quad &card);
    hkcv_image view() const;
};

// ---- detect.cpp ---------------------------------------------------------
// Which of a quad's eight side ends run on past their corner: of side k
// (corner k to corner k + 1), end 0 back past corner k, end 1 on past
// corner k + 1.
class RunOnEnds {
public:
    void set(int side, int end) { bits_ |= 1u << (2 * side + end); }
    bool past(int side, int end) const { return bits_ & (1u << (2 * side + end)); }
    int count() const { return __builtin_popcount(bits_); }

private:
    unsigned bits_ = 0;
};

struct Detection {
    Quad quad;          // full-resolution pixels, coarse (from the small image)
    double score = 0;   // edge support 0..1
    float pixel_error;  // expected corner error in full-resolution pixels
    bool incumbent = false;  // the quad passed in won
    bool joined = false;     // found only on lines joined across a gap (detect.cpp)
    double rank = 0;         // support times size against the image searched: comparable between
                             // searches of one region at different scales
    RunOnEnds run_on;        // ends of its sides in view that run on past their corner
    bool alone = false;      // an upright quad set aside, the answer because no landscape quad was found
};
// How far past a three-sided outline ("U") its fourth side is looked for.
// A U whose two legs both end early (the frame's border across one, a thumb
// over the other, a light desk where the card's edge fades) has its fourth
// side beyond their ends, as far as a card of its base could be long; but
// there a line of the background closes a U as readily as the card's side.
enum class FourthSide {
    at_ends,         // near the legs' ends
    beyond_ends,     // also a line found beyond them
    scanned_beyond,  // also a side with no line of its own, scanned for
                     // beyond them (the coarse look at a near card)
};

// How a search counts quads held upright (is_upright): a card lying on a
// desk photographed by a phone held in portrait is upright, and so are a
// door's panel, a torso, a badge on a lanyard and upright bricks.
enum class UprightQuads {
    refused,    // a card held landscape is followed, or a near card is looked for
    set_aside,  // ranked apart from the landscape ones, and the answer when no
                // quad held landscape is found or when the best of those is a
                // box printed on the upright one (upright_encloses, detect.cpp);
                // the caller knows it was set aside (is_upright)
    compete,    // an upright card is followed: on equal terms
};

// What a search makes of a printed page under the card. A card lying on a
// newspaper, a crossword or a magazine has sides that the page's letters
// touch every few pixels, broken into pieces too short to be lines, while a
// box of the page's print is outlined whole. Closed over (a grey-level
// closing, SearchParams::print_close_px), the print is gone and the card is
// one even surface with a whole outline.
enum class Print {
    as_is,          // the image as it is
    lines_through,  // lines also from the image with its print closed over;
                    // every test on the image's own gradients
    closed_over,    // the image with its print closed over, lines also from the
                    // image as it is: a row of text gives no edge to a side
                    // closed on it
};

// Share of the pixels of roi, at a search's size long_side, that lie on
// strokes of dark print (lifted by the closing of Print): a fifth of a
// newspaper's page, a few hundredths of a desk, a wall or a person.
double printed_share(const cv::Mat &luma, cv::Rect roi, int long_side);

// Fraction of places along one side of q where the luma just inside and
// just outside differ (a side between two surfaces; a mortar line or a
// line printed on the card has the same surface on both sides); -1 along
// the frame's border.
double luma_step(const cv::Mat &luma, const Quad &q, int side);

// What a search looks at and what it looks for (detect_card): where, at
// what size, for which camera and glare level, given at construction; the
// rest has defaults.
struct SearchRequest {
    SearchRequest(cv::Rect roi, int long_side, double focal_px, int glare_level)
        : roi(roi), long_side(long_side), focal_px(focal_px), glare_level(glare_level) {}

    cv::Rect roi;     // the region searched (clipped to the frame)
    int long_side;    // the region's long side at the search's size (px)
    double focal_px;  // the camera's focal length (px)
    // The luma at which the frame saturates (in its own range): a quad whose
    // inside is mostly that bright is a card washed out by a lamp, judged by
    // its outline rather than by the print the glare hides.
    int glare_level;
    const Quad *incumbent = nullptr;  // the card being tracked, which competes with what is found
    FourthSide fourth = FourthSide::at_ends;
    int wanted = 1;  // different quads returned at most
    UprightQuads upright = UprightQuads::refused;
    // When set, receives the best quad of a U closed where a card with its
    // base ends (close_by_shape, detect.cpp), ranked apart from the rest:
    // nullopt when none passes the tests.
    std::optional<Detection> *closed_by_shape = nullptr;
    Print print = Print::as_is;
};

// Searches the request's region of luma (downscaled so its long side is
// long_side) for the most card-like quads: up to `wanted` different quads,
// best first (none found: empty).
std::vector<Detection> detect_card(const cv::Mat &luma, const Chroma &chroma, const SearchRequest &request);

// ---- refine.cpp ---------------------------------------------------------
struct Refinement {
    Quad quad;
    std::array<float, 4> support{};  // per side: fraction of samples on the fitted line
    float confidence = 0;
    bool ok = false;
};
// Buffers kept between frames (no allocation per frame).
struct RefineScratch {
    std::vector<float> profile, grads, offsets, weights, work, nearness;
    std::vector<cv::Point2f> origins, points, inliers;
    std::vector<int> votes;
    std::vector<float> band[3];  // Y', Cb, Cr of a band beside a side (restore_faint_side)
};
// Fits the four card edges near guess at full resolution: gradient maxima
// along the normals within +-radius pixels at one place per 5 px of side
// (12 to 64), robust line fit, intersection. With chroma (the frame's
// half-size colour planes), a side that has no edge in luma is fitted on
// them (a green band before a grey wall).
// A trusted guess (moved by the texture flow) keeps the sides whose fit
// leans away from it.
Refinement refine_quad(const cv::Mat &luma, const Quad &guess, float radius, RefineScratch &scratch,
                       bool trusted_guess = false, const Chroma *chroma = nullptr);
// A guess with one side placed where the card's shape says (a light card's
// faint side, close_by_shape in detect.cpp) fitted as refine_quad does; a
// side with no edge keeps the guess's line, and the fit holds when the
// other three sides do (their mean support, not the four's).
Refinement refine_shaped_quad(const cv::Mat &luma, const Quad &guess, float radius, RefineScratch &scratch,
                              const Chroma *chroma = nullptr);

// For a fit no card could project to (card_inconsistency above
// kInconsistentCard), one side of it moved out to the card's own edge: the
// side that the card's shape says is short, to the outermost line beyond it
// with card (by its colour) in between. When no side is short, one side
// moved in, off a background line it ran on to: the nearest line inside it
// that makes a card, with what it gives up unlike the card. Nullopt when
// the outline is a card's, when no side or more than one side can be put
// right either way. luma is the
// whole frame, chroma its colour planes (at half its size, as chroma_of gives).
std::optional<Refinement> restore_faint_side(const cv::Mat &luma, const Chroma &chroma, const Refinement &fit,
                                             double focal_px, RefineScratch &scratch);

// Whether side s of q lies on a line that runs on past one of its
// corners (the edge of a page, a table or a mortar joint, not a card's
// edge, which ends at its corners). luma is the whole frame.
bool runs_on_past_a_corner(const cv::Mat &luma, const Quad &q, int s);

// A fit with sides on lines printed inside the card (a frame round the
// face, the title) widened to the card's own edges: each side moved out to
// the outermost line within a sixth of the card beyond it with card (by its
// colour) in between, where the outline stays a card's. Nullopt when no side
// moves; moved, when given, says which did. With back, only the sides with
// a positive entry move, and only back out by about that many pixels (where
// the print had put them).
std::optional<Refinement> widen_to_card_edge(const cv::Mat &luma, const Chroma &chroma, const Refinement &fit,
                                             double focal_px, RefineScratch &scratch,
                                             const std::array<float, 4> *back = nullptr,
                                             std::array<bool, 4> *moved = nullptr);

// ---- flow.cpp -----------------------------------------------------------
// Follows corners of the card's print from frame to frame (pyramidal
// Lucas-Kanade on a copy at most 640 px wide) and moves the tracked quad by the
// homography they agree on.
class TextureFlow {
public:
    // Where the quad the card had in the last committed frame is now, or
    // nullopt when too few points could be followed.
    std::optional<Quad> predict(const cv::Mat &luma, const Quad &last);
    // Whether the last prediction rests on many points that nearly all
    // agree, so that it may overrule an edge fit.
    bool firm() const { return firm_; }
    // Another quad moved as the last prediction moved the card (only after
    // predict returned one this frame).
    Quad carry(const Quad &q) const;
    // This frame's card: the followed points go on, new ones are picked
    // inside the card when too few are left.
    void commit(const cv::Mat &luma, const Quad &card);
    // This frame has no card, or the tracker starts over.
    void reset();
private:
    static int shrink_for(const cv::Mat &luma);
    // The crop a card needs: the current one while it is large enough.
    cv::Size wanted_crop(const cv::Mat &luma, const Quad &card) const;
    // This frame's small copy and pyramid, of a crop of `size` centred on
    // `around` (the card's last quad, or this frame's).
    void build(const cv::Mat &luma, const Quad &around, cv::Size size);
    // The previous pyramid's derivatives, only where Lucas-Kanade will read
    // them: around `points` (in the previous crop's pixels) at each level.
    void derive_around(const std::vector<cv::Point2f> &points);
    cv::Mat half_, small_, mask_;
    cv::Mat view_;  // this frame's crop at the flow's scale (small_, or the frame itself)
    std::vector<cv::Mat> prev_, next_;  // pyramids of the last committed and this frame
    std::vector<cv::Mat> derivatives_;  // prev_'s, one per level, each with a border of the window
    std::vector<cv::Mat> prev_derived_;  // prev_ and derivatives_ interleaved, as Lucas-Kanade takes them
    cv::Rect prev_crop_, next_crop_;  // each pyramid's crop of the frame, full-size pixels
    cv::Point2f origin(const cv::Rect &crop) const;  // where a crop starts, in small-image pixels
    cv::Matx33d moved_by_;  // the last prediction's homography, small-image pixels
    bool next_ready_ = false, firm_ = false;
    double scale_ = 1;
    // Points are kept in small-image pixels of the whole frame; the
    // pyramids cover crops of it.
    std::vector<cv::Point2f> points_, moved_, from_, to_, local_from_, local_to_;
    std::vector<uint8_t> status_, inliers_;
};

// ---- view_change.cpp ----------------------------------------------------
// Whether the view changed since a frame that was searched: coarse copies of
// the frame, compared cell by cell. While no card is in view, a still scene
// needs no search until something comes into it.
class ViewChange {
public:
    // This frame was searched (its coarse copy is kept).
    void searched(const cv::Mat &luma);
    // Whether this frame differs from the last one searched in a few cells
    // by more than noise, compression and a slowly drifting camera do.
    bool changed(const cv::Mat &luma);
    void reset() { searched_.release(); }

private:
    cv::Mat searched_, now_;  // coarse copies: the last frame searched, this one
};

// ---- pose.cpp -----------------------------------------------------------
struct Pose {
    double yaw = 0, pitch = 0, roll = 0;  // degrees, SPEC section 1 signs
    bool ok = false;
};
// Both poses a quad allows. A plane seen nearly front-on, or small in the
// frame, projects almost alike from two poses mirrored about the line of
// sight (the planar ambiguity); IPPE returns both, and each is refined to
// the least reprojection error, the better-fitting first.
struct PoseSolutions {
    std::array<Pose, 2> pose{};
    std::array<double, 2> rms_px{};  // RMS reprojection error of each
    Pose first_look;                 // IPPE's better pose before refinement (pose_from_quad's)
    int count = 0;
    // The better-fitting pose (not ok when the solver found none).
    const Pose &best() const { return pose[0]; }
};
double focal_from_hfov(double hfov_deg, int width);
PoseSolutions pose_solutions(const Quad &q, cv::Size image, double focal_px);
// IPPE's better pose alone, unrefined: a quick look (the search's test that
// a hypothesis is turned as people turn a card).
Pose pose_from_quad(const Quad &q, cv::Size image, double focal_px);
// Focal length implied by the quad being a rectangle (orthogonality and
// equal-scale constraints), or nullopt when the perspective is too weak.
std::optional<double> focal_from_quad(const Quad &q, cv::Size image);

// ---- smoothing.cpp ------------------------------------------------------
// One-Euro filter (Casiez et al. 2012): heavy smoothing at rest, little lag
// when the signal moves fast.
class OneEuroFilter {
public:
    OneEuroFilter(double min_cutoff_hz = 1.0, double beta = 0.05, double d_cutoff_hz = 1.0)
        : min_cutoff_(min_cutoff_hz), beta_(beta), d_cutoff_(d_cutoff_hz) {}
    double filter(double x, double dt_s);
    void reset() { initialised_ = false; }
private:
    double min_cutoff_, beta_, d_cutoff_;
    bool initialised_ = false;
    double x_ = 0, dx_ = 0;
};

// Robust running focal estimate (median of recent accepted estimates).
class FocalEstimator {
public:
    void add(double f);
    std::optional<double> value() const;
    void reset() { samples_.clear(); }
private:
    std::vector<double> samples_;
};

// ---- photometry.cpp -----------------------------------------------------
struct Photometry {
    float glare = 0, glare_blob = 0, sharpness = 0;
    float focus = 0;  // the variance of the Laplacian sharpness is read from (not saturating)
};
// Buffers kept between frames (no allocation per frame).
struct PhotometryScratch {
    std::vector<std::pair<int, int>> sharp_spans, glare_spans;  // mask run per raster row
    int sharp_area = 0, glare_area = 0;
    cv::Mat glare_mask, glare_raster, saturated, rows, labels, stats, centroids;
    void prepare();
};
// Rectifies the card's luma (small raster) and measures glare and focus.
Photometry measure_photometry(const cv::Mat &luma, const Quad &q, int glare_luma, PhotometryScratch &scratch);

// ---- still.cpp (the rest in still.hpp) ---------------------------------
cv::Rect2d portrait_area(hkcv_card_type type);
// The layout's portrait area in pixels of a rectified still.
cv::Rect portrait_region(const cv::Mat &still, hkcv_card_type type);
// The head around the largest face the cascade finds in the portrait area
// (grey), in the area's coordinates; none when it finds no face.
std::optional<cv::Rect> find_head(const cv::Mat &portrait_gray, cv::CascadeClassifier &cascade);

}  // namespace cardvision
