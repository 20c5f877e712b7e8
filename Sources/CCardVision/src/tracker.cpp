// tracker.cpp — one frame at a time: where is the card, how is it turned,
// how good is the picture.
//
// While a card is tracked, its edges are refitted at full resolution around
// a constant-velocity prediction (cheap: a few thousand pixel reads). When
// that fails, the neighbourhood of the prediction is searched, then the whole
// frame. A lost card is reported on the very frame its edges disappear.
#include "tracker.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <utility>

namespace cardvision {

namespace {

// Every threshold, tolerance and cadence of following a card from frame to
// frame, in one place: what Tracker's state is counted against as well.
// Sizes in px are pixels of the frame; a "width" is the card's mean width
// in the frame (mean_width); counts of frames are frames processed.
struct TrackParams {
    // ---- Searching (Tracker::find, Tracker::locate, Tracker::search_when_due) ----
    // How many of the search's best quads Tracker::confirm_best may try: the best
    // and, when it runs off the frame and does not hold, two more.
    int quads_tried = 3;
    // Two quads of a search that share this much of their area
    // (intersection over union) are one object found twice: when the first
    // does not hold, neither does the second.
    // (prefer_a_portrait promotes only another object than the best: one
    // that shares this much with it has the best's own portrait.)
    double same_object = 0.6;
    // A card found through the print (Tracker::card_through_print) is
    // another object than the quad found when they share at most
    // through_print_apart of their area (intersection over union), or when
    // it lies inside that quad and shares at most through_print_inside of
    // it: the quad found reached round the card over the page. A box of a
    // card's own print that shows its portrait lies inside the card too, but
    // covers most of it (two thirds, on the one such card measured).
    double through_print_apart = 0.05, through_print_inside = 0.5;
    // ... and is looked for only where at least this share of the view is
    // print (printed_share): the text of a page covers a tenth to a fifth
    // of it, a desk, a wall, clothes or a face a few hundredths.
    double through_print_min_share = 0.05;
    // A card shown inside a larger outline (Tracker::card_inside): a
    // phone's or a monitor's screen held near, whose edge against its dark
    // bezel is a long card-shaped outline that outranks the card shown on
    // it by its size. When the search's best is at least inside_min_width
    // of the frame's width, its inside (its bounding box less inside_inset
    // of its width all round) is searched again, at the search's size and
    // so at a finer scale. A quad found there is put first when it is
    // inside_min_share to inside_max_share of the outline's width, lies at
    // least inside_margin of it within each of its sides, and is outlined
    // at least as clearly (support) as the outline. A box of a near card's
    // own print can have that size and place (the top of the portrait,
    // closed by a line across the face) but is outlined less clearly than
    // the card.
    double inside_min_width = 0.5, inside_inset = 0.08;
    double inside_min_share = 0.2, inside_max_share = 0.6, inside_margin = 0.05;
    // The coarser look searches at 1/coarse_den of the search's size: a
    // card held so near that it is out of focus has edges tens of pixels
    // wide, which read as edges only at half the size.
    int coarse_den = 2;
    // A search's quad is fitted at full size within its expected corner
    // error plus confirm_slack_px (px).
    float confirm_slack_px = 2.0f;
    // A card lost by the edge fit is searched for in its box grown by
    // 1/local_margin_den of its width and height on every side.
    int local_margin_den = 2;
    // The whole frame costs tens of times a tracked frame. With no card found
    // for misses_before_sparse_search frames, one frame in
    // sparse_search_every is searched if the view changed since the last
    // search (ViewChange), and one in still_scene_search_every if not: a
    // card that comes into view is found a few frames later, and an empty
    // scene costs a fraction of its decoding.
    int misses_before_sparse_search = 3, sparse_search_every = 10, still_scene_search_every = 30;
    // Glare over more than this share of the card washes its print out and
    // blooms over its edge, so the search cannot judge it: while the last
    // frame's glare is at or above it, the neighbourhood is not re-checked
    // (a quad of the background would win) and no faint side is restored
    // (a side would move onto the bloom's edge), nor is the focal length
    // estimated (the side in the bloom is a guess).
    float washed_out_glare = 0.05f;

    // ---- The edge fit (Tracker::polish, Tracker::plausible) ----
    // A second, narrow pass around the first fit within fine_radius_px
    // (px) settles the sub-pixel edge.
    float fine_radius_px = 3.0f;
    // A quad with a side shorter than this (px) is too small to measure.
    double min_side_px = 12;

    // ---- Following the card (Tracker::track) ----
    // Where the print moved the card, its edges are fitted within
    // print_radius_px + print_radius_share of its width (px), kept from
    // print_radius_min_px to print_radius_max_px: the print says where the
    // card went, and the edges only settle it, within a few pixels, where
    // a finger's edge cannot compete.
    double print_radius_px = 3.0, print_radius_share = 0.01, print_radius_min_px = 4.0, print_radius_max_px = 10.0;
    // With no print to follow, the edges are fitted around the constant-
    // velocity guess within motion_radius_px + motion_radius_of_motion of
    // the last frame's largest corner motion + motion_radius_share of the
    // width (px), at most motion_radius_max_px: as wide as the motion.
    double motion_radius_px = 6.0, motion_radius_of_motion = 0.5, motion_radius_share = 0.01,
           motion_radius_max_px = 60.0;
    // A quad only the print's motion stands for (a card whipped through
    // the frame, its edges smeared) is reported with this confidence.
    float print_only_confidence = 0.5f;
    // Two frames further apart than this (s) are not one motion: the pose
    // filters start afresh.
    double max_frame_gap_s = 1.0;

    // ---- Sides and the print (back_to_print, sides_off_print) ----
    // How far a side may lie from where the print carried it:
    // print_tolerance_px + print_tolerance_share of the width (px); the
    // print's homography adds up a few tenths of a pixel of error a frame.
    float print_tolerance_px = 2.0f, print_tolerance_share = 0.008f;
    // At most this many sides outside the print are fitted again there
    // (more: the print and the edges disagree about the whole card).
    int max_sides_off_print = 2;
    // How well a side refitted where the print put it must be supported to
    // be an edge, not the print's guess (refine_quad's own threshold for a
    // fitted side); how far the other sides may move meanwhile (px).
    float side_on_edge = 0.3f, side_kept_px = 1.5f;
    // A side the fit pulls in from the print's prediction by more than
    // pulled_in_px + pulled_in_share of the width (px) is held out
    // (hold_sides_pulled_in).
    float pulled_in_px = 2.0f, pulled_in_share = 0.005f;
    // The print carries the card alone (TextureFlow::carry) from where a
    // re-check confirmed it for at most carried_frames_max frames (three
    // seconds at 30 fps); then it starts again from the frame's fit if they
    // agree, since the print's homography adds up its error frame by frame.
    int carried_frames_max = 90;

    // ---- The re-check (Tracker::recheck, side_pulled_in) ----
    // A followed card's neighbourhood is re-checked every recheck_frames
    // frames (half a second at 30 fps), and at once when a card cut by the
    // frame is back in view.
    int recheck_frames = 15;
    // The neighbourhood searched: the card's box grown by
    // recheck_margin_num / recheck_margin_den of its width and height on
    // every side, searched at the whole frame's scale but on at least
    // recheck_min_long_side px (of the downscaled image's long side).
    int recheck_margin_num = 2, recheck_margin_den = 5, recheck_min_long_side = 160;
    // Each confirmation multiplies the frames between re-checks by
    // recheck_backoff, up to recheck_max_multiple times recheck_frames:
    // the search costs as much as twenty tracked frames.
    int recheck_backoff = 2, recheck_max_multiple = 8;
    // A side is a clear step between two surfaces where at least this share
    // of the places along it differ across it (luma_step).
    double clear_step = 0.8;
    // A quad is the tracked one with a side pulled in (pulls_a_side_in)
    // when two adjacent corners lie within same_corner_share of the width
    // (at least same_corner_px, px) of the tracked ones, and the moved side
    // is a step clearer by step_gain (share of places) than the side it
    // replaces.
    float same_corner_px = 2.0f, same_corner_share = 0.015f;
    double step_gain = 0.2;
    // A re-check's quad replaces the tracked one when it encloses it (the
    // tracked corners at most enclose_share of the width outside it); just
    // back in view, also when they overlap by more than
    // back_in_view_overlap (intersection over union): the same card with
    // the side guessed beyond the frame put right.
    float enclose_share = 0.02f;
    double back_in_view_overlap = 0.85;

    // ---- An outline no card projects to (Tracker::correct_sides) ----
    // After a look (restore_faint_side) that could not put such an outline
    // right, it is left alone for restore_wait frames: looking costs a few
    // fits, and an outline that cannot be put right (a card on a phone's
    // screen) stays so for a while.
    int restore_wait = 8;

    // ---- A quad that shrank onto the print (Tracker::shrank_onto_print) ----
    // Within shrink_window_ns of the last card, a quad narrower than
    // shrink_width of it and inside it (within shrink_margin of its width)
    // is a box printed on it: a card does not shrink that fast.
    int64_t shrink_window_ns = 500'000'000;
    double shrink_width = 0.7;
    float shrink_margin = 0.05f;

    // ---- Pose and focal length (Tracker::poses_of, Tracker::measure) ----
    // The focal length is estimated from quads tilted more than
    // focal_min_tilt_deg (degrees), where perspective says something, and
    // kept when within focal_min to focal_max of the configured one and
    // the quad is card-shaped with it (card_inconsistency under focal_fit):
    // a quad with a side wrong also implies a focal length, one that makes
    // it as rectangular as it can be but not a card's image.
    double focal_min_tilt_deg = 18, focal_min = 0.6, focal_max = 1.7, focal_fit = 0.02;
    // The pose filters' time step on a frame that starts a motion (s): one
    // frame at 30 fps.
    double first_step_s = 1.0 / 30;
    // The speed is measured over the poses of the last speed_window_ns
    // (angular_speed): a whip keeps up its speed that long (four or five
    // frames at 30 fps), a pose wrong for a frame or two does not.
    int64_t speed_window_ns = 150'000'000;
    // ... and over speed_min_poses poses at least: at 15 or 20 fps 150 ms
    // holds four, three steps, and a side that settles over two frames (a
    // card come into view, its guessed side corrected) makes the median
    // step fast. Five poses span 200-270 ms there, still within a whip; at
    // 25 fps and above the window holds five or more anyway. A card just
    // found, or found again, has no speed until it has five.
    size_t speed_min_poses = 5;
    // Of the two poses a quad allows, the speed follows the one nearer the
    // last frame's while the other's RMS reprojection error is within
    // ambiguous_pose_px (px) of the better one's (turning_pose): that close,
    // which of the two fits better is decided by noise.
    double ambiguous_pose_px = 0.5;
    // The median speed is of at most the newest speed_steps frame-to-frame
    // steps (angular_speed): the speed window holds four or five at 30 fps,
    // so this bounds only a camera above 100 fps.
    size_t speed_steps = 16;

    // ---- The still (Tracker::measure, keep_still_if_better) ----
    // A front-on view's score is sharpness - glare - still_angle_cost per
    // degree of yaw and pitch (a squarer view wins ties), and replaces the
    // still only when better by more than still_margin.
    double still_angle_cost = 0.005, still_margin = 0.01;
};
constexpr TrackParams kTrack{};

}  // namespace

static float ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Adds the time from its construction to its destruction to one stage's
// milliseconds: the breakdown of a frame that benchmarks read
// (hkcv_stage_ms). Two clock reads, a few tens of nanoseconds.
class StageTimer {
public:
    explicit StageTimer(float &stage) : stage_(stage), start_(std::chrono::steady_clock::now()) {}
    ~StageTimer() { stage_ += ms_since(start_); }
    StageTimer(const StageTimer &) = delete;
    StageTimer &operator=(const StageTimer &) = delete;

private:
    float &stage_;
    std::chrono::steady_clock::time_point start_;
};

// The frame's whole time and what no stage took, written with the stages
// into its measurement on every way out of Tracker::process (a frame
// without a card leaves early).
class FrameClock {
public:
    FrameClock(hkcv_stage_ms &stages, hkcv_stage_ms &out)
        : stages_(stages), out_(out), start_(std::chrono::steady_clock::now()) {
        stages_ = hkcv_stage_ms{};
    }
    ~FrameClock() {
        stages_.total = ms_since(start_);
        const float staged = stages_.flow + stages_.fit + stages_.search + stages_.recheck + stages_.photometry +
                             stages_.liveness;
        stages_.other = std::max(0.f, stages_.total - staged);
        out_ = stages_;
    }
    FrameClock(const FrameClock &) = delete;
    FrameClock &operator=(const FrameClock &) = delete;

private:
    hkcv_stage_ms &stages_, &out_;
    std::chrono::steady_clock::time_point start_;
};

// How far the edge fit moved each side of the guess inward (at the side's
// middle, pixels; negative: outward).
static std::array<float, 4> pulled_in(const Quad &guess, const Quad &fit) {
    std::array<float, 4> by{};
    for (int k = 0; k < 4; ++k) {
        const cv::Point2f from = (guess[k] + guess[(k + 1) % 4]) * 0.5f, to = (fit[k] + fit[(k + 1) % 4]) * 0.5f;
        by[k] = (from - to).dot(outward_normal(guess, k));
    }
    return by;
}

// Whether `candidate` (fitted at full size) is `tracked` with one side
// pulled in: two adjacent corners within same_corner_share of the card's
// width of the tracked ones, the other two inside the tracked quad, and the
// side they moved a clearer step between two surfaces (step_gain) than the
// side it replaces. A side a first search puts on a line beside the card
// (a mortar joint in line with the card's edge, read through a low
// bitrate's blocks) is carried along by the print's motion and drifts
// further out, and a re-check that ranks the card's own side above it may
// put it back. A box printed inside the card is no such quad: the portrait
// frame or an inset border moves all four corners. A band printed across
// the card (the 2003 card's header) keeps two, and a line printed along a
// side may outrank the card's edge under a thumb; but the card's own edge
// is as clear a step as the band's, and clearer than a line with card on
// both sides.
static bool pulls_a_side_in(const cv::Mat &luma, const Quad &candidate, const Quad &tracked,
                            const std::array<double, 4> &tracked_steps) {
    const float same = std::max(kTrack.same_corner_px, kTrack.same_corner_share * float(mean_width(tracked)));
    const std::vector<cv::Point2f> outline(tracked.begin(), tracked.end());
    std::array<bool, 4> kept{};
    for (int k = 0; k < 4; ++k) {
        kept[k] = cv::norm(candidate[k] - tracked[k]) <= same;
        // (Moved along a side, a corner stays on the tracked outline.)
        if (!kept[k] && cv::pointPolygonTest(outline, candidate[k], true) < -same) return false;
    }
    for (int k = 0; k < 4; ++k) {
        const int next = (k + 1) % 4;
        if (kept[k] || kept[next] || !kept[(k + 2) % 4] || !kept[(k + 3) % 4]) continue;
        return luma_step(luma, candidate, k) >= tracked_steps[k] + kTrack.step_gain;
    }
    return false;
}

// Whether a quad the re-check found may replace the tracked one. Only one
// that encloses it: when a thumb covers a side for a moment, the tracked
// card ranks lower than the boxes printed on it, and those must not take
// over. Nor one that runs off the frame round a card all in view: a box of
// a brick wall whose bottom is guessed beyond the frame can outrank a card
// half in a shadow, and the card is then lost. Just back in view, one that
// nearly coincides with it may too: the same card with the side that was
// guessed beyond the frame put right (the print's motion carries a wrong
// guess along, and the edge fit looks only a few pixels from it). At other
// times, just after a glare as well, such a replacement is as often a side
// moved onto a background line.
static bool replaces_on_recheck(const Quad &candidate, const Quad &tracked, bool back_in_view, cv::Size size) {
    if (back_in_view && overlap(candidate, tracked) > kTrack.back_in_view_overlap) return true;
    return encloses(candidate, tracked, kTrack.enclose_share * float(mean_width(tracked))) &&
           (!beyond_frame(candidate, size) || beyond_frame(tracked, size));
}

// How far a side may lie from where the print carried it (px).
static float print_tolerance(const Quad &q) {
    return kTrack.print_tolerance_px + kTrack.print_tolerance_share * float(mean_width(q));
}

// Which sides of q lie further than print_tolerance outside `carried`'s,
// and how many lie so far outside (out) and inside (in).
struct OffPrint {
    std::array<bool, 4> outside{};
    int out = 0, in = 0;
};
static OffPrint sides_off_print(const Quad &carried, const Quad &q) {
    const float tolerance = print_tolerance(carried);
    const auto by = pulled_in(carried, q);
    OffPrint off;
    for (int k = 0; k < 4; ++k) {
        off.outside[k] = by[k] < -tolerance;
        off.out += off.outside[k];
        off.in += by[k] > tolerance;
    }
    return off;
}

Tracker::Tracker(const hkcv_config &config)
    : config_(config),
      faces_(std::make_shared<FaceFinder>(config.face_cascade_path)),
      recheck_every_(kTrack.recheck_frames),
      liveness_(config) {
    config_.face_cascade_path = nullptr;  // do not keep the caller's pointer
}

void Tracker::lose() {
    // The card is gone: nothing to follow into the next frame either.
    flow_.reset();
    tracking_ = false;
    was_cut_ = false;
    restore_wait_ = 0;
    last_glare_ = 0;
    recheck_every_ = kTrack.recheck_frames;
    side_pulled_in_ = false;
    carried_.reset();
    has_prev_quad_ = false;
    widened_ = {};
    pose_history_.clear();
    yaw_f_.reset();
    pitch_f_.reset();
    roll_f_.reset();
    turn_yaw_f_.reset();
    turn_pitch_f_.reset();
    turn_roll_f_.reset();
}

void Tracker::reset() {
    lose();
    focal_.reset();
    clear_still();
    liveness_.reset();
    frame_size_ = cv::Size();
    misses_ = 0;
    since_search_ = 0;
    view_change_.reset();
    has_recent_ = false;
    cut_best_refused_ = false;
}

std::optional<Refinement> Tracker::polish(const cv::Mat &luma, const Quad &guess, float radius, double focal,
                                          Guess kind) {
    auto fit = [&](const Quad &q, float within, const Chroma *chroma) {
        return kind == Guess::closed_by_shape ? refine_shaped_quad(luma, q, within, refine_, chroma)
                                              : refine_quad(luma, q, within, refine_, kind == Guess::carried, chroma);
    };
    Refinement r = fit(guess, radius, nullptr);
    if (!r.ok) return std::nullopt;
    // A second, narrow pass around the first fit settles the sub-pixel edge.
    Refinement fine = fit(r.quad, kTrack.fine_radius_px, &chroma_);
    if (fine.ok) r = fine;
    if (!plausible(r.quad, luma, focal)) return std::nullopt;
    return r;
}

bool Tracker::plausible(const Quad &q, const cv::Mat &luma, double focal) {
    return card_shaped(q, cv::Size(luma.cols, luma.rows), focal) && min_side(q) >= kTrack.min_side_px;
}

// Near a card followed, quads held upright compete when it is upright
// itself and are refused when it is held landscape (an upright quad there
// is a box printed on it).
static UprightQuads upright_quads_near(const Quad &followed) {
    return is_upright(followed) ? UprightQuads::compete : UprightQuads::refused;
}

// A search of roi at the whole frame's search size, with this frame's glare
// level; the rest as SearchRequest's defaults.
SearchRequest Tracker::search_request(cv::Rect roi, double focal) const {
    return SearchRequest(roi, config_.detect_long_side, focal, search_glare_level_);
}

std::optional<Refinement> Tracker::search(const cv::Mat &luma, cv::Rect roi, double focal) {
    auto r = find(luma, roi, focal);
    // The search ranks whole outlines; a side on a line printed just inside
    // the card's edge is as well supported as the edge, or better.
    widened_ = {};
    std::array<bool, 4> moved{};
    if (r)
        if (auto wide = widen_to_card_edge(luma, chroma_, *r, focal, refine_, nullptr, &moved);
            wide && plausible(wide->quad, luma, focal)) {
            r = wide;
            widened_ = moved;
        }
    return r;
}

// A card carries its holder's portrait; a box printed on the page under it
// (a crossword, an advertisement's panel) can outrank it by its size and
// its sides, but shows no face where the card's layout puts the portrait.
// The best keeps its place when its portrait shows a face, or when it is
// too small in the camera's pixels for a face to be seen there (a far
// card): only a face looked for where one could be seen and not found
// counts against it. Quads found only on joined lines are not promoted.
void Tracker::prefer_a_portrait(const cv::Mat &luma, std::vector<Detection> &found) {
    if (found.empty() || found[0].joined) return;
    // Only another object can be promoted; the face search (a few ms) is
    // not run when there is none.
    auto another_object = [&](const Detection &d) {
        return !d.joined && overlap(d.quad, found[0].quad) < kTrack.same_object;
    };
    if (std::none_of(found.begin() + 1, found.end(), another_object)) return;
    const std::optional<bool> best = portrait_shows_face(*faces_, luma, found[0].quad, config_.card_type);
    if (!best || *best) return;
    for (size_t i = 1; i < found.size(); ++i) {
        if (!another_object(found[i])) continue;
        if (portrait_shows_face(*faces_, luma, found[i].quad, config_.card_type).value_or(false)) {
            std::rotate(found.begin(), found.begin() + long(i), found.begin() + long(i) + 1);
            return;
        }
    }
}

// A card shown inside a large outline (TrackParams::inside_min_width: the
// search's best, or a quad closed by shape): the card on a phone held so
// near that the screen's outline is the largest card-shaped quad in view,
// fitted at full size; nullopt when there is none (the outline keeps its
// place: it may be a near card after all).
// UprightQuads::refused: the card on the screen is held as the screen is.
std::optional<Refinement> Tracker::card_inside(const cv::Mat &luma, double focal, const Detection &outline) {
    if (outline.joined) return std::nullopt;
    const double width = mean_width(outline.quad);
    if (width < kTrack.inside_min_width * luma.cols) return std::nullopt;
    const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(outline.quad.begin(), outline.quad.end()));
    const int inset = int(kTrack.inside_inset * width);
    const cv::Rect inside =
        cv::Rect(box.x + inset, box.y + inset, box.width - 2 * inset, box.height - 2 * inset) &
        cv::Rect(0, 0, luma.cols, luma.rows);
    SearchRequest request = search_request(inside, focal);
    request.wanted = kTrack.quads_tried;
    const auto cards = detect_card(luma, chroma_, request);
    for (const Detection &d : cards) {
        const double share = mean_width(d.quad) / width;
        if (d.joined || d.score < outline.score) continue;
        if (share < kTrack.inside_min_share || share > kTrack.inside_max_share) continue;
        // Inside it, at least inside_margin of its width within each side.
        if (!encloses(outline.quad, d.quad, -float(kTrack.inside_margin * width))) continue;
        if (auto card = confirm(luma, d, focal)) return card;
    }
    return std::nullopt;
}

// A light card before a pale wall or a white shirt whose sides are lines
// only where something darker lies behind them: no quad of lines is the
// card, and a badge or a box of the print is found instead. The U of its
// lines closed where the card's shape says (close_by_shape, detect.cpp)
// competes when it outranks that quad, and is taken when it holds at full
// size. The fit may have moved the guessed side onto a background line
// beside the card's faint edge (a mortar joint), which runs on past the
// card's corner: such a fit is not taken, and neither is the guess.
bool Tracker::shaped_outranks(const FineLook &fine) {
    if (!fine.shaped) return false;
    const double best = fine.found.empty() ? 0.0 : fine.found[0].rank;
    return fine.shaped->rank > std::max(best, fine.upright ? fine.upright->rank : 0.0);
}

std::optional<Refinement> Tracker::card_closed_by_shape(const cv::Mat &luma, double focal, const Detection &shaped) {
    auto r = polish(luma, shaped.quad, shaped.pixel_error + kTrack.confirm_slack_px, focal, Guess::closed_by_shape);
    if (!r) return std::nullopt;
    for (int k = 0; k < 4; ++k)
        if (runs_on_past_a_corner(luma, r->quad, k)) return std::nullopt;
    return r;
}

// A card lying on a printed page (a newspaper, a crossword, a magazine)
// whose sides the page's letters touch every few pixels, broken into pieces
// too short to be lines, while a box printed on the page (an
// advertisement's panel, a crossword's grid) or a quad reaching from the
// card over the page is outlined whole: what was found is then that quad,
// which shows no face where a card's portrait is. The card is looked for
// through the print (Print, detect.cpp): first with the lines of the image
// with its print closed over added, each quad judged on the image's own
// edges; then, when no card was found, with each quad judged on the
// print-free image, where a side closed on a row of text has no edge.
// A quad that is another object than what was found and shows a face
// where the card's portrait is is taken when it holds at full size. Another
// object lies apart from it, or inside it and much smaller (what was found
// reached round the card over the page); not one that overlaps it in part,
// nor a large part of it: a card whose own quad showed no face (a grey
// copy, a portrait half hidden) can show its portrait in a box of its own
// print or in a quad shifted over the desk beside it. What was found is
// kept without this search when little of the view is print, or when it is
// too small for a face to be seen, or shows one.
std::optional<Refinement> Tracker::card_through_print(const cv::Mat &luma, cv::Rect roi, double focal,
                                                      const Quad &found) {
    // (The share of print first: it costs a closing of the search image,
    // the face search a cascade over the portrait.)
    if (printed_share(luma, roi, config_.detect_long_side) < kTrack.through_print_min_share) return std::nullopt;
    if (portrait_shows_face(*faces_, luma, found, config_.card_type).value_or(true)) return std::nullopt;
    auto another_object = [&](const Quad &q) {
        const double shared = overlap(q, found);
        return shared <= kTrack.through_print_apart ||
               (shared <= kTrack.through_print_inside && encloses(found, q, 0.f));
    };
    for (const Print print : {Print::lines_through, Print::closed_over}) {
        SearchRequest request = search_request(roi, focal);
        request.wanted = kTrack.quads_tried;
        request.print = print;
        const auto cards = detect_card(luma, chroma_, request);
        for (const Detection &d : cards) {
            if (d.joined || !another_object(d.quad)) continue;
            if (!portrait_shows_face(*faces_, luma, d.quad, config_.card_type).value_or(false)) continue;
            if (auto card = confirm(luma, d, focal)) return card;
        }
    }
    return std::nullopt;
}

std::optional<Refinement> Tracker::find(const cv::Mat &luma, cv::Rect roi, double focal) {
    auto found = find_in_edges(luma, roi, focal);
    if (found)
        if (auto card = card_through_print(luma, roi, focal, found->quad)) return card;
    return found;
}

std::optional<Refinement> Tracker::find_in_edges(const cv::Mat &luma, cv::Rect roi, double focal) {
    FineLook fine = look_finely(luma, roi, focal);
    const bool refused_before = std::exchange(cut_best_refused_, false);
    if (!fine.found.empty())
        if (auto card = card_inside(luma, focal, fine.found[0])) return card;
    if (shaped_outranks(fine)) {
        // Closed by shape, a phone's screen and its bezel are a near card
        // too: the card it shows is looked for inside it, as inside the
        // search's best.
        if (auto card = card_inside(luma, focal, *fine.shaped)) return card;
        if (auto card = card_closed_by_shape(luma, focal, *fine.shaped)) return card;
    }
    prefer_a_portrait(luma, fine.found);
    if (!fine.found.empty() && !fine.found[0].joined) return confirm_best(luma, fine.found, refused_before, focal);
    return look_coarsely(luma, roi, focal, fine);
}

// Quads whose fourth side is a line beyond both legs' ends are tried once a
// frame has gone by without a card: a card whose sides fade into a light
// desk or under a thumb is found a frame later, and a card the plain search
// finds is never traded for one closed by a line of the wall beside it (a
// mortar joint along the card's side). So is a best that the frame cuts: the
// card may be in full view beside it, its sides broken by a thumb or by the
// blocks of a low bitrate, and the quad below it a column of bricks that its
// bottom edge closes. A card in full view that the further look ranks first
// wins.
// Quads held upright count only when no card is followed: when the best
// quad held landscape is a box printed on one, or when nothing else is
// found. Near a card held upright they count as much as any; near a card
// held landscape, an upright quad is a box printed on it. An upright best
// is set aside, to be weighed against the coarse look's near card
// (look_coarsely). On the first search, before a frame has gone by
// without a card, an upright best found alone waits a frame unless it
// beats the coarse look's near card: a near card's printed column is an
// upright box a frame before the card is found, while a card lying upright
// and tilted is larger than the landscape quad the coarse look makes of
// the end that holds its portrait.
Tracker::FineLook Tracker::look_finely(const cv::Mat &luma, cv::Rect roi, double focal) {
    const FourthSide fourth = misses_ > 0 ? FourthSide::beyond_ends : FourthSide::at_ends;
    const UprightQuads upright = tracking_ ? upright_quads_near(quad_) : UprightQuads::set_aside;
    const cv::Size size(luma.cols, luma.rows);
    FineLook fine;
    SearchRequest request = search_request(roi, focal);
    request.fourth = fourth;
    request.wanted = kTrack.quads_tried;
    request.upright = upright;
    request.closed_by_shape = &fine.shaped;
    fine.found = detect_card(luma, chroma_, request);
    if (fourth == FourthSide::at_ends && !fine.found.empty() && !fine.found[0].joined &&
        beyond_frame(fine.found[0].quad, size)) {
        request.fourth = FourthSide::beyond_ends;
        request.closed_by_shape = nullptr;
        auto further = detect_card(luma, chroma_, request);
        if (!further.empty() && !beyond_frame(further[0].quad, size)) fine.found = std::move(further);
    }
    if (!fine.found.empty() && is_upright(fine.found[0].quad) && upright == UprightQuads::set_aside) {
        fine.upright = fine.found[0];
        fine.found.clear();
    }
    return fine;
}

// The fine look's best, fitted at full size. A best that runs off the frame
// (a side guessed beyond the border) and does not hold, search after search,
// is not the card: a box of a brick wall that the frame cuts can outrank a
// card in full view for as long as the scene stands. Then the next quad is
// tried, if it is another object. (Once is not enough: on a light desk the
// next may be a box printed on the card, followed for good where the
// following frame would find the card. One that shares most of a refused
// quad's area is that quad with a side moved, on the same lines. A quad in
// full view that does not hold is not replaced: there the next is as often a
// box of bricks as the card.)
std::optional<Refinement> Tracker::confirm_best(const cv::Mat &luma, const std::vector<Detection> &found,
                                                bool refused_before, double focal) {
    if (auto r = confirm(luma, found[0], focal)) return r;
    cut_best_refused_ = beyond_frame(found[0].quad, cv::Size(luma.cols, luma.rows));
    if (!refused_before || !cut_best_refused_) return std::nullopt;
    for (size_t i = 1; i < found.size(); ++i) {
        const Quad &q = found[i].quad;
        if (std::any_of(found.begin(), found.begin() + long(i),
                        [&](const Detection &refused) { return overlap(refused.quad, q) >= kTrack.same_object; }))
            break;
        if (auto r = confirm(luma, found[i], focal)) {
            cut_best_refused_ = false;  // a card found: the next search starts afresh
            return r;
        }
    }
    return std::nullopt;
}

// A coarser look: a card held so near that it is out of focus has edges tens
// of pixels wide, which read as edges only at half the size. Such a card is
// often cut by the frame or has something in front of part of a side, so its
// sides may be looked for further on. What the fine look found only on lines
// joined across a gap (a thumb and a palm over one side of a light card) and
// the coarse look's best are tried in the order of their rank, since either
// can be the wrong one: the coarse look can take the palm behind such a card,
// and the joined lines can close a quad tens of pixels off a card that the
// coarse look finds exactly. An upright card set aside (look_finely) that
// holds at full size is taken before a near card when it outranks it (a
// card lying upright and tilted, whose end with the portrait the coarse
// look takes for a landscape card) or when the near card is a box printed
// on it (inside it); else it is tried last, and not at all when it waits a
// frame: a near card's print has upright boxes (its portrait, a column of
// text), which the fine look sees where the near card's own blurred edges
// are no lines.
// Whether an upright card set aside is tried before the coarse look's near
// card: it outranks it (rank is measured against the image searched, so
// the two scales compare), or the near card lies inside it.
static bool upright_before_near(const Detection &upright, const Detection &near) {
    return upright.rank > near.rank ||
           encloses(upright.quad, near.quad, kTrack.enclose_share * float(mean_width(near.quad)));
}

std::optional<Refinement> Tracker::look_coarsely(const cv::Mat &luma, cv::Rect roi, double focal,
                                                 const FineLook &fine) {
    SearchRequest request = search_request(roi, focal);
    request.long_side = config_.detect_long_side / kTrack.coarse_den;
    request.fourth = FourthSide::scanned_beyond;
    const auto coarse = detect_card(luma, chroma_, request);
    const Detection *joined = fine.found.empty() ? nullptr : &fine.found[0];
    const Detection *near = coarse.empty() ? nullptr : &coarse[0];
    // On the first search (no frame missed yet) an upright card found alone
    // waits a frame unless it beats a near card.
    const bool upright_waits = fine.upright && fine.upright->alone && misses_ == 0;
    const bool upright_first =
        fine.upright && (near ? upright_before_near(*fine.upright, *near) : !upright_waits);
    if (upright_first)
        if (auto r = confirm(luma, *fine.upright, focal)) return r;
    if (joined && (!near || joined->rank >= near->rank)) {
        if (auto r = confirm(luma, *joined, focal)) return r;
        joined = nullptr;
    }
    if (near)
        if (auto r = confirm_near(luma, *near, focal)) return r;
    if (joined) return confirm(luma, *joined, focal);
    if (fine.upright && !upright_first && !upright_waits) return confirm(luma, *fine.upright, focal);
    return std::nullopt;
}

// A search's quad fitted at full size, within its expected corner error.
std::optional<Refinement> Tracker::confirm(const cv::Mat &luma, const Detection &d, double focal) {
    return polish(luma, d.quad, d.pixel_error + kTrack.confirm_slack_px, focal);
}

std::optional<Refinement> Tracker::side_pulled_in(const cv::Mat &luma, cv::Rect roi, int long_side, double focal,
                                                  const std::vector<Detection> &found, const Quad &tracked) {
    // The re-check's best, if it is not the tracked quad; else the best of
    // a search that also closes a card beyond its legs' ends, where one
    // side the drift left behind is short of the corner (the side that
    // went out still runs on past it).
    std::array<double, 4> steps;
    for (int k = 0; k < 4; ++k) steps[k] = luma_step(luma, tracked, k);
    std::vector<Detection> further;
    const Detection *best = !found.empty() && !found.front().incumbent ? &found.front() : nullptr;
    // (The further search costs as much as the re-check: only when a side
    // of the tracked quad is no clear step, as a side on a mortar joint.)
    const bool weak_side =
        std::any_of(steps.begin(), steps.end(), [](double s) { return s >= 0 && s < kTrack.clear_step; });
    if (!best && weak_side) {
        SearchRequest request = search_request(roi, focal);
        request.long_side = long_side;
        request.incumbent = &tracked;
        request.fourth = FourthSide::beyond_ends;
        request.upright = upright_quads_near(tracked);
        further = detect_card(luma, chroma_, request);
        if (!further.empty() && !further.front().incumbent) best = &further.front();
    }
    if (!best) return std::nullopt;
    auto r = polish(luma, best->quad, best->pixel_error + kTrack.confirm_slack_px, focal);
    if (!r) return std::nullopt;
    // The further search may close the whole card round a box printed on
    // it (a card-shaped panel of the print, its top on the header's rule):
    // the card's faint sides end short of its corners, and only a side
    // beyond the legs' ends closes it. Such a quad replaces the tracked one
    // as an enclosing quad of the re-check does.
    if (!further.empty() && best == &further.front() &&
        replaces_on_recheck(r->quad, tracked, false, cv::Size(luma.cols, luma.rows)))
        return r;
    if (!pulls_a_side_in(luma, r->quad, tracked, steps)) return std::nullopt;
    return r;
}

std::optional<Refinement> Tracker::confirm_near(const cv::Mat &luma, const Detection &d, double focal) {
    if (auto r = polish(luma, d.quad, d.pixel_error + kTrack.confirm_slack_px, focal)) return r;
    // Edges spread over tens of pixels have no step steep enough to fit at
    // full size: they are fitted at half size (a pixel there is the mean of
    // four, centred at 2x + 0.5), where they are half as wide.
    cv::resize(luma, half_luma_, cv::Size(luma.cols / 2, luma.rows / 2), 0, 0, cv::INTER_AREA);
    Quad guess;
    for (int i = 0; i < 4; ++i) guess[i] = (d.quad[i] - cv::Point2f(0.5f, 0.5f)) * 0.5f;
    auto r = polish(half_luma_, guess, d.pixel_error * 0.5f + kTrack.confirm_slack_px, focal * 0.5);
    if (!r) return std::nullopt;
    for (auto &p : r->quad) p = p * 2.0f + cv::Point2f(0.5f, 0.5f);
    return r;
}

std::optional<Refinement> Tracker::track(const cv::Mat &luma, double focal) {
    // The print says where the card went; the edges then only settle it,
    // within a few pixels, where a finger's edge cannot compete.
    std::optional<Quad> moved;
    {
        StageTimer timer(stages_.flow);
        moved = flow_.predict(luma, quad_);
    }
    StageTimer timer(stages_.fit);  // the rest: the edges settle it
    if (carried_ && moved && flow_.firm()) carried_ = flow_.carry(*carried_);
    else carried_.reset();
    if (moved) {
        const float radius = float(std::clamp(kTrack.print_radius_px + kTrack.print_radius_share * mean_width(quad_),
                                              kTrack.print_radius_min_px, kTrack.print_radius_max_px));
        if (auto r = polish(luma, *moved, radius, focal, flow_.firm() ? Guess::carried : Guess::searched)) {
            if (flow_.firm()) {
                if (auto held = hold_sides_pulled_in(luma, *moved, *r, focal)) return held;
                if (auto back = back_to_print(luma, *r, focal)) return back;
            }
            return r;
        }
        // A card whipped through the frame has edges smeared over tens of
        // pixels, but its print still moves as one: when nearly all of many
        // points agree, where they say the card is stands for this frame.
        if (flow_.firm() && plausible(*moved, luma, focal)) {
            Refinement r;
            r.quad = *moved;
            r.confidence = kTrack.print_only_confidence;
            r.ok = true;
            return r;
        }
    }
    // No print to follow (a plain card, heavy blur): a constant-velocity
    // guess and a search radius as wide as the motion.
    Quad predicted = quad_;
    double motion = 0;
    if (has_prev_quad_) {
        for (int i = 0; i < 4; ++i) {
            cv::Point2f v = quad_[i] - prev_quad_[i];
            predicted[i] += v;
            motion = std::max(motion, cv::norm(v));
        }
    }
    const float radius = float(std::clamp(kTrack.motion_radius_px + kTrack.motion_radius_of_motion * motion +
                                              kTrack.motion_radius_share * mean_width(quad_),
                                          kTrack.motion_radius_px, kTrack.motion_radius_max_px));
    return polish(luma, predicted, radius, focal);
}

std::optional<Refinement> Tracker::back_to_print(const cv::Mat &luma, const Refinement &fit, double focal) {
    // Each frame's fit starts from the last one moved by the print, so a
    // side that settles a pixel off the card's edge each frame is carried
    // off with it: a card drifting off a mortar joint that one of its sides
    // lay along keeps that side on the joint, and the quad's widening reads
    // as tens of degrees of pitch on a card held still. Carried from where
    // a re-check last confirmed the card, the print keeps the card's own
    // edge: one or two sides outside it are fitted again there, within the
    // same tolerance. (More, or any inside it: the print and the edges
    // disagree about the whole card, a turn or a blur, or the fit is
    // leaving a line the search had put a side on; the fit stands.)
    if (!carried_) return std::nullopt;
    const OffPrint off = sides_off_print(*carried_, fit.quad);
    if (off.out == 0 || off.out > kTrack.max_sides_off_print || off.in > 0) return std::nullopt;
    auto r = polish(luma, *carried_, print_tolerance(*carried_), focal, Guess::carried);
    if (!r) return std::nullopt;
    if (const OffPrint again = sides_off_print(*carried_, r->quad); again.out > 0 || again.in > 0) return std::nullopt;
    // The sides that were out moved onto an edge where the print says they
    // are (not the print's guess kept for a side under a thumb), and only
    // they moved: the print's quad is right to a pixel or two, but a side
    // under a thumb is the fit's to keep (there the refit keeps the print's
    // guess, which can lie several pixels off the hidden edge, and every
    // later frame would be held to it).
    const auto moved = pulled_in(fit.quad, r->quad);
    for (int k = 0; k < 4; ++k)
        if (off.outside[k] ? r->support[k] < kTrack.side_on_edge : std::abs(moved[k]) > kTrack.side_kept_px)
            return std::nullopt;
    return r;
}

std::optional<Refinement> Tracker::hold_sides_pulled_in(const cv::Mat &luma, const Quad &predicted,
                                                        const Refinement &fit, double focal) {
    // A line printed a few pixels inside the card's edge (an inset border,
    // the rule a side was widened from) is a stronger step than the edge
    // against the desk, and of the other polarity on its outer side: the
    // edge fit takes the side over to it a frame later, or as the card
    // turns. Nothing then pulls the side back out: each frame's fit starts
    // from the last one moved by the print, so the side stays on the line
    // while the card is followed, and the focal length estimate grows to
    // make the narrowed quad a card. A side the fit pulls in goes back out
    // to where the print put it, when there is card between (a few fits,
    // only when it happens). A side the search had widened, always; any
    // other, only when that leaves the outline no less a card's than the
    // fit's: a side that slid out onto a light wall's mortar would
    // otherwise be held there (the band between passes for card), and
    // there the fit's quad is the card-shaped one.
    std::array<float, 4> back = pulled_in(predicted, fit.quad);
    const float tolerance = kTrack.pulled_in_px + kTrack.pulled_in_share * float(mean_width(quad_));
    bool any = false, only_widened = true;
    for (int k = 0; k < 4; ++k) {
        if (back[k] <= tolerance) back[k] = 0;
        any = any || back[k] > 0;
        only_widened = only_widened && (back[k] == 0 || widened_[k]);
    }
    if (!any) return std::nullopt;
    auto held = widen_to_card_edge(luma, chroma_, fit, focal, refine_, &back);
    if (!held || !plausible(held->quad, luma, focal)) return std::nullopt;
    const cv::Size size(luma.cols, luma.rows);
    if (!only_widened && card_inconsistency(held->quad, size, focal) > card_inconsistency(fit.quad, size, focal))
        return std::nullopt;
    return held;
}

// One frame, in stages: locate the card (follow it, or search), re-check
// what is followed now and then, search the whole frame when due, correct
// its sides, commit it as the card being followed, and measure it. What
// corrects a side, in order of precedence: a re-check's better quad (an
// enclosing one, or the tracked one with a side pulled in) replaces the
// followed quad outright; otherwise, within track(), a side the fit pulled
// in from the print's prediction is held out (hold_sides_pulled_in), else
// sides that drifted off the print are put back (back_to_print); and last,
// once a frame whichever way the card was found, an outline no card
// projects to has a faint side restored (correct_sides).
void Tracker::process(const hkcv_image &image, int64_t pts_ns, hkcv_measurement &out) {
    out = hkcv_measurement{};
    out.pts_ns = pts_ns;
    const FrameClock clock(stages_, out.stages);
    const FrameView f = begin_frame(image);
    Located found = locate(f);
    recheck(f, found);
    search_when_due(f, found, out);
    if (found.fit && shrank_onto_print(found.fit->quad, pts_ns)) found.fit.reset();
    if (!found.fit) {
        lose();
        ++misses_;
        return;
    }
    misses_ = 0;
    correct_sides(f, found);
    place_hidden(f, found);
    const Motion motion = commit(f, found, pts_ns);
    measure(image, f, *found.fit, motion, pts_ns, out);
}

Tracker::FrameView Tracker::begin_frame(const hkcv_image &image) {
    FrameView f;
    f.seen_luma = luma_of(image, luma_scratch_);
    chroma_ = chroma_of(image, nv12_chroma_);
    // glare_luma is a full-range level; limited-range luma reaches the
    // same brightness at 16 + 219/255 of it (a saturated sensor gives 235).
    const bool limited = image.range == HKCV_RANGE_LIMITED &&
                         (image.format == HKCV_PIXEL_I420 || image.format == HKCV_PIXEL_NV12);
    glare_level_ = limited ? int(std::lround(16 + config_.glare_luma * 219.0 / 255.0)) : config_.glare_luma;
    // A washed-out frame is searched and followed stretched (contrast.cpp).
    f.luma = f.seen_luma;
    search_glare_level_ = glare_level_;
    f.levels = levels_in_view(f.seen_luma);
    const ContrastStretch stretch = contrast_stretch_of(f.levels, limited);
    if (stretch.stretches()) {
        const Chroma seen_chroma = chroma_;
        stretch.apply(f.seen_luma, seen_chroma, stretched_luma_, chroma_, stretched_chroma_);
        f.luma = stretched_luma_;
        search_glare_level_ = int(std::min(256L, std::lround(stretch.level_to(glare_level_))));
    }
    f.size = cv::Size(f.luma.cols, f.luma.rows);
    if (f.size != frame_size_) {
        lose();
        focal_.reset();
        frame_size_ = f.size;
    }
    f.focal_cfg = focal_from_hfov(config_.hfov_deg, f.size.width);
    f.focal = f.focal_cfg;
    if (config_.estimate_focal)
        if (auto estimated = focal_.value()) f.focal = *estimated;
    // Under a lamp's glare the card's print is washed out, and the search
    // refuses the card for too little print inside it; a quad of the
    // background around the card (a brick wall behind a card turned under
    // a lamp) would then win the re-check and be followed instead. The
    // re-check waits until the glare has gone, as restoring a side does.
    f.washed_out = last_glare_ >= kTrack.washed_out_glare;
    return f;
}

Tracker::Located Tracker::locate(const FrameView &f) {
    Located found;
    if (!tracking_) return found;
    found.fit = track(f.luma, f.focal);
    found.by_print = found.fit.has_value();
    if (!found.fit) {
        // Local search around where the card was.
        StageTimer timer(stages_.search);
        cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(quad_.begin(), quad_.end()));
        int mx = box.width / kTrack.local_margin_den, my = box.height / kTrack.local_margin_den;
        cv::Rect roi(box.x - mx, box.y - my, box.width + 2 * mx, box.height + 2 * my);
        found.fit = search(f.luma, roi, f.focal);
    }
    return found;
}

void Tracker::recheck(const FrameView &f, Located &found) {
    const cv::Mat &luma = f.luma;
    const cv::Size size = f.size;
    const double focal = f.focal;
    // A card that was cut by the frame had a side guessed beyond it; when
    // the whole card is back in view, it is re-checked at once.
    const bool back_in_view = found.fit && was_cut_ && !beyond_frame(found.fit->quad, size);
    if (!found.fit || f.washed_out || (++since_recheck_ < recheck_every_ && !back_in_view)) return;
    // Edge tracking follows whatever edges it was given: if it started
    // on (or slid onto) a box printed on the card, nothing pulls it
    // back. Now and then the neighbourhood is searched afresh, and a
    // better-ranked quad (the whole card) replaces the tracked one.
    StageTimer timer(stages_.recheck);
    since_recheck_ = 0;
    cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(found.fit->quad.begin(), found.fit->quad.end()));
    const int mx = box.width * kTrack.recheck_margin_num / kTrack.recheck_margin_den,
              my = box.height * kTrack.recheck_margin_num / kTrack.recheck_margin_den;
    const cv::Rect roi(box.x - mx, box.y - my, box.width + 2 * mx, box.height + 2 * my);
    // At the scale the whole frame is searched at (the card was found
    // there; the neighbourhood at a finer scale costs four times as much).
    const int long_side =
        std::max(kTrack.recheck_min_long_side, int(double(config_.detect_long_side) * std::max(roi.width, roi.height) /
                                                   std::max(size.width, size.height)));
    // (Only the best-ranked quad may replace the card being followed.)
    SearchRequest request = search_request(roi, focal);
    request.long_side = long_side;
    request.incumbent = &found.fit->quad;
    request.upright = upright_quads_near(found.fit->quad);
    const auto d = detect_card(luma, chroma_, request);
    const bool encloses_it =
        !d.empty() && !d.front().incumbent && replaces_on_recheck(d.front().quad, found.fit->quad, back_in_view, size);
    const auto better = encloses_it
                            ? polish(luma, d.front().quad, d.front().pixel_error + kTrack.confirm_slack_px, focal)
                            : side_pulled_in(luma, roi, long_side, focal, d, found.fit->quad);
    found.confirmed = !d.empty() && d.front().incumbent;
    if (better) {
        found.fit = better;
        found.by_print = false;
        widened_ = {};  // another quad: none of its sides was widened
        recheck_every_ = kTrack.recheck_frames;
        side_pulled_in_ = !encloses_it;
    } else if (!encloses_it && !std::exchange(side_pulled_in_, false)) {
        // Confirmed: each confirmation halves how often this card is
        // re-checked (15, 30, 60, up to 120 frames), since the search
        // costs as much as twenty tracked frames. Not the first after a
        // side was pulled in: that side may still be short of the
        // card's edge, and a side that went out once drifts out again.
        recheck_every_ =
            std::min(kTrack.recheck_backoff * recheck_every_, kTrack.recheck_max_multiple * kTrack.recheck_frames);
    }
}

void Tracker::search_when_due(const FrameView &f, Located &found, hkcv_measurement &out) {
    ++since_search_;
    if (!found.fit &&
        (misses_ < kTrack.misses_before_sparse_search || since_search_ >= kTrack.still_scene_search_every ||
         (misses_ % kTrack.sparse_search_every == 0 && view_change_.changed(f.luma)))) {
        // The whole frame costs tens of times a tracked frame. While no card
        // has been seen for a while, one frame in sparse_search_every is
        // searched, and in a still view (nothing came into it since the
        // last search) one in still_scene_search_every: a card that comes
        // into view is found a few frames later, and an empty scene costs a
        // fraction of its decoding.
        out.searched_full_frame = 1;
        StageTimer timer(stages_.search);
        found.fit = search(f.luma, cv::Rect(0, 0, f.size.width, f.size.height), f.focal);
        found.by_print = false;
        since_search_ = 0;
        view_change_.searched(f.luma);
    }
}

bool Tracker::shrank_onto_print(const Quad &q, int64_t pts_ns) const {
    // A card does not shrink to a fraction of its width within a moment: a
    // much smaller quad inside where it just was is a box printed on it
    // (the card itself is leaving the frame, or hidden for a moment).
    // (quad_ and last_pts_ keep the last card found through a loss.)
    return has_recent_ && pts_ns - last_pts_ < kTrack.shrink_window_ns &&
           mean_width(q) < kTrack.shrink_width * mean_width(quad_) &&
           encloses(quad_, q, kTrack.shrink_margin * float(mean_width(quad_)));
}

void Tracker::correct_sides(const FrameView &f, Located &found) {
    // Once a frame, whichever way the card was found: a side on a line
    // printed inside the card, where the card's own edge is too faint to
    // compete, leaves a quad no card projects to. (Looking for the edge
    // costs a few fits; an outline that could not be put right, a card on
    // a phone's screen for one, is left alone for a few frames. Under a
    // lamp's glare the bloom spills over the card's edge and the background
    // beside it reads as card: a side would be moved out onto the bloom's
    // edge and kept there.)
    if (restore_wait_ > 0) {
        --restore_wait_;
    } else if (!f.washed_out && card_inconsistency(found.fit->quad, f.size, f.focal) > kInconsistentCard) {
        StageTimer timer(stages_.fit);
        auto restored = restore_faint_side(f.luma, chroma_, *found.fit, f.focal, refine_);
        if (restored && plausible(restored->quad, f.luma, f.focal)) {
            found.fit = restored;
            found.by_print = false;
        } else {
            restore_wait_ = kTrack.restore_wait;
        }
    }
}

void Tracker::place_hidden(const FrameView &f, Located &found) const {
    // A card cut by the frame along one side: the fit settles the sides in
    // view, and the hidden corners go where a card's image puts them, not
    // where the search guessed them and the print's motion carried them
    // (tens of pixels off, which reads as a tilt of 15-20 degrees of a card
    // held flat).
    if (auto placed = place_hidden_side(found.fit->quad, f.size, f.focal)) found.fit->quad = *placed;
}

Tracker::Motion Tracker::commit(const FrameView &f, const Located &found, int64_t pts_ns) {
    {
        StageTimer timer(stages_.flow);
        flow_.commit(f.luma, found.fit->quad);
    }
    // The print carries the card on from where a re-check confirmed it
    // (the search ranked it first), for a few seconds; then from this
    // frame's fit if it still agrees (the print's own error adds up). A
    // quad just found is not yet to be held to: a search may put a side on
    // a line beside the card (a mortar joint), the print carries that
    // error along, and holding the fit to it would keep the side off the
    // card's edge after the fit has left the line by itself.
    if (found.confirmed) {
        carried_ = found.fit->quad;
        carried_frames_ = 0;
    } else if (!found.by_print) {
        carried_.reset();
    } else if (carried_ && ++carried_frames_ > kTrack.carried_frames_max) {
        if (const OffPrint off = sides_off_print(*carried_, found.fit->quad); off.out + off.in == 0) {
            carried_ = found.fit->quad;
            carried_frames_ = 0;
        } else {
            carried_.reset();
        }
    }
    has_recent_ = true;

    const Quad q = found.fit->quad;
    Motion motion;
    motion.dt = tracking_ ? double(pts_ns - last_pts_) * 1e-9 : 0.0;
    motion.continuous = tracking_ && motion.dt > 0 && motion.dt < kTrack.max_frame_gap_s;
    if (tracking_) {
        prev_quad_ = quad_;
        has_prev_quad_ = true;
    }
    quad_ = q;
    tracking_ = true;
    last_pts_ = pts_ns;
    return motion;
}

PoseSolutions Tracker::poses_of(const FrameView &f, const Quad &q) {
    const cv::Size size = f.size;
    const double focal = f.focal, focal_cfg = f.focal_cfg;
    // Focal length from the card itself, when its perspective is strong
    // enough to say something and the answer is plausible: with it, the
    // quad must then be a card's image. (A quad with one side wrong also
    // yields a focal length, one that makes it as rectangular as it can
    // be but not card-shaped; a second of such quads can take the estimate
    // a fifth too long, and the search then refuses the card as not
    // card-shaped. Under a glare the side in the bloom is a guess, and such
    // quads can take the estimate far enough that the wrong quad passes for
    // a card.)
    // (One IPPE solve when no focal length is learnt yet: the tilt is read
    // off the same solve as the pose.)
    const PoseSolutions at_focal = pose_solutions(q, size, focal);
    const Pose pose_cfg = focal == focal_cfg ? at_focal.first_look : pose_from_quad(q, size, focal_cfg);
    if (config_.estimate_focal && pose_cfg.ok && !f.washed_out) {
        const double tilt = std::acos(std::cos(pose_cfg.yaw * kPi / 180) * std::cos(pose_cfg.pitch * kPi / 180)) * 180 / kPi;
        if (tilt > kTrack.focal_min_tilt_deg)
            if (auto implied = focal_from_quad(q, size))
                if (*implied > kTrack.focal_min * focal_cfg && *implied < kTrack.focal_max * focal_cfg)
                    if (card_inconsistency(q, size, *implied) < kTrack.focal_fit) focal_.add(*implied);
    }
    return at_focal.best().ok || focal == focal_cfg ? at_focal : pose_solutions(q, size, focal_cfg);
}

Pose Tracker::turning_pose(const PoseSolutions &s) const {
    // The better-fitting of the two poses a quad allows changes with a
    // fraction of a pixel when both fit (a small or front-on card): a card
    // about 150 px wide whose quad is still to half a pixel can alternate
    // between two poses 30-40 degrees apart, which reads as a turn at
    // hundreds of degrees/s. The speed follows one of the two while the
    // other fits about as well: the one nearer the last frame's. A card
    // turns smoothly, and once it has turned far enough the other pose no
    // longer fits. (The pose reported stays the better-fitting one: held to
    // one of the two, a front-on card can read several degrees of yaw for
    // a second while the better-fitting pose swings about 0.)
    if (pose_history_.empty() || s.count < 2 || !s.pose[0].ok || !s.pose[1].ok ||
        s.rms_px[1] > s.rms_px[0] + kTrack.ambiguous_pose_px)
        return s.best();
    const PoseSample &last = pose_history_.back();
    auto distance = [&](const Pose &p) {
        const double dy = p.yaw - last.raw_yaw, dp = p.pitch - last.raw_pitch, dr = p.roll - last.raw_roll;
        return dy * dy + dp * dp + dr * dr;
    };
    return distance(s.pose[1]) < distance(s.pose[0]) ? s.pose[1] : s.pose[0];
}

void Tracker::measure(const hkcv_image &image, const FrameView &f, const Refinement &found, Motion motion,
                      int64_t pts_ns, hkcv_measurement &out) {
    const Quad &q = found.quad;
    const cv::Size size = f.size;
    const double focal = f.focal, dt = motion.dt;
    const bool continuous = motion.continuous;
    const PoseSolutions poses = poses_of(f, q);
    const Pose &pose = poses.best();

    if (!continuous) {
        yaw_f_.reset();
        pitch_f_.reset();
        roll_f_.reset();
    }
    const double step = continuous ? dt : kTrack.first_step_s;
    const double yaw = yaw_f_.filter(pose.yaw, step), pitch = pitch_f_.filter(pose.pitch, step),
                 roll = roll_f_.filter(pose.roll, step);
    if (!continuous) {
        pose_history_.clear();
        turn_yaw_f_.reset();
        turn_pitch_f_.reset();
        turn_roll_f_.reset();
    }
    const Pose turn = turning_pose(poses);
    pose_history_.push_back({pts_ns, turn_yaw_f_.filter(turn.yaw, step), turn_pitch_f_.filter(turn.pitch, step),
                             turn_roll_f_.filter(turn.roll, step), turn.yaw, turn.pitch, turn.roll});
    while (pose_history_.size() > kTrack.speed_min_poses && pts_ns - pose_history_[1].pts_ns >= kTrack.speed_window_ns)
        pose_history_.pop_front();
    const double speed = angular_speed();

    out.found = 1;
    out.confidence = found.confidence;
    for (int i = 0; i < 4; ++i) {
        out.corners[2 * i] = q[i].x;
        out.corners[2 * i + 1] = q[i].y;
    }
    out.yaw = float(yaw);
    out.pitch = float(pitch);
    out.roll = float(roll);
    out.speed_dps = float(speed);
    out.width_ratio = float(mean_width(q) / size.width);
    const float mx = float(config_.border_margin * size.width), my = float(config_.border_margin * size.height);
    for (auto &p : q)
        if (p.x < mx || p.y < my || p.x > size.width - 1 - mx || p.y > size.height - 1 - my) out.touches_border = 1;
    was_cut_ = beyond_frame(q, size);
    Photometry ph;
    {
        StageTimer timer(stages_.photometry);
        ph = measure_photometry(f.seen_luma, q, glare_level_, photometry_);
    }
    out.glare = ph.glare;
    last_glare_ = ph.glare;
    out.glare_blob = ph.glare_blob;
    out.sharpness = ph.sharpness;
    out.focal_px = float(focal);
    if (config_.liveness_evidence) {
        StageTimer timer(stages_.liveness);
        liveness_.add(image, f.seen_luma, f.levels, q, yaw, pitch, ph.glare, ph.focus);
    }

    if (std::abs(yaw) < config_.front_max_deg && std::abs(pitch) < config_.front_max_deg && !out.touches_border) {
        // Sharp beats blurred, glare costs, and a squarer view wins ties.
        const double score = ph.sharpness - ph.glare - kTrack.still_angle_cost * (std::abs(yaw) + std::abs(pitch));
        keep_still_if_better(image, q, score, pts_ns);
    }
}

double Tracker::angular_speed() const {
    // Over the last speed_window_ns, two ways, and the lower one counts. A
    // turn too fast keeps up its speed for that long (a whip turns a card at
    // a few hundred degrees/s), so it is fast both ways.
    //   - From the oldest pose to the newest: a pose that is wrong for a
    //     frame or two (a blurred edge in a fast shift) moves the angles
    //     back and forth, which measured from frame to frame reads as a
    //     whip.
    //   - The median of the frame-to-frame speeds, of the poses as
    //     measured: a nearly front-on card has two poses that project to
    //     almost the same quad (the planar ambiguity: yaw and pitch of a
    //     few degrees mirrored, e.g. yaw -9, pitch +7 against yaw +10,
    //     pitch -6, their reprojection errors a tenth of a pixel apart),
    //     and when the better of the two changes, the pose steps 20
    //     degrees in one frame while the quad moves half a pixel. That step
    //     is one frame's speed; the median ignores it.
    // Not until the poses span speed_min_poses: a card just found (or
    // found again after a miss) may have a side that settles over its
    // first frames, and a pose wrong for one of three reads as a whip.
    if (pose_history_.size() < kTrack.speed_min_poses) return 0;
    const PoseSample &then = pose_history_.front(), &now = pose_history_.back();
    if (now.pts_ns <= then.pts_ns) return 0;
    auto distance = [](double dy, double dp, double dr) { return std::sqrt(dy * dy + dp * dp + dr * dr); };
    const double overall = distance(now.yaw - then.yaw, now.pitch - then.pitch, now.roll - then.roll) /
                           (double(now.pts_ns - then.pts_ns) * 1e-9);
    std::array<double, kTrack.speed_steps> rates;
    size_t n = 0;
    for (size_t k = pose_history_.size() - 1; k >= 1 && n < rates.size(); --k) {
        const PoseSample &a = pose_history_[k - 1], &b = pose_history_[k];
        rates[n++] = distance(b.raw_yaw - a.raw_yaw, b.raw_pitch - a.raw_pitch, b.raw_roll - a.raw_roll) /
                     (double(b.pts_ns - a.pts_ns) * 1e-9);
    }
    std::sort(rates.begin(), rates.begin() + long(n));
    const double median = n % 2 ? rates[n / 2] : 0.5 * (rates[n / 2 - 1] + rates[n / 2]);
    return std::min(overall, median);
}

void Tracker::keep_still_if_better(const hkcv_image &image, const Quad &q, double score, int64_t pts) {
    if (still_ && score <= still_score_ + kTrack.still_margin) return;
    // A copy of the card's pixels, not yet the still: most candidates are
    // replaced by a better view before anyone asks for one, and warping
    // each (856 x 540, three planes) would cost a sixth of a 720p replay.
    still_ = std::make_shared<Still>(image, q, pts, config_, faces_);
    still_score_ = score;
}

}  // namespace cardvision
