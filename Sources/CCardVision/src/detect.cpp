// detect.cpp — finding a card-like quad when we do not know where the card is.
//
// On a downscaled copy (long side ~640) two kinds of hypotheses are made,
// in this order (detect_card reads as the same steps):
//
//  1. Straight edges: Canny edges cut into straight segments, collinear
//     segments merged into lines, pairs of roughly perpendicular lines that
//     meet near their ends taken as corners, and two corners sharing a line
//     as three sides of a card ("U"). The fourth side is the line that closes
//     the U if there is one, else it is inferred from the U's open ends. A
//     thumb or palm that touches the card merges it with the hand into one
//     outline that is no quadrilateral, but it leaves three sides straight.
//  2. Closed outlines: contours of the strict edges (then of the sensitive
//     ones, unless a convincing card was found), each contour's convex hull
//     simplified to four vertices. Cheap and exact for a card nothing
//     touches.
//  When nothing at all is found, pieces of one line further apart than
//  lines are merged (a thumb and a palm over one side) are joined, and the
//  U's of the joined lines are tried.
//
// Every hypothesis then has to pass the card model (convex, ID-1 aspect once
// perspective is removed, held roughly landscape, not tiny), show a strong
// gradient along at least three of its sides and some print inside; among
// the survivors the best supported large one wins, so the card beats the
// portrait frame and the other boxes printed on it. The result is coarse (a
// pixel or two of the small image); refine.cpp makes it exact at full
// resolution.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

// Every threshold of the search (detect_card and the tests a hypothesis
// must pass), in one place. Shares of places are fractions 0..1 of the
// samples along a side; distances are Bhattacharyya distances 0..1 of
// coarse brightness-and-colour histograms (ColourHistogram); sizes in px
// are pixels of the downscaled image searched.
struct SearchParams {
    // ---- Gradients (3x3 Sobel units, L1 of a [1 2 1] x [-1 0 1] pair:
    // ~15 grey levels per pixel) ----
    // A place inside a quad is print (inner_print) above edge_gradient.
    // Along a hypothesised side a weaker step counts (side_gradient): a
    // light card against a light wall or cup differs by a few grey levels,
    // and the side is judged by how much of its length has the step, not by
    // how strong it is.
    float edge_gradient = 60.f, side_gradient = 32.f;
    // An edge runs along a line when its gradient is within 25 degrees of
    // the line's normal (along_cos2 = cos² 25°); a faint one also when its
    // part along the line is at most noise_gradient, three quarters of
    // side_gradient (set by eye, not tuned): what sensor noise can turn a
    // few grey levels' gradient by (Edges).
    float along_cos2 = 0.821f, noise_gradient = 24.f;
    // A corner of a quad is one (corner_seen) when both sides meeting there
    // show their edge at corner_edge of their places from corner_from to
    // corner_to of the way along (a card's rounded corner takes the first 4 %).
    float corner_from = 0.06f, corner_to = 0.20f;
    double corner_edge = 0.5;
    // How near (px) two quads' corners lie when they are one quad found
    // twice: of those, only the better ranked is kept. About the coarse
    // search's corner error (pixel_error).
    double same_quad_px = 4;
    // A side is judged only with at least side_in_frame_tenths of its
    // places in the frame (a card cut by the frame leaves too little of it).
    int side_in_frame_tenths = 3;

    // ---- A side's margin and what lies beyond it ----
    // Strips either side of a side are read band_reach of the quad's
    // shorter side from it (at least band_reach_px, px): past the blur of
    // the edge, within the card's margin.
    float band_reach = 0.06f, band_reach_px = 4.f;
    // A strip is even when most of it (even_share of its places) lies
    // within even_margin_levels grey levels of its median: a card's plain
    // margin, not print or a background's texture.
    double even_share = 0.7;
    int even_margin_levels = 24;
    // A place steps from what lies beyond it (side_step) when just inside
    // and just outside differ by min_step grey levels (colour differences
    // count double): well above noise and compression.
    int min_step = 14;
    // A shadow's edge across a margin (crossed_by_shadow): even stretches
    // of at least shadow_stretch places either side of at most
    // shadow_penumbra places; a step of shadow_min_light or more in log
    // luma (18 % of the light), at least shadow_min_step grey levels and
    // shadow_step_spread times the stretches' unevenness, shadow_edge_share
    // of it taken within the penumbra. The outside follows when its change
    // in log luma is within shadow_follow_slack + shadow_follow_share of
    // the inside's (levels under shadow_min_level say nothing of a ratio),
    // and a colour difference keeps within shadow_max_hue_shift levels of
    // the scaling.
    int shadow_stretch = 4, shadow_penumbra = 2;
    double shadow_min_light = 0.2;
    int shadow_min_step = 12, shadow_step_spread = 6;
    double shadow_edge_share = 0.6;
    int shadow_min_level = 8;
    double shadow_follow_slack = 0.05, shadow_follow_share = 0.4;
    int shadow_max_hue_shift = 8;

    // ---- Inside a quad ----
    // Under a lamp's glare (inner_print): when saturated places are
    // glare_min_tenths of the grid or more and print is glare_print_percent
    // of the others, the saturated ones count as print.
    int glare_min_tenths = 3, glare_print_percent = 3;
    // Histograms compared (unlike_surroundings, unlike_across_side) need at
    // least this many places each inside the image, else the test is not
    // judged: a ring around the quad, and bands along one side.
    float min_ring_places = 10, min_band_places = 20;

    // ---- The image searched and the sizes of card it takes ----
    // Smallest region searched, px a side: the 3x3 gradients and the
    // smallest quad (min_side_px) need room.
    int min_region_px = 16;
    // Smallest card worth finding, its width as a fraction of the frame's:
    // a card that far is reported FAR well before it gets there.
    double min_card_width = 0.10;
    // Shortest side a quad may have: this fraction of the smallest card's
    // height (a card turned away foreshortens it), and never under
    // min_side_px, where a side has too few places to judge (side_support).
    double min_side_of_height = 0.6, min_side_px = 10;
    // Largest quad, as a fraction of the image searched: one that fills it
    // is the region itself, not a card in it. Its area is also what a
    // quad's size is ranked against.
    double max_quad_area = 0.98;

    // ---- Edges ----
    // Canny hysteresis thresholds in 3x3 Sobel units (L1 norm): a card edge
    // of ~90 grey levels, spread over three pixels by the downscale, gives
    // ~250; a light card against a light wall may give 60, which the
    // sensitive pair keeps. The strict pair drops the fainter clutter that
    // would otherwise join the card's closed outline.
    double canny_low = 30, canny_high = 80, strict_canny_low = 60, strict_canny_high = 160;

    // ---- Straight edges (lines) ----
    // Shortest straight stretch cut from the edges' contours: this fraction
    // of the shortest side (a side between two fingers still counts), and
    // at least min_segment_px (shorter stretches are straight by chance).
    double min_segment_of_side = 0.3, min_segment_px = 8;
    // Shortest line kept once collinear pieces are merged, as a fraction of
    // the shortest side: a side interrupted by a thumb is merged whole, so
    // what is shorter is print or clutter.
    double min_line_of_side = 0.5;
    // Lines kept, the longest: corners are sought among every pair and U's
    // among every pair of corners, and a card's sides are among the longest
    // lines of any scene it is worth finding in.
    size_t lines_kept = 120;
    // Lines joined across a gap kept, the longest: a card has four sides,
    // while a brick wall's rows of mortar join by the dozen and every U
    // they make costs a scan for its fourth side.
    size_t joined_lines_kept = 4;
    // How far a contour may stray from the straight segment cut from it, px:
    // about the jitter of a traced edge of the blurred small image.
    double segment_tolerance_px = 1.5;
    // A search through the print (Print) closes the small image's dark
    // print over: a grey-level closing by a square this wide (px of the
    // small image) fills every dark stroke narrower than it with the paper
    // round it. At the search's size a page's text and a crossword's rules
    // are strokes of 1-3 px, and the card's own print goes with them; what
    // stays is the card as one even surface, whose outline against the page
    // is a line where the letters touching it had broken it into pieces too
    // short to be kept.
    int print_close_px = 5;
    // A pixel the closing lifts by more than this many levels lay on a
    // stroke of print (printed_share).
    int print_stroke_levels = 20;
    // Pieces merged into one line (merge_collinear) turn from it by at most
    // this (degrees) and lie within merge_offset_px of it (px): a side's
    // pieces either side of a thumb, not a parallel line of print beside it.
    float merge_max_turn_deg = 3.0f, merge_offset_px = 2.0f;
    // Two lines joined across a gap (joined_across_gaps): each end of the
    // second within join_offset_px of the first (px), and one straight line
    // through both within join_fit_px of all four ends (px). Stricter than
    // merging: the gap is longer, so a slight turn would join two lines.
    float join_offset_px = 4.f, join_fit_px = 1.5f;

    // ---- Corners and three sides (U's) ----
    // Two lines make a corner when they meet at 50..130 degrees (a card's
    // corner turned by perspective, not a near-parallel pair) near one end
    // of each: within corner_end_share of the line's length plus
    // corner_end_px (px) of it. An end may lie that far off because a
    // thumb shortens a side, or a rounded corner cuts both.
    float corner_min_angle_deg = 50.f, corner_end_share = 0.45f, corner_end_px = 6.f;
    // A U's legs and base shorter than this (px) make no card.
    float min_u_side_px = 6.f;
    // A line closes a U at its legs' ends when it crosses each leg within
    // this share of the leg's length (plus corner_end_px) of its end.
    float closes_at_end_share = 0.35f;
    // How far along the legs a fourth side may lie, in lengths of the
    // longer leg: from fourth_nearest (a side shorter than that against
    // the base is no ID-1 card, even foreshortened) to fourth_at_ends when
    // only the legs' ends are looked at (1 + closes_at_end_share), and up
    // to the card's length from its base when scanned beyond them: its
    // aspect times fourth_aspect_slack (perspective), at most
    // fourth_farthest legs.
    float fourth_nearest = 0.35f, fourth_at_ends = 1.35f, fourth_aspect_slack = 1.15f, fourth_farthest = 3.0f;
    // A line found beyond the legs' ends closes the U only where it runs
    // between the legs for at least this share of the way across them.
    float fourth_line_overlap = 0.3f;
    // A fourth side with no line of its own is scanned for in steps of
    // fourth_scan_step legs, a step taking over only when it has
    // fourth_scan_gain more edge support (noise must not move it), and is
    // taken when fourth_scan_support of it is edge.
    float fourth_scan_step = 0.05f, fourth_scan_gain = 0.02f, fourth_scan_support = 0.25f;
    // A U closed where a card with its base ends (close_by_shape) only
    // beyond both legs' ends (legs that fade before the card's corners, not
    // legs that run on past the side it puts there), with that side's edge
    // support at least fourth_scan_support (edges along it, the faint ones
    // counted: Edges::along_within_noise) and its corners in view, at
    // least shape_border_share of the image's width in from its border
    // (along the border, the frame's own edge is the line that closes it).
    float shape_min_reach = 1.0f, shape_border_share = 0.02f;
    // Legs ending within border_px of the frame's border (px) run into it:
    // the card is cut, and its hidden side is tried at cut_steps places,
    // 1 + k * cut_step legs from the base, k = 1..cut_steps (up to 2.6: the
    // card's shape then decides which).
    int border_px = 3, cut_steps = 16;
    float cut_step = 0.1f;
    // A U whose legs end inside the frame, when nothing else is found in the
    // coarse look at a near card (search_cut_by_shape), is closed beyond the
    // border at these lengths of a card with its base: front-on (1), and
    // longer where the base is the card's far side, shortened by
    // perspective; the shape test allows 10 % either way. Two, not more: on
    // a brick wall, with nothing found, each is hundreds of hypotheses.
    std::array<float, 2> cut_shape_lengths{1.0f, 1.15f};
    // Lines that may close a U on a base run roughly along it: the cosine
    // of the angle between them at least this (37 degrees; a card's far
    // side in perspective is not parallel to its base).
    float closing_line_min_cos = 0.8f;

    // ---- Closed outlines (quad_from_contour) ----
    // The hull of a contour is simplified to four vertices with these
    // tolerances in turn (fractions of its perimeter), the first that gives
    // four or fewer taken: a card's rounded corners need a little slack,
    // an outline with a thumb over it more.
    std::array<double, 4> hull_tolerances{0.02, 0.03, 0.045, 0.06};
    // Each side is refitted to the contour's points along its middle
    // (side_middle_from to _to of it, away from the rounded corners) lying
    // within side_fit_px of it (px), when there are side_fit_points of them;
    // a corner of the refitted sides more than corner_shift (of the
    // perimeter) from the hull's vertex means the contour is no
    // quadrilateral.
    float side_middle_from = 0.15f, side_middle_to = 0.85f, side_fit_px = 3.0f;
    size_t side_fit_points = 6;
    double corner_shift = 0.1;
    // A hull side shorter than this (px) is a degenerate sliver, no side.
    float min_hull_side_px = 4;

    // ---- Closed outlines ----
    // A contour is made a quad only when its bounding box is this fraction
    // of the smallest card's width wide (and the shortest side high): a
    // cheap filter with a fifth to spare, the exact test being card_outline's.
    double min_outline_width = 0.8;
    // When the best quad of the strict edges is supported this well
    // (Detection::score, 0..1), the sensitive edges' outlines, where more
    // clutter joins the card's, are not searched. An upright quad set aside
    // from the landscape ones (UprightQuads) must be as convincing: every
    // side an edge with a step across it (an upright box of a brick wall
    // is supported about 0.75).
    double convincing_score = 0.85;

    // ---- The tests of a hypothesis ----
    // At least this many of a quad's sides in view (the others beyond the
    // frame: a card cut by it); the tests judge those.
    int min_sides_in_view = 3;
    // Turned further than anyone turns a card to show it (yaw or pitch,
    // degrees).
    double max_turn_deg = 42;
    // Narrowest card (mean width over the frame's, its hidden part guessed)
    // the search takes with a side beyond the frame: a near card cut by the
    // frame is about 0.55 wide, boxes of a brick wall closed by a card's
    // edge and running off the frame measure 0.25-0.38.
    double cut_card_min_width = 0.4;
    // A side runs on past a corner when a stretch beyond it (from 0.2 to
    // 1.2 of run_on_stretch of the side past the corner) has an edge along
    // the side's line at more than run_on_share of its places; a quad with
    // more than one side running on past both corners is put together
    // from longer lines.
    float run_on_stretch = 0.15f, run_on_from = 0.2f, run_on_to = 1.2f;
    double run_on_share = 0.6;
    int max_sides_running_on = 1;
    // Every side in view shows its edge at this share of its places at
    // least, and at most one (partly under a thumb) below strong_side.
    double min_side_edge = 0.2, strong_side = 0.6;
    int max_weak_sides = 1;
    // A side steps from what lies beyond it (side_step) at clear_step of
    // its places, or at some_step when the bands either side of it are
    // unlike surfaces: a card dimmed to the brightness of a printed page
    // behind it differs from it by a few tens of levels either way along
    // one side (the page's shading), but the page's text and the card's
    // print differ (about 0.45-0.65 across such a side, where the two
    // sides of a mortar joint between brick columns measure under 0.2).
    // All sides in view but one must step, and all but one must show the
    // card's even margin inside (even_margin).
    double clear_step = 0.5, some_step = 0.25, unlike_surfaces = 0.45;
    // Print inside (inner_print): a brick, a tile or a door panel is the
    // right shape but empty inside.
    double min_inner_print = 0.06;
    // The inside unlike a ring just outside (unlike_surroundings): a patch
    // of wall or table framed by its own lines looks like the wall around it.
    double min_unlike_surroundings = 0.35;
    // Below this, a side separates nothing (unlike_across_side): the same
    // wall on both sides of a mortar joint. Cards' sides measure 0.6-1.0. A
    // card cut by the frame needs one of its two sides that run to the
    // border above it: the sides of brick columns closed by the bottom edge
    // of a card above them measure under 0.2.
    double alike_across_side = 0.25;
    // A side's share of the rank: its edges along it, times its step
    // share up to full_step (a side borrowed from the background, the next
    // row of mortar beside the card, has edges but no step).
    double full_step = 0.8;
    // The support lost per relative error of the recovered aspect: of two
    // quads on the same lines, the one nearer the card's aspect wins (the
    // hidden side of a cut card is placed by it).
    double aspect_penalty = 2;
    // A quad with an inferred side must do better than one closed by four
    // edges.
    double inferred_rank = 0.9;
    // What a quad's rank loses when none of its corners in view is a corner
    // (in proportion to those that are not). A trade: more lets a card
    // hold its rank against a box of a brick wall closed by a shadow's edge
    // across it, but a card whose thumb and palm hide most of its corners
    // then loses to a smaller quad inside it.
    double corner_weight = 0.3;
    // A card's sides stop at its corners; a quad closed by a longer edge
    // behind the card (the sheet of paper it lies on) has sides that run on
    // past its corners, with the same step across them (run_on_*). When the
    // best quad has min_ends_running_on such ends or more, a quad inside it
    // whose sides all end at their corners is preferred if its rank is
    // above the best's less run_on_weight for each of the eight ends that
    // runs on (so 2 ends: within 12.5 %). Inside means within
    // enclosed_tolerance of the best's width. The search keeps
    // `alternatives` quads at least, so that the card is among them.
    double run_on_weight = 0.5;
    int min_ends_running_on = 2;
    // A card lying in the corner of a quad closed behind it
    // (in_a_corner_closed_behind): the larger object's edges run on past
    // the card for at least behind_run_on of the quad's side (a sheet of
    // A4 under an ID-1 card reaches more than a card's length beyond it).
    float behind_run_on = 0.5f;
    // A box printed across an upright card gives way to it
    // (upright_encloses) with this many ends running on along the card's
    // sides: one, since the corner of a frame printed round the portrait,
    // next to the card's side, hides the other.
    int upright_box_min_ends_running_on = 1;
    float enclosed_tolerance = 0.05f;
    int alternatives = 3;
    // Expected corner error of a hypothesis, px: twice as much for a quad
    // with a side inferred rather than found on a line.
    float pixel_error = 3.0f, pixel_error_inferred = 6.0f;
};
constexpr SearchParams kSearch{};

// Which edges count along a line: any step across it, or only an edge that
// runs along it (its gradient within 25 degrees of the line's normal). On
// gravel or a patterned cloth some pebble's edge crosses any line with a
// step across it, at any angle; a line of mortar or a table's edge runs
// along it. along_within_noise also counts a faint edge whose gradient
// turns further only by as much as sensor noise can turn it (its part
// along the line no more than noise_gradient): the few grey levels of a
// light card's edge on a light desk, or of a washed-out camera, point
// every which way at 25 degrees, a grass blade's strong edge does not.
enum class Edges { across, along, along_within_noise };

// Whether p lies a pixel or more inside a gradient image, where the 3x3
// gradient saw the picture on every side.
bool within_gradients(const cv::Mat &g, cv::Point2f p) {
    return p.x >= 1 && p.y >= 1 && p.x <= g.cols - 2 && p.y <= g.rows - 2;
}

// The places a side from a to b is read at: 10 % to 90 % of its length,
// one every 4 px (8 to 40 of them), and its unit normal (to the left of
// a → b). nullopt for a side shorter than a pixel.
struct SidePlaces {
    cv::Point2f a, d, normal;
    int count;
    static std::optional<SidePlaces> along(cv::Point2f a, cv::Point2f b) {
        const cv::Point2f d = b - a;
        const double len = cv::norm(d);
        if (len < 1) return std::nullopt;
        return SidePlaces{a, d, cv::Point2f(float(-d.y / len), float(d.x / len)), std::clamp(int(len / 4), 8, 40)};
    }
    cv::Point2f at(int i) const { return a + d * (0.1f + 0.8f * (i + 0.5f) / count); }
};

// Fraction of places along one side (10 % to 90 % of its length) that lie on
// a strong gradient roughly perpendicular to it.
double side_support(const cv::Mat &gx, const cv::Mat &gy, cv::Point2f a, cv::Point2f b,
                    Edges edges = Edges::across) {
    const std::optional<SidePlaces> places = SidePlaces::along(a, b);
    if (!places) return 0;
    const cv::Point2f n = places->normal;
    const int samples = places->count;
    int hits = 0, inside = 0;
    for (int i = 0; i < samples; ++i) {
        const cv::Point2f p = places->at(i);
        if (!within_gradients(gx, p)) continue;  // beyond the frame
        ++inside;
        for (int k = -2; k <= 2; ++k) {
            const int x = cvRound(p.x + n.x * k), y = cvRound(p.y + n.y * k);
            if (x < 0 || y < 0 || x >= gx.cols || y >= gx.rows) continue;
            const float ex = gx.at<short>(y, x), ey = gy.at<short>(y, x);
            const float g = std::abs(ex * n.x + ey * n.y);
            const float t = ex * n.y - ey * n.x;  // the gradient's part along the line
            if (g > kSearch.side_gradient &&
                (edges == Edges::across || g * g >= kSearch.along_cos2 * (ex * ex + ey * ey) ||
                 (edges == Edges::along_within_noise && std::abs(t) <= kSearch.noise_gradient))) {
                ++hits;
                break;
            }
        }
    }
    // A side mostly beyond the frame (a card cut by it) cannot be judged.
    if (inside * 10 < samples * kSearch.side_in_frame_tenths) return -1;
    return double(hits) / inside;
}

// Whether a quad's corner is one: both sides that meet there show their
// edge close to it (corner_from to corner_to of the way along each).
bool corner_seen(const cv::Mat &gx, const cv::Mat &gy, const Quad &q, int k) {
    const cv::Point2f c = q[k], before = q[(k + 3) % 4], after = q[(k + 1) % 4];
    const float from = kSearch.corner_from, to = kSearch.corner_to;
    return side_support(gx, gy, c + (before - c) * to, c + (before - c) * from) >= kSearch.corner_edge &&
           side_support(gx, gy, c + (after - c) * from, c + (after - c) * to) >= kSearch.corner_edge;
}


// Fraction of a grid of places inside the quad (between 12 % and 88 % of
// its width and height) on a strong gradient: print, a portrait, a chip.
// A brick, a tile or a door panel is the right shape but empty inside.
// Under a lamp's glare the card's print is washed out where the bloom is:
// when saturated places are 30 % of the grid or more, and there is print
// among the others, the saturated ones count as print. (A bloom over half
// a card can leave only a handful of places of print among the hundred
// not saturated, and without this rule the card is refused and whatever
// frames it is taken instead. A saturated blank rectangle, a lit window or
// a white screen, shows no print at all and stays refused.)
double inner_print(const cv::Mat &gx, const cv::Mat &gy, const cv::Mat &small, const Quad &q, int glare_level) {
    constexpr int kCols = 24, kRows = 15;
    int hits = 0, washed_out = 0;
    for (int r = 0; r < kRows; ++r) {
        const float v = 0.12f + 0.76f * (r + 0.5f) / kRows;
        const cv::Point2f left = q[0] + (q[3] - q[0]) * v, right = q[1] + (q[2] - q[1]) * v;
        for (int c = 0; c < kCols; ++c) {
            const cv::Point2f p = left + (right - left) * (0.12f + 0.76f * (c + 0.5f) / kCols);
            const int x = cvRound(p.x), y = cvRound(p.y);
            if (x < 0 || y < 0 || x >= gx.cols || y >= gx.rows) continue;
            if (std::abs(gx.at<short>(y, x)) + std::abs(gy.at<short>(y, x)) > kSearch.edge_gradient) ++hits;
            else if (small.at<uint8_t>(y, x) >= glare_level) ++washed_out;
        }
    }
    const int readable = kCols * kRows - washed_out;
    if (washed_out * 10 >= kCols * kRows * kSearch.glare_min_tenths && hits > 0 &&
        hits * 100 >= kSearch.glare_print_percent * readable)
        hits += washed_out;
    return double(hits) / (kCols * kRows);
}

// The level of an 8-bit plane at the pixel nearest p, when p is in it.
bool level_at(const cv::Mat &plane, cv::Point2f p, int &v) {
    const int x = cvRound(p.x), y = cvRound(p.y);
    if (x < 0 || y < 0 || x >= plane.cols || y >= plane.rows) return false;
    v = plane.at<uint8_t>(y, x);
    return true;
}

// Places along a margin: luma and both colour differences (Y', Cb, Cr) on a
// strip just inside one side of a quad and on one just outside it. Outside
// luma is -1 beyond the frame.
constexpr int kMarginSamples = 16;
struct MarginStrips {
    std::array<std::array<int, kMarginSamples>, 3> in, out;
    int n = 0;
};

// A run of samples: its median, and how far from it most (70 %) lie.
struct Level {
    int median, spread;
};
Level level_of(const int *v, int n) {
    std::array<int, kMarginSamples> m;
    std::copy(v, v + n, m.begin());
    std::nth_element(m.begin(), m.begin() + n / 2, m.begin() + n);
    const int median = m[n / 2];
    for (int i = 0; i < n; ++i) m[i] = std::abs(v[i] - median);
    const int k = int(std::ceil(kSearch.even_share * n)) - 1;
    std::nth_element(m.begin(), m.begin() + k, m.begin() + n);
    return {median, m[k]};
}

// Whether a shadow's edge crosses the margin: the inside strip is two even
// stretches, up to two samples of penumbra between them, and
// - the step between them is large against their own unevenness and taken
//   within the penumbra (not a ramp across a blurred photograph), and takes
//   a visible share of the light;
// - the outside strip changes by the same ratio, over the whole stretches
//   and right at the edge (a shadow darkens card and desk alike);
// - neither strip changes colour beyond that scaling (a shadow scales luma
//   and both colour differences by one factor; an edge of the background or
//   of the print does neither).
bool crossed_by_shadow(const MarginStrips &m) {
    const int n = m.n;
    const int *in = m.in[0].data(), *out = m.out[0].data();
    const int stretch = kSearch.shadow_stretch;
    for (int j = stretch; j <= n - stretch; ++j)
        for (int gap = 0; gap <= kSearch.shadow_penumbra && j + gap <= n - stretch; ++gap) {
            const int after = j + gap, n2 = n - after;
            const Level first = level_of(in, j), second = level_of(in + after, n2);
            const int step = std::abs(second.median - first.median);
            const double ratio = (second.median + 1.0) / (first.median + 1.0);
            if (std::abs(std::log(ratio)) < kSearch.shadow_min_light) continue;
            if (std::max(first.spread, second.spread) > kSearch.even_margin_levels) continue;
            const int spread = std::max(first.spread, second.spread);
            if (step < std::max(kSearch.shadow_min_step, kSearch.shadow_step_spread * spread)) continue;
            if (std::abs(in[after] - in[j - 1]) < kSearch.shadow_edge_share * step) continue;
            auto outside_follows = [&](int from1, int count1, int count2) {
                const int o1 = level_of(out + from1, count1).median, o2 = level_of(out + after, count2).median;
                if (o1 < kSearch.shadow_min_level || o2 < kSearch.shadow_min_level) return false;
                const double change = std::log((o2 + 1.0) / (o1 + 1.0));
                return std::abs(change - std::log(ratio)) <=
                       kSearch.shadow_follow_slack + kSearch.shadow_follow_share * std::abs(std::log(ratio));
            };
            if (!outside_follows(0, j, n2) || !outside_follows(j - 3, 3, 3)) continue;
            auto keeps_colour = [&](const std::array<int, kMarginSamples> &v) {
                const int c1 = level_of(v.data(), j).median - 128, c2 = level_of(v.data() + after, n2).median - 128;
                return std::abs(c2 - ratio * c1) <= kSearch.shadow_max_hue_shift;
            };
            if (keeps_colour(m.in[1]) && keeps_colour(m.in[2]) && keeps_colour(m.out[1]) && keeps_colour(m.out[2]))
                return true;
        }
    return false;
}

// Whether the card's own margin runs along one side: the strip just inside
// it (4 % of the way in) keeps one grey level along most of its length. A
// quad that joins the card's edges to a line of the background, or boxes of
// a brick wall, has something else inside each stretch. A shadow across the
// card (a phone or a person between the lamp and the desk) splits the
// margin into two even stretches at different levels: crossed_by_shadow.
bool even_margin(const cv::Mat &small, const cv::Mat small_chroma[2], const Quad &q, int side) {
    const cv::Point2f centre = (q[0] + q[1] + q[2] + q[3]) * 0.25f;
    const bool colour = !small_chroma[0].empty();
    const cv::Point2f a0 = q[side], b0 = q[(side + 1) % 4];
    const cv::Point2f d = b0 - a0;
    const float len = std::max(1.f, float(cv::norm(d)));
    cv::Point2f out_n(d.y / len, -d.x / len);
    if ((centre - a0).dot(out_n) > 0) out_n = -out_n;
    const float reach = std::max(kSearch.band_reach_px, kSearch.band_reach * float(min_side(q)));
    // Two depths (4 % and 8 % of the way in): a card may have a border line
    // printed a couple of millimetres inside its edge, which one strip runs
    // along or across; the card's own margin is even at the other.
    for (float depth : {0.08f, 0.04f}) {
        const cv::Point2f a = a0 + (centre - a0) * depth;
        const cv::Point2f b = b0 + (centre - b0) * depth;
        MarginStrips m;
        for (int i = 0; i < kMarginSamples; ++i) {
            const float t = 0.1f + 0.8f * (i + 0.5f) / kMarginSamples;
            const cv::Point2f pi = a + (b - a) * t, po = a0 + d * t + out_n * reach;
            const int k = m.n;
            if (!level_at(small, pi, m.in[0][k])) continue;
            if (!level_at(small, po, m.out[0][k])) m.out[0][k] = -1;
            for (int c = 1; c < 3; ++c) {
                m.in[c][k] = m.out[c][k] = 128;
                if (!colour) continue;
                level_at(small_chroma[c - 1], pi, m.in[c][k]);
                level_at(small_chroma[c - 1], po, m.out[c][k]);
            }
            ++m.n;
        }
        if (m.n < kMarginSamples / 2) continue;
        if (level_of(m.in[0].data(), m.n).spread <= kSearch.even_margin_levels || crossed_by_shadow(m)) return true;
    }
    return false;
}

// Fraction of places along one side where what lies just inside differs
// from what lies just outside, in brightness or colour: the card is a
// different thing from what is behind it. The mortar between bricks, a
// groove or a line drawn on a wall has the same surface on both sides.
double side_step(const cv::Mat &small, const cv::Mat small_chroma[2], const Quad &q, int side) {
    constexpr int kSamples = 16;
    const cv::Point2f a = q[side], d = q[(side + 1) % 4] - a, n = -outward_normal(q, side);
    const float reach = std::max(kSearch.band_reach_px, kSearch.band_reach * float(min_side(q)));
    int steps = 0, total = 0;
    for (int i = 0; i < kSamples; ++i) {
        const cv::Point2f p = a + d * (0.1f + 0.8f * (i + 0.5f) / kSamples);
        const cv::Point2f in = p + n * reach, out = p - n * reach;
        int yi, yo;
        if (!level_at(small, in, yi) || !level_at(small, out, yo)) continue;
        ++total;
        int step = std::abs(yi - yo);
        for (int c = 0; c < 2 && !small_chroma[c].empty(); ++c) {
            int ci, co;
            if (level_at(small_chroma[c], in, ci) && level_at(small_chroma[c], out, co)) step = std::max(step, 2 * std::abs(ci - co));
        }
        steps += step >= kSearch.min_step;
    }
    // Along the frame's border there is no outside to compare with: the
    // side is not judged (-1).
    if (total < kSamples / 2) return -1;
    return double(steps) / total;
}

// Coarse brightness-and-colour histogram of places in the small image,
// and the Bhattacharyya distance between two of them (0 alike, 1 disjoint).
class ColourHistogram {
public:
    ColourHistogram(const cv::Mat &small, const cv::Mat small_chroma[2]) : small_(small), chroma_(small_chroma) {}
    // (Nothing counted outside the image.)
    void add(cv::Point2f p) {
        const int x = cvRound(p.x), y = cvRound(p.y);
        if (x < 0 || y < 0 || x >= small_.cols || y >= small_.rows) return;
        int b = small_.at<uint8_t>(y, x) * kYBins / 256;
        if (!chroma_[0].empty()) {
            // Colour differences rarely leave 128 +- 64: bins over that span.
            const int u = std::clamp((chroma_[0].at<uint8_t>(y, x) - 64) * kCBins / 128, 0, kCBins - 1);
            const int v = std::clamp((chroma_[1].at<uint8_t>(y, x) - 64) * kCBins / 128, 0, kCBins - 1);
            b = (b * kCBins + u) * kCBins + v;
        }
        bins_[b] += 1;
        count_ += 1;
    }
    float count() const { return count_; }
    double distance(const ColourHistogram &other) const {
        double bc = 0;
        for (int i = 0; i < kBins; ++i) bc += std::sqrt(double(bins_[i]) / count_ * double(other.bins_[i]) / other.count_);
        return std::sqrt(std::max(0.0, 1.0 - bc));
    }

private:
    static constexpr int kYBins = 8, kCBins = 4, kBins = kYBins * kCBins * kCBins;
    const cv::Mat &small_;
    const cv::Mat *chroma_;
    std::array<float, kBins> bins_{};
    float count_ = 0;
};

// How unlike its surroundings the inside of the quad is: the Bhattacharyya
// distance between coarse brightness-and-colour histograms of a grid of
// places inside and of a ring of places just outside. A patch of wall or
// table framed by its own lines looks like the wall around it; a card does
// not, whatever its design.
double unlike_surroundings(const cv::Mat &small, const cv::Mat small_chroma[2], const Quad &q) {
    ColourHistogram inside(small, small_chroma), outside(small, small_chroma);
    const cv::Point2f centre = (q[0] + q[1] + q[2] + q[3]) * 0.25f;
    constexpr int kSteps = 20;
    for (int k = 0; k < 4; ++k) {
        const cv::Point2f a = q[k], b = q[(k + 1) % 4];
        for (int i = 0; i < kSteps; ++i) {
            const cv::Point2f p = a + (b - a) * ((i + 0.5f) / kSteps);
            // Rings inside (a third and two thirds of the way in) and one
            // outside (a sixth of the way out, beyond a hand's edge blur).
            for (float t : {0.33f, 0.66f}) inside.add(p + (centre - p) * t);
            outside.add(p + (p - centre) * 0.18f);
        }
    }
    // Nothing around it to compare: not judged.
    if (inside.count() < kSearch.min_ring_places || outside.count() < kSearch.min_ring_places) return 1.0;
    return inside.distance(outside);
}

// Whether one side separates two different things: the distance between
// the histograms of bands along it inside and outside, each band a fifth
// of the quad's shorter side deep, sampled at four depths so that a
// periodic background (the columns of a brick wall, a sixth of a card
// apart) is taken in whole on both sides rather than at one phase of it.
double unlike_across_side(const cv::Mat &small, const cv::Mat small_chroma[2], const Quad &q, int side) {
    ColourHistogram inside(small, small_chroma), outside(small, small_chroma);
    const cv::Point2f a = q[side], d = q[(side + 1) % 4] - a, n = -outward_normal(q, side);
    const float depth = 0.2f * float(min_side(q));
    constexpr int kSteps = 24;
    for (int i = 0; i < kSteps; ++i) {
        const cv::Point2f p = a + d * ((i + 0.5f) / kSteps);
        for (float t : {0.25f, 0.5f, 0.75f, 1.0f}) {
            inside.add(p + n * (t * depth));
            outside.add(p - n * (t * depth));
        }
    }
    // Along the frame's border: not judged.
    if (inside.count() < kSearch.min_band_places || outside.count() < kSearch.min_band_places) return 1.0;
    return inside.distance(outside);
}

// The four sides of a contour that is a (rounded) quadrilateral: the hull
// simplified to four vertices says roughly where the sides are; lines
// fitted to the contour points along the middle of each side give the sharp
// corners (hull vertices sit inside the rounded corners).
std::optional<Quad> quad_from_contour(const std::vector<cv::Point> &contour) {
    std::vector<cv::Point> hull, poly;
    cv::convexHull(contour, hull);
    const double perimeter = cv::arcLength(hull, true);
    for (double eps : kSearch.hull_tolerances) {
        cv::approxPolyDP(hull, poly, eps * perimeter, true);
        if (poly.size() <= 4) break;
    }
    if (poly.size() != 4) return std::nullopt;
    std::array<cv::Vec4f, 4> lines;
    std::vector<cv::Point2f> on_side;
    std::vector<float> weights;
    for (int s = 0; s < 4; ++s) {
        const cv::Point2f a(poly[s]), b(poly[(s + 1) % 4]);
        const cv::Point2f d = b - a;
        const float len2 = d.dot(d);
        if (len2 < kSearch.min_hull_side_px * kSearch.min_hull_side_px) return std::nullopt;
        const float len = std::sqrt(len2);
        on_side.clear();
        for (const auto &p : contour) {
            const cv::Point2f q = cv::Point2f(p) - a;
            const float t = q.dot(d) / len2;
            if (t < kSearch.side_middle_from || t > kSearch.side_middle_to) continue;
            if (std::abs(q.x * d.y - q.y * d.x) / len > kSearch.side_fit_px) continue;
            on_side.push_back(cv::Point2f(p));
        }
        lines[s] = cv::Vec4f(d.x / len, d.y / len, a.x, a.y);
        if (on_side.size() >= kSearch.side_fit_points)
            lines[s] = refit_line_huber(on_side.data(), int(on_side.size()), lines[s], weights);
    }
    std::array<cv::Point2f, 4> pts;
    for (int i = 0; i < 4; ++i) {
        auto c = intersect(lines[(i + 3) % 4], lines[i]);
        if (!c || cv::norm(*c - cv::Point2f(poly[i])) > kSearch.corner_shift * perimeter) return std::nullopt;
        pts[i] = *c;
    }
    return order_cyclic(pts);
}

// A straight edge: the points p(t) = origin + t * dir for t in [t0, t1].
struct EdgeLine {
    cv::Point2f dir, normal, origin;
    float t0 = 0, t1 = 0;
    float length() const { return t1 - t0; }
    cv::Point2f at(float t) const { return origin + dir * t; }
    float along(cv::Point2f p) const { return (p - origin).dot(dir); }
    float across(cv::Point2f p) const { return (p - origin).dot(normal); }
};

EdgeLine line_between(cv::Point2f a, cv::Point2f b) {
    EdgeLine l;
    const cv::Point2f d = b - a;
    const float len = std::max(1e-6f, float(cv::norm(d)));
    l.dir = d / len;
    l.normal = cv::Point2f(-l.dir.y, l.dir.x);
    l.origin = a;
    l.t0 = 0;
    l.t1 = len;
    return l;
}

std::optional<cv::Point2f> meet(const EdgeLine &a, const EdgeLine &b) {
    return intersect(cv::Vec4f(a.dir.x, a.dir.y, a.origin.x, a.origin.y),
                     cv::Vec4f(b.dir.x, b.dir.y, b.origin.x, b.origin.y));
}

// Straight stretches of the edge map's contours, longer than min_length.
std::vector<EdgeLine> straight_segments(const std::vector<std::vector<cv::Point>> &contours, float min_length) {
    std::vector<EdgeLine> out;
    std::vector<cv::Point> poly;
    for (const auto &c : contours) {
        if (c.size() < size_t(min_length)) continue;
        cv::approxPolyDP(c, poly, kSearch.segment_tolerance_px, false);
        for (size_t i = 0; i + 1 < poly.size(); ++i) {
            const cv::Point2f a(poly[i]), b(poly[i + 1]);
            if (cv::norm(b - a) >= min_length) out.push_back(line_between(a, b));
        }
    }
    return out;
}

// Collinear segments merged into lines: a side that a thumb interrupts, or
// that the contour tracing split, becomes one line again.
std::vector<EdgeLine> merge_collinear(std::vector<EdgeLine> segs, float max_gap) {
    std::sort(segs.begin(), segs.end(), [](const EdgeLine &a, const EdgeLine &b) { return a.length() > b.length(); });
    std::vector<EdgeLine> lines;
    const float cos_tol = std::cos(kSearch.merge_max_turn_deg * float(kPi) / 180.f);
    for (const auto &s : segs) {
        const cv::Point2f a = s.at(s.t0), b = s.at(s.t1);
        bool merged = false;
        for (auto &l : lines) {
            if (std::abs(l.dir.dot(s.dir)) < cos_tol) continue;
            const float off = kSearch.merge_offset_px;
            if (std::abs(l.across(a)) > off || std::abs(l.across(b)) > off) continue;
            float ta = l.along(a), tb = l.along(b);
            if (ta > tb) std::swap(ta, tb);
            const float gap = std::max(ta - l.t1, l.t0 - tb);
            if (gap > max_gap) continue;
            l.t0 = std::min(l.t0, ta);
            l.t1 = std::max(l.t1, tb);
            merged = true;
            break;
        }
        if (!merged) lines.push_back(s);
    }
    return lines;
}

// Lines joined across a gap as long as they are together, where one
// straight line passes within join_fit_px of all four ends: a thumb and a palm
// over a side leave its two ends further apart than lines are merged. New
// lines only (the pieces stay); for a search that found nothing at all.
std::vector<EdgeLine> joined_across_gaps(const std::vector<EdgeLine> &lines, float min_gap) {
    std::vector<EdgeLine> joined;
    const float cos_tol = std::cos(kSearch.merge_max_turn_deg * float(kPi) / 180.f);
    for (size_t i = 0; i < lines.size(); ++i)
        for (size_t j = i + 1; j < lines.size(); ++j) {
            const EdgeLine &a = lines[i], &b = lines[j];
            if (std::abs(a.dir.dot(b.dir)) < cos_tol) continue;
            const cv::Point2f ends[4] = {a.at(a.t0), a.at(a.t1), b.at(b.t0), b.at(b.t1)};
            const float off = kSearch.join_offset_px;
            if (std::abs(a.across(ends[2])) > off || std::abs(a.across(ends[3])) > off) continue;
            // The line through the two pieces, each weighing as the points
            // along it: a piece of length L has the moments of two points
            // L / sqrt(12) either side of its middle, each weighing L / 2.
            cv::Point2f points[4];
            float weights[4];
            for (int k = 0; k < 2; ++k) {
                const EdgeLine &l = k ? b : a;
                const cv::Point2f middle = l.at(0.5f * (l.t0 + l.t1)), half = l.dir * (l.length() / std::sqrt(12.f));
                points[2 * k] = middle - half;
                points[2 * k + 1] = middle + half;
                weights[2 * k] = weights[2 * k + 1] = 0.5f * l.length();
            }
            cv::Vec4f through;
            if (!fit_line_l2(points, weights, 4, through)) continue;
            EdgeLine fit;
            fit.dir = cv::Point2f(through[0], through[1]);
            fit.normal = cv::Point2f(-fit.dir.y, fit.dir.x);
            fit.origin = cv::Point2f(through[2], through[3]);
            const auto off_fit = [&](cv::Point2f p) { return std::abs(fit.across(p)) > kSearch.join_fit_px; };
            if (std::any_of(ends, ends + 4, off_fit)) continue;
            float a0 = fit.along(ends[0]), a1 = fit.along(ends[1]), b0 = fit.along(ends[2]), b1 = fit.along(ends[3]);
            if (a0 > a1) std::swap(a0, a1);
            if (b0 > b1) std::swap(b0, b1);
            const float gap = std::max(b0 - a1, a0 - b1);
            if (gap <= min_gap || gap > (a1 - a0) + (b1 - b0)) continue;
            fit.t0 = std::min(a0, b0);
            fit.t1 = std::max(a1, b1);
            joined.push_back(fit);
        }
    return joined;
}

// Where line i meets line j near one end of each.
struct Corner {
    int i, j;        // lines
    bool i_end, j_end;  // false: near t0, true: near t1
    cv::Point2f at;
};

// The corners among the lines; with first_new, only those of a line from
// there on (the caller has the others).
std::vector<Corner> find_corners(const std::vector<EdgeLine> &lines, size_t first_new = 0) {
    std::vector<Corner> corners;
    const float max_cos = std::cos(kSearch.corner_min_angle_deg * float(kPi) / 180.f);
    auto near_end = [](const EdgeLine &l, float t, bool &end) {
        const float tol = kSearch.corner_end_share * l.length() + kSearch.corner_end_px;
        const float d0 = std::abs(t - l.t0), d1 = std::abs(t - l.t1);
        end = d1 < d0;
        return std::min(d0, d1) <= tol;
    };
    // x inside the line's extent: the corner's end of it is the end on the
    // side the other line's body lies... taken as the end nearer to x; the
    // leg then runs from x to the far end.
    auto within = [](const EdgeLine &l, float t, bool &end, const EdgeLine &, cv::Point2f) {
        if (t < l.t0 - kSearch.corner_end_px || t > l.t1 + kSearch.corner_end_px) return false;
        end = (t - l.t0) > (l.t1 - t);
        return true;
    };
    for (size_t i = 0; i < lines.size(); ++i)
        for (size_t j = std::max(i + 1, first_new); j < lines.size(); ++j) {
            if (std::abs(lines[i].dir.dot(lines[j].dir)) > max_cos) continue;
            auto x = meet(lines[i], lines[j]);
            if (!x) continue;
            Corner c{int(i), int(j), false, false, *x};
            // An L, or a T: a side whose line merged with a collinear edge
            // of the background (a table's edge, a row of mortar) runs on
            // past the corner, the other side still ends there.
            const bool i_near = near_end(lines[i], lines[i].along(*x), c.i_end);
            const bool j_near = near_end(lines[j], lines[j].along(*x), c.j_end);
            if (!i_near && !(j_near && within(lines[i], lines[i].along(*x), c.i_end, lines[j], *x))) continue;
            if (!j_near && !(i_near && within(lines[j], lines[j].along(*x), c.j_end, lines[i], *x))) continue;
            corners.push_back(c);
        }
    return corners;
}

// Three sides of a card: the base b, the legs a and c leaving it at its two
// corners, and where the legs' edges end.
struct ThreeSides {
    int a, b, c;
    cv::Point2f ca, cc;  // the corners ab and cb
    cv::Point2f fa, fc;  // the far ends of a and c
};

// A U's legs measured: their lengths (a, c) and the base's (b), their
// directions away from the base, the longer leg's length (reach), and how
// far along the legs, in reaches, a card with this base could end.
struct Legs {
    float la, lc, lb;
    cv::Point2f ua, uc;
    float reach, card_long;
};
// Both legs may end early (a cup in front of one side, the frame's border
// across the other, a light desk where the card's edge fades): the fourth
// side may lie beyond their ends, as far as a card with this base could be
// long. nullopt for a U too small to be a card.
std::optional<Legs> legs_of(const ThreeSides &u) {
    Legs l;
    l.la = float(cv::norm(u.fa - u.ca));
    l.lc = float(cv::norm(u.fc - u.cc));
    l.lb = float(cv::norm(u.cc - u.ca));
    if (std::min({l.la, l.lc, l.lb}) < kSearch.min_u_side_px) return std::nullopt;
    l.ua = (u.fa - u.ca) / l.la;
    l.uc = (u.fc - u.cc) / l.lc;
    l.reach = std::max(l.la, l.lc);
    const float card_fits = kSearch.fourth_aspect_slack * l.lb * float(kCardAspect) / l.reach;
    l.card_long = std::min(kSearch.fourth_farthest, std::max(kSearch.fourth_at_ends, card_fits));
    return l;
}

// The quad of the U closed lambda reaches along both legs.
Quad closed_at(const ThreeSides &u, const Legs &l, float lambda) {
    return order_cyclic({u.ca, u.cc, u.cc + l.uc * (lambda * l.reach), u.ca + l.ua * (lambda * l.reach)});
}

// A line roughly parallel to the base that crosses both legs closes the U
// near their far ends; unless only those are wanted, also beyond them,
// where it lies between the legs (even when a line near their ends closes
// it: that one may be print). The two cannot both hold for one line.
// Returns whether a line closes the U at its legs' ends.
bool close_by_lines(const std::vector<EdgeLine> &lines, const std::vector<int> &across_legs, const ThreeSides &u,
                    const Legs &l, FourthSide fourth, std::vector<std::pair<Quad, bool>> &out) {
    bool closed = false;
    for (const int d : across_legs) {
        if (d == u.b || d == u.a || d == u.c) continue;
        const EdgeLine &side = lines[size_t(d)];
        auto xa = meet(side, lines[u.a]), xc = meet(side, lines[u.c]);
        if (!xa || !xc) continue;
        if (cv::norm(*xa - u.fa) <= kSearch.closes_at_end_share * l.la + kSearch.corner_end_px &&
            cv::norm(*xc - u.fc) <= kSearch.closes_at_end_share * l.lc + kSearch.corner_end_px) {
            out.push_back({order_cyclic({u.ca, u.cc, *xc, *xa}), false});
            closed = true;
            continue;
        }
        if (fourth == FourthSide::at_ends) continue;
        const float ta = (*xa - u.ca).dot(l.ua), tc = (*xc - u.cc).dot(l.uc);
        if (std::min(ta, tc) < kSearch.fourth_nearest * l.reach || std::max(ta, tc) > l.card_long * l.reach) continue;
        if (ta <= kSearch.fourth_at_ends * l.la + kSearch.corner_end_px &&
            tc <= kSearch.fourth_at_ends * l.lc + kSearch.corner_end_px)
            continue;  // not beyond the ends
        const float s0 = std::min(side.along(*xa), side.along(*xc)), s1 = std::max(side.along(*xa), side.along(*xc));
        if (std::min(s1, side.t1) - std::max(s0, side.t0) < kSearch.fourth_line_overlap * (s1 - s0)) continue;
        out.push_back({order_cyclic({u.ca, u.cc, *xc, *xa}), true});
    }
    return closed;
}

// Both legs run into the frame's border: a card cut by it (held too near,
// or half out of view). Its hidden side lies beyond; the card's shape
// decides where (consider()). Both legs reach the same distance past the
// base (the border may cut them at different lengths: a rolled card, or a
// hand over one near the border), so that the hidden side runs across them
// as the base does.
void close_beyond_border(const cv::Mat &gx, const ThreeSides &u, const Legs &l,
                         std::vector<std::pair<Quad, bool>> &out) {
    auto at_border = [&](cv::Point2f p) {
        const int m = kSearch.border_px;
        return p.x < m || p.y < m || p.x > gx.cols - 1 - m || p.y > gx.rows - 1 - m;
    };
    if (!at_border(u.fa) || !at_border(u.fc)) return;
    for (int step = 1; step <= kSearch.cut_steps; ++step)
        out.push_back({closed_at(u, l, 1.0f + kSearch.cut_step * float(step)), true});
}

// Legs that end inside the frame (a light card's edge fading against a
// light wall, a hand over it) of a U too near to be a whole card: where a
// card with this base would end lies beyond the frame's border. Its hidden
// side is tried there, both ways round (the base a long or a short side),
// at a few lengths about the card's shape; the tests then judge the cut
// card as they judge one whose legs reach the border.
void close_beyond_border_by_shape(const cv::Mat &gx, const ThreeSides &u, const Legs &l,
                                  std::vector<std::pair<Quad, bool>> &out) {
    auto in_frame = [&](cv::Point2f p) { return inside_frame(p, gx.size()); };
    for (const float aspect : {float(kCardAspect), 1.0f / float(kCardAspect)})
        for (const float f : kSearch.cut_shape_lengths) {
            const Quad q = closed_at(u, l, l.lb / aspect * f / l.reach);
            // Beyond the border: no corner in the frame but the U's own two.
            if (std::count_if(q.begin(), q.end(), in_frame) > 2) continue;
            // (A cut card narrower than cut_card_min_width is refused
            // anyway; a brick wall has hundreds of such U's.)
            if (mean_width(q) >= kSearch.cut_card_min_width * float(gx.cols)) out.push_back({q, true});
        }
}

// Open U: the fourth side is where, along the legs (up to longest reaches),
// a line across them finds the most edge. The legs' own ends say little: a
// leg ends early under a thumb, or its line runs on into the background;
// they close the U too.
void close_by_scan(const cv::Mat &gx, const cv::Mat &gy, const ThreeSides &u, const Legs &l, float longest,
                   std::vector<std::pair<Quad, bool>> &out) {
    const int steps = int(std::lround((longest - kSearch.fourth_nearest) / kSearch.fourth_scan_step));
    float best_support = 0, best_lambda = 0;
    for (int step = 0; step <= steps; ++step) {
        const float lambda = kSearch.fourth_nearest + kSearch.fourth_scan_step * float(step);
        const cv::Point2f pa = u.ca + l.ua * (lambda * l.reach), pc = u.cc + l.uc * (lambda * l.reach);
        const float support = float(side_support(gx, gy, pa, pc));
        if (support > best_support + kSearch.fourth_scan_gain) {
            best_support = support;
            best_lambda = lambda;
        }
    }
    if (best_support >= kSearch.fourth_scan_support) out.push_back({closed_at(u, l, best_lambda), true});
    out.push_back({order_cyclic({u.ca, u.cc, u.fc, u.fa}), true});
}

// A U whose legs fade before the card's corners (a light card before a
// pale wall or a white shirt: only the stretches of its sides against
// something darker are lines) closed where a card with this base ends,
// front-on, both ways round (the base a long or a short side). Only beyond
// both legs' ends, where some edge, however faint, runs along the side it
// puts there (the card's edge before the face or the jacket), and in view,
// off the border. Such a quad is weighed
// apart from the others (detect_card's closed_by_shape): it is a guess
// until it holds at full size.
void close_by_shape(const cv::Mat &gx, const cv::Mat &gy, const ThreeSides &u, const Legs &l,
                    std::vector<std::pair<Quad, bool>> &out) {
    for (const float aspect : {float(kCardAspect), 1.0f / float(kCardAspect)}) {
        const float lambda = l.lb / aspect / l.reach;
        if (lambda < kSearch.shape_min_reach || lambda > l.card_long) continue;
        const Quad q = closed_at(u, l, lambda);
        const float m = kSearch.shape_border_share * float(gx.cols);
        const cv::Size inner(gx.cols - int(2 * m), gx.rows - int(2 * m));
        if (!inside_frame(q[2] - cv::Point2f(m, m), inner) || !inside_frame(q[3] - cv::Point2f(m, m), inner)) continue;
        if (side_support(gx, gy, q[2], q[3], Edges::along_within_noise) < kSearch.fourth_scan_support) continue;
        out.push_back({q, true});
    }
}

// The quads that may close three sides: a line found among the others (of
// across_legs, those that run roughly along the base), or a fourth side
// inferred (beyond the frame's border for a card cut by it, and, when no
// line closes the U at its legs' ends, where a line across the legs finds
// edge, or at the legs' ends). A cut card's hidden side is tried even when
// a line closes the U inside the frame: that may be a line printed on it.
void close_three_sides(const cv::Mat &gx, const cv::Mat &gy, const std::vector<EdgeLine> &lines,
                       const std::vector<int> &across_legs, const ThreeSides &u, FourthSide fourth,
                       std::vector<std::pair<Quad, bool>> &out, std::vector<std::pair<Quad, bool>> *by_shape) {
    const std::optional<Legs> legs = legs_of(u);
    if (!legs) return;
    const bool closed = close_by_lines(lines, across_legs, u, *legs, fourth, out);
    close_beyond_border(gx, u, *legs, out);
    if (by_shape) close_by_shape(gx, gy, u, *legs, *by_shape);
    if (closed) return;
    const float longest = fourth == FourthSide::scanned_beyond ? legs->card_long : kSearch.fourth_at_ends;
    close_by_scan(gx, gy, u, *legs, longest, out);
}

// Calls visit(u, across_legs) for every U of the lines (two corners
// sharing a line, legs on the same side of it), with the lines that may
// close it (those that run roughly along its base, within 37 degrees);
// with first_new, only for the U's with a line from there on (the lines
// added by joining pieces, search_joined_lines).
template <typename Visit>
void for_each_u(const std::vector<EdgeLine> &lines, const std::vector<Corner> &corners, size_t first_new,
                Visit visit) {
    // Corners grouped by the line they lie on and the end of it.
    std::vector<std::array<std::vector<std::pair<int, const Corner *>>, 2>> at(lines.size());
    for (const auto &c : corners) {
        at[c.i][c.i_end].push_back({c.j, &c});
        at[c.j][c.j_end].push_back({c.i, &c});
    }
    auto far_end = [&](int line, const Corner &c) {
        const EdgeLine &l = lines[line];
        const bool end = c.i == line ? c.i_end : c.j_end;
        return end ? l.at(l.t0) : l.at(l.t1);
    };
    // Listed once per base rather than sought for every U.
    std::vector<int> across_legs;
    for (size_t b = 0; b < lines.size(); ++b) {
        const EdgeLine &base = lines[b];
        across_legs.clear();
        if (!at[b][0].empty() && !at[b][1].empty())
            for (size_t d = 0; d < lines.size(); ++d)
                if (std::abs(lines[d].dir.dot(base.dir)) >= kSearch.closing_line_min_cos) across_legs.push_back(int(d));
        for (const auto &[a, ca] : at[b][0])
            for (const auto &[c, cc] : at[b][1]) {
                if (a == c) continue;
                if (std::max({size_t(a), b, size_t(c)}) < first_new) continue;  // no line of those asked for
                const ThreeSides u{a, int(b), c, ca->at, cc->at, far_end(a, *ca), far_end(c, *cc)};
                // Both legs on the same side of the base, pointing away from it.
                const float sa = base.across(u.fa) - base.across(u.ca), sc = base.across(u.fc) - base.across(u.cc);
                if (sa * sc > 0) visit(u, across_legs);
            }
    }
}

// Every U of the lines closed into quads (close_three_sides).
void quads_from_corners(const cv::Mat &gx, const cv::Mat &gy, const std::vector<EdgeLine> &lines,
                        const std::vector<Corner> &corners, FourthSide fourth,
                        std::vector<std::pair<Quad, bool>> &out, size_t first_new = 0,
                        std::vector<std::pair<Quad, bool>> *by_shape = nullptr) {
    for_each_u(lines, corners, first_new, [&](const ThreeSides &u, const std::vector<int> &across_legs) {
        close_three_sides(gx, gy, lines, across_legs, u, fourth, out, by_shape);
    });
}

// Every U of the lines closed beyond the frame's border where the card's
// shape puts its hidden side (close_beyond_border_by_shape).
void quads_cut_by_shape(const cv::Mat &gx, const std::vector<EdgeLine> &lines, const std::vector<Corner> &corners,
                        std::vector<std::pair<Quad, bool>> &out) {
    for_each_u(lines, corners, 0, [&](const ThreeSides &u, const std::vector<int> &) {
        if (const auto legs = legs_of(u)) close_beyond_border_by_shape(gx, u, *legs, out);
    });
}

// Sobel gradients of the small image where each pixel takes the plane
// (luma, or a colour difference) with the strongest step, so an edge
// between two colours of one brightness is an edge.
void colour_gradients(const cv::Mat &small_luma, const Chroma &chroma, cv::Rect roi, cv::Mat &gx, cv::Mat &gy,
                      cv::Mat small_chroma[2]) {
    cv::Sobel(small_luma, gx, CV_16S, 1, 0, 3);
    cv::Sobel(small_luma, gy, CV_16S, 0, 1, 3);
    if (chroma.empty()) return;
    const cv::Rect half_roi(roi.x / 2, roi.y / 2, std::max(1, roi.width / 2), std::max(1, roi.height / 2));
    const cv::Rect r = half_roi & cv::Rect(0, 0, chroma.u.cols, chroma.u.rows);
    const cv::Mat planes[2] = {chroma.u(r), chroma.v(r)};
    cv::Mat cx, cy;
    for (int c = 0; c < 2; ++c) {
        cv::Mat &plane = small_chroma[c];
        cv::resize(planes[c], plane, small_luma.size(), 0, 0, cv::INTER_AREA);
        cv::GaussianBlur(plane, plane, cv::Size(3, 3), 0);
        cv::Sobel(plane, cx, CV_16S, 1, 0, 3);
        cv::Sobel(plane, cy, CV_16S, 0, 1, 3);
        // Colour differences span about half the levels of luma for the
        // same visual step: doubled, they compete on equal terms. (A 3x3
        // Sobel of 8-bit levels is at most 1020 either way, so the doubled
        // values and their sums fit in 16 bits; the loop is written without
        // a branch so that it is vectorised, since it runs over every pixel
        // of every search.)
        for (int y = 0; y < gx.rows; ++y) {
            short *lx = gx.ptr<short>(y), *ly = gy.ptr<short>(y);
            const short *px = cx.ptr<short>(y), *py = cy.ptr<short>(y);
            for (int x = 0; x < gx.cols; ++x) {
                const short ax = short(2 * px[x]), ay = short(2 * py[x]);
                const bool colour = std::abs(ax) + std::abs(ay) > std::abs(lx[x]) + std::abs(ly[x]);
                lx[x] = colour ? ax : lx[x];
                ly[x] = colour ? ay : ly[x];
            }
        }
    }
}


// What the tests of one search read: the downscaled image, its gradients
// and colour planes, how its pixels map back to the full frame, and the
// sizes of card it takes.
struct SearchImage {
    cv::Mat small, gx, gy;
    cv::Mat chroma[2];  // the two colour-difference planes (empty for grey input)
    cv::Mat more_lines;  // a second image whose edges also give lines (Print), else empty
    int glare_level = 255;
    cv::Size full;
    cv::Point2f offset;  // where the searched region starts in the frame
    float inv = 1;       // full-frame pixels per small-image pixel
    double focal_px = 0;
    // Smallest card worth finding, and the largest quad (small-image pixels).
    double min_width = 0, min_side = 0, max_area = 0;
};

// The region roi of the frame at scale (area-averaged), a copy.
cv::Mat downscaled(const cv::Mat &luma, cv::Rect roi, double scale) {
    if (scale >= 1.0) return luma(roi).clone();
    cv::Mat small;
    cv::resize(luma(roi), small, cv::Size(), scale, scale, cv::INTER_AREA);
    return small;
}

// small with every dark stroke narrower than print_close_px filled with
// the paper round it (a grey-level closing).
cv::Mat print_closed_over(const cv::Mat &small) {
    const int k = kSearch.print_close_px;
    cv::Mat closed;
    cv::morphologyEx(small, closed, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(k, k)));
    return closed;
}

// The region roi of the frame downscaled by scale, lightly blurred, with
// its gradients (colour_gradients). Through the print (Print), the image
// with its print closed over (closed before the blur, which would widen
// the strokes) is the one searched or the one that gives more lines.
SearchImage search_image(const cv::Mat &luma, const Chroma &chroma, cv::Rect roi, double scale, double focal_px,
                         int glare_level, Print print) {
    SearchImage im;
    im.small = downscaled(luma, roi, scale);
    cv::Mat closed;
    if (print != Print::as_is) {
        closed = print_closed_over(im.small);
        cv::GaussianBlur(closed, closed, cv::Size(3, 3), 0);
    }
    cv::GaussianBlur(im.small, im.small, cv::Size(3, 3), 0);
    if (print == Print::lines_through) im.more_lines = closed;
    if (print == Print::closed_over) {
        im.more_lines = im.small;
        im.small = closed;
    }
    colour_gradients(im.small, chroma, roi, im.gx, im.gy, im.chroma);
    im.glare_level = glare_level;
    im.full = cv::Size(luma.cols, luma.rows);
    im.offset = cv::Point2f(float(roi.x), float(roi.y));
    im.inv = float(1.0 / scale);
    im.focal_px = focal_px;
    im.min_width = kSearch.min_card_width * im.full.width * scale;
    im.min_side = std::max(kSearch.min_side_px, im.min_width / kCardAspect * kSearch.min_side_of_height);
    im.max_area = kSearch.max_quad_area * double(im.small.cols) * im.small.rows;
    return im;
}

// Whether the outline (q in the small image, fq the same in the frame) can
// be a card held up to be shown: convex, not too small, within the image,
// and the image of an ID-1 card for this camera.
bool card_outline(const SearchImage &im, const Quad &q, const Quad &fq) {
    if (!is_convex(q) || min_side(q) < im.min_side) return false;
    if (mean_width(q) < im.min_width) return false;
    if (quad_area(q) > im.max_area) return false;
    return card_shaped(fq, im.full, im.focal_px);
}

// Whether a card's outline fq is turned less than anyone turns a card.
bool turned_as_people_turn(const SearchImage &im, const Quad &fq) {
    const Pose pose = pose_from_quad(fq, im.full, im.focal_px);
    return pose.ok && std::abs(pose.yaw) <= kSearch.max_turn_deg && std::abs(pose.pitch) <= kSearch.max_turn_deg;
}

// Each side's edge support (side_support; -1 for a side mostly beyond
// the frame, which the tests leave out), and how many are in view.
struct SideEdges {
    std::array<double, 4> support;
    std::array<bool, 4> seen;
    int visible = 0;
};
SideEdges side_edges(const SearchImage &im, const Quad &q) {
    SideEdges e;
    for (int k = 0; k < 4; ++k) {
        e.support[k] = side_support(im.gx, im.gy, q[k], q[(k + 1) % 4]);
        e.seen[k] = e.support[k] >= 0;
        e.visible += e.seen[k];
    }
    return e;
}

// The two stretches of side k's line past its corners (from run_on_from
// to run_on_to of run_on_stretch of the side beyond each), and the far end
// of each.
struct RunOnStretch {
    cv::Point2f from, to, outer;
};
std::array<RunOnStretch, 2> run_on_stretches(const Quad &q, int k) {
    const cv::Point2f a = q[k], b = q[(k + 1) % 4], d = (b - a) * kSearch.run_on_stretch;
    const cv::Point2f before = a - d * kSearch.run_on_to, after = b + d * kSearch.run_on_to;
    return {{{before, a - d * kSearch.run_on_from, before}, {b + d * kSearch.run_on_from, after, after}}};
}

// Whether a stretch has an edge along it at more than run_on_share of its
// places.
bool edge_along(const SearchImage &im, const RunOnStretch &s) {
    return side_support(im.gx, im.gy, s.from, s.to, Edges::along) > kSearch.run_on_share;
}

// A card's sides end at its corners. A quad whose sides run on beyond them
// (mortar lines, a table's edge, a line printed across the card) is put
// together from longer lines. Only an edge along the side's line runs it
// on: gravel beside a card has edges everywhere, which would refuse a
// light card lying on it.
bool sides_end_at_corners(const SearchImage &im, const Quad &q, const SideEdges &e) {
    int running_on = 0;
    for (int k = 0; k < 4; ++k) {
        if (!e.seen[k]) continue;
        const auto stretches = run_on_stretches(q, k);
        running_on += edge_along(im, stretches[0]) && edge_along(im, stretches[1]);
    }
    return running_on <= kSearch.max_sides_running_on;
}

// The sides in view clearly there, but one that may be partly under a thumb.
bool sides_are_edges(const SideEdges &e) {
    int weak = 0;
    for (int k = 0; k < 4; ++k)
        if (e.seen[k]) {
            if (e.support[k] < kSearch.min_side_edge) return false;
            weak += e.support[k] < kSearch.strong_side;
        }
    return weak <= kSearch.max_weak_sides;
}

// How unlike the surfaces either side of each side are (unlike_across_side),
// measured once a side and only when asked: the step test and a cut
// card's sides both ask for it.
class UnlikeAcross {
public:
    UnlikeAcross(const SearchImage &im, const Quad &q) : im_(im), q_(q) { v_.fill(-1); }
    double operator()(int k) {
        if (v_[k] < 0) v_[k] = unlike_across_side(im_.small, im_.chroma, q_, k);
        return v_[k];
    }

private:
    const SearchImage &im_;
    const Quad &q_;
    std::array<double, 4> v_;
};

// Whether the sides in view part the card from what lies beyond: all but
// one show the card's even margin inside them, and all but one step from
// the surface beyond (clear_step of their places, or some_step between
// unlike surfaces). step receives each side's step share (1 along the
// frame's border, where it is not judged).
bool sides_part_surfaces(const SearchImage &im, const Quad &q, const SideEdges &e, UnlikeAcross &unlike,
                         std::array<double, 4> &step) {
    int margins = 0, stepped = 0;
    step = {};
    for (int k = 0; k < 4; ++k) {
        if (!e.seen[k]) continue;
        margins += even_margin(im.small, im.chroma, q, k);
        step[k] = side_step(im.small, im.chroma, q, k);
        if (step[k] < 0) step[k] = 1;  // at the frame's border: not judged
        stepped += step[k] >= kSearch.clear_step ||
                   (step[k] >= kSearch.some_step && unlike(k) >= kSearch.unlike_surfaces);
    }
    return margins >= e.visible - 1 && stepped >= e.visible - 1;
}

// A card cut by the frame: at least one of the two sides that run to the
// border parts the card from something else.
bool cut_sides_part_surfaces(const SideEdges &e, UnlikeAcross &unlike) {
    const int beyond = int(std::find(e.seen.begin(), e.seen.end(), false) - e.seen.begin());
    return unlike((beyond + 1) % 4) >= kSearch.alike_across_side ||
           unlike((beyond + 3) % 4) >= kSearch.alike_across_side;
}

// A hypothesis's support: the mean over the sides in view of the share of
// places with an edge along the side (or turned by no more than noise),
// each weighed by its step share up to full_step, less the aspect
// penalty. A side counts where it has both an edge along it and a step
// across it: a quad that borrowed one side from the background (the next
// row of mortar beside the card) is bigger than the card but scores less,
// and any edge across it would count one on grass or gravel, where every
// line has one.
double outline_support(const SearchImage &im, const Quad &q, const Quad &fq, const SideEdges &e,
                       const std::array<double, 4> &step) {
    double support = 0;
    for (int k = 0; k < 4; ++k)
        if (e.seen[k])
            support += side_support(im.gx, im.gy, q[k], q[(k + 1) % 4], Edges::along_within_noise) *
                       std::min(1.0, step[k] / kSearch.full_step) / e.visible;
    const double aspect_error = std::abs(plane_shape(fq, im.full, im.focal_px).aspect / kCardAspect - 1);
    return support * (1 - kSearch.aspect_penalty * aspect_error);
}

// How many of the quad's corners are in view, and how many of those are
// corners (corner_seen).
std::pair<int, int> corners_seen(const SearchImage &im, const Quad &q) {
    int corners_in_view = 0, corners = 0;
    for (int k = 0; k < 4; ++k) {
        if (!within_gradients(im.gx, q[k])) continue;
        ++corners_in_view;
        corners += corner_seen(im.gx, im.gy, q, k);
    }
    return {corners_in_view, corners};
}

// Whether hypothesis q (fq: the same in the frame) passes every test of a
// card, in this order: a card's outline, enough sides in view, turned as
// people turn a card (the pose, the costliest of these), a cut card
// wide enough, sides that end at its corners and are edges, sides that
// part it from what lies beyond, print inside, an inside unlike its
// surroundings, and a cut card's sides parting it from something else;
// also refused when it cannot be supported min_support (outline_support).
// edges and step receive what the support is computed from.
bool passes_card_tests(const SearchImage &im, const Quad &q, const Quad &fq, double min_support, SideEdges &edges,
                       std::array<double, 4> &step) {
    if (!card_outline(im, q, fq)) return false;
    // Sides beyond the frame (a card cut by it) are left out of the tests
    // below.
    edges = side_edges(im, q);
    if (edges.visible < kSearch.min_sides_in_view) return false;
    // The support (outline_support) is at most the mean share of places
    // with any step across the side: a quad that must be supported
    // min_support is refused before the costlier tests.
    double across = 0;
    for (int k = 0; k < 4; ++k)
        if (edges.seen[k]) across += edges.support[k] / edges.visible;
    if (across < min_support || !turned_as_people_turn(im, fq)) return false;
    // A card the frame cuts is a near one (NEAR is for it), or one on its
    // way out, which the tracker follows there. What the search finds cut
    // at an arm's length is the wall beside a card: columns of bricks
    // closed by the card's own edge, most of them beyond the frame. (A side
    // beyond a re-check's neighbourhood but in the frame is no cut: that
    // quad may be the card round a printed box.)
    const bool cut = edges.visible == 3 && beyond_frame(fq, im.full);
    if (cut && mean_width(fq) < kSearch.cut_card_min_width * im.full.width) return false;
    if (!sides_end_at_corners(im, q, edges) || !sides_are_edges(edges)) return false;
    UnlikeAcross unlike(im, q);
    if (!sides_part_surfaces(im, q, edges, unlike, step)) return false;
    if (inner_print(im.gx, im.gy, im.small, q, im.glare_level) < kSearch.min_inner_print) return false;
    if (unlike_surroundings(im.small, im.chroma, q) < kSearch.min_unlike_surroundings) return false;
    return !cut || cut_sides_part_surfaces(edges, unlike);
}

// A hypothesis's rank before its corners are looked at: support times
// size, so that the card beats the portrait and the printed boxes inside
// it, which are as well supported. The size is what the search saw: a side
// guessed beyond the frame, or beyond a re-check's neighbourhood, adds
// none (an enclosing quad guessed beyond the neighbourhood could hand a
// card over to a box of a brick wall).
double rank_by_size(const SearchImage &im, const Quad &q, double support, bool inferred) {
    const double shown = area_within(q, im.small.size());
    return support * std::sqrt(shown / im.max_area) * (inferred ? kSearch.inferred_rank : 1.0);
}

// The rank lowered for corners in view where nothing turns
// (corner_weight). A quad put together from lines that only happen to
// cross (a card's side run on to a line of the background, the edge of a
// shadow across the wall) is as large as it likes and its sides are real
// edges, but not its corners. It is ranked lower rather than refused: a
// card cut by the frame may have sides that a tower behind it continues.
double rank_with_corners(const SearchImage &im, const Quad &q, double rank) {
    const auto [corners_in_view, corners] = corners_seen(im, q);
    if (corners_in_view) rank *= 1 - kSearch.corner_weight * (corners_in_view - corners) / corners_in_view;
    return rank;
}

// The sign of the step across a side from a to b: which of its two
// surfaces is the lighter, +1 or -1 (0 when its strong gradients disagree).
int step_polarity(const cv::Mat &gx, const cv::Mat &gy, cv::Point2f a, cv::Point2f b) {
    const std::optional<SidePlaces> places = SidePlaces::along(a, b);
    if (!places) return 0;
    const cv::Point2f n = places->normal;
    int positive = 0, negative = 0;
    for (int i = 0; i < places->count; ++i) {
        const cv::Point2f p = places->at(i);
        if (!within_gradients(gx, p)) continue;
        float best = 0;
        for (int k = -2; k <= 2; ++k) {
            const int x = cvRound(p.x + n.x * k), y = cvRound(p.y + n.y * k);
            if (x < 0 || y < 0 || x >= gx.cols || y >= gx.rows) continue;  // a side along the border
            const float g = gx.at<short>(y, x) * n.x + gy.at<short>(y, x) * n.y;
            if (std::abs(g) > std::abs(best)) best = g;
        }
        if (std::abs(best) > kSearch.side_gradient) (best > 0 ? positive : negative) += 1;
    }
    if (positive > 2 * negative) return 1;
    if (negative > 2 * positive) return -1;
    return 0;
}

// Which ends of the quad's sides in view run on past their corner
// (RunOnEnds): an edge along the side's line beyond it, with the same step
// across it as the side's (step_polarity): the side's own edge running on,
// not another edge that happens to lie on its line (the top of a badge
// below a card's bottom side is lighter below, the card's side darker).
RunOnEnds ends_running_on(const SearchImage &im, const Quad &q, const SideEdges &e) {
    RunOnEnds ends;
    for (int k = 0; k < 4; ++k) {
        if (!e.seen[k]) continue;
        std::optional<int> polarity;  // the side's own, read once an end has an edge along it
        const auto stretches = run_on_stretches(q, k);
        for (int end = 0; end < 2; ++end) {
            const RunOnStretch &s = stretches[size_t(end)];
            if (!within_gradients(im.gx, s.outer) || !edge_along(im, s)) continue;
            if (!polarity) polarity = step_polarity(im.gx, im.gy, q[k], q[(k + 1) % 4]);
            if (*polarity == 0 || step_polarity(im.gx, im.gy, s.from, s.to) == *polarity) ends.set(k, end);
        }
    }
    return ends;
}

// Whether the enclosed quad lies in a corner of the enclosing one that a
// larger object's corner closed behind it (a card lying in the corner of a
// sheet of paper). They share a corner (within tolerance px of the frame);
// each corner of the enclosing quad next to that one, unless shared too, is
// a T: the enclosing quad's side that the inner one does not lie along runs
// on past it (RunOnEnds) and goes on for behind_run_on of its length (the
// sheet's edge: a card's own side, under a rule printed across it that
// closed the quad, stops at the card's corner a few pixels on). The other
// arm of the T, the card's side stopping short of that corner, is the
// inner quad's: prefer_ends_at_corners takes only one with no end running
// on.
bool in_a_corner_closed_behind(const SearchImage &im, const Detection &enclosing, const Quad &inner,
                               float tolerance) {
    const float to_small = 1.f / im.inv;
    const Quad q = scale_quad(enclosing.quad, to_small, -im.offset * to_small);
    auto shared = [&](int k) { return cv::norm(enclosing.quad[k] - inner[k]) <= tolerance; };
    // Side `side` of q (from `far` to `corner`, or back) runs on past
    // `corner` at its end `end`, and goes on for behind_run_on of its
    // length.
    auto goes_on = [&](int side, int end, int corner, int far) {
        const cv::Point2f d = q[corner] - q[far];
        return enclosing.run_on.past(side, end) &&
               side_support(im.gx, im.gy, q[corner] + d * (kSearch.run_on_from * kSearch.run_on_stretch),
                            q[corner] + d * kSearch.behind_run_on, Edges::along) > kSearch.run_on_share;
    };
    for (int k = 0; k < 4; ++k) {
        const int next = (k + 1) % 4, opposite = (k + 2) % 4, previous = (k + 3) % 4;
        if (!shared(k) || (shared(next) && shared(previous))) continue;
        // At `next`, side next (next to opposite) runs back past it; at
        // `previous`, side opposite (opposite to previous) runs on past it.
        const bool t_next = shared(next) || goes_on(next, 0, next, opposite);
        const bool t_previous = shared(previous) || goes_on(opposite, 1, previous, opposite);
        if (t_next && t_previous) return true;
    }
    return false;
}

// A best quad with sides running on past its corners gives way to a quad
// it encloses whose sides all end at theirs, when that one's rank is above
// what the run-on ends cost (run_on_weight a share of eight ends). Of a
// card lying on a sheet of paper, the quad closed by the sheet's edge
// outranks the card by its size, and two of its sides meet that edge in a
// T. A card held up has sides that end at its corners (a line of the
// background continuing one by chance has another step across it), so the
// boxes printed inside it are not preferred to it.
// When the card lies in a corner of the quad closed behind it
// (in_a_corner_closed_behind), the sides through that corner are the same
// lines, and the size between the other two is what is in question: their
// support is compared instead of their rank.
void prefer_ends_at_corners(const SearchImage &im, std::vector<Detection> &ranked) {
    if (ranked.size() < 2 || ranked[0].run_on.count() < kSearch.min_ends_running_on) return;
    const Detection &best = ranked[0];
    const double kept = 1 - kSearch.run_on_weight * best.run_on.count() / 8.0;
    const float tolerance = kSearch.enclosed_tolerance * float(mean_width(best.quad));
    for (size_t i = 1; i < ranked.size(); ++i) {
        const Detection &d = ranked[i];
        if (d.run_on.count() != 0 || !encloses(best.quad, d.quad, tolerance)) continue;
        const bool by_support = in_a_corner_closed_behind(im, best, d.quad, tolerance);
        if (by_support ? d.score > best.score * kept : d.rank > best.rank * kept) {
            std::rotate(ranked.begin(), ranked.begin() + long(i), ranked.begin() + long(i) + 1);
            return;
        }
    }
}

// The best-ranked quads found so far, best first: at most `wanted`, each a
// different quad (its corners more than same_quad_px of the small image
// from the others'). Of two found twice, the better ranked stays; of two
// of the same rank, the first found stays first.
class BestQuads {
public:
    explicit BestQuads(size_t wanted) : wanted_(wanted) {}
    bool empty() const { return ranked_.empty(); }
    const Detection &best() const { return ranked_.front().detection; }
    // Whether a quad of this rank would be dropped at once: the list is
    // full and the rank no better than its last.
    bool would_drop(double rank) const {
        return ranked_.size() >= wanted_ && rank <= ranked_.back().detection.rank;
    }
    // d found as q in the small image.
    void keep(const Detection &d, const Quad &q) {
        for (size_t i = 0; i < ranked_.size(); ++i) {
            double apart = 0;
            for (int k = 0; k < 4; ++k) apart = std::max(apart, double(cv::norm(ranked_[i].small[k] - q[k])));
            if (apart > kSearch.same_quad_px) continue;
            if (d.rank <= ranked_[i].detection.rank) return;
            ranked_.erase(ranked_.begin() + long(i));
            break;
        }
        const auto at = std::find_if(ranked_.begin(), ranked_.end(),
                                     [&](const Ranked &r) { return r.detection.rank < d.rank; });
        ranked_.insert(at, Ranked{d, q});
        if (ranked_.size() > wanted_) ranked_.pop_back();
    }
    std::vector<Detection> detections() const {
        std::vector<Detection> out;
        for (const auto &r : ranked_) out.push_back(r.detection);
        return out;
    }

private:
    struct Ranked {
        Detection detection;
        Quad small;
    };
    std::vector<Ranked> ranked_;
    size_t wanted_;
};

// Whether an upright quad is the card that a landscape quad is part of: a
// box printed across an upright card (its end, cut by a rule or by the
// frame round its portrait) is held landscape, and two of its sides are the
// card's, running on past its corners (ends_running_on,
// upright_box_min_ends_running_on), while the card's own sides end at its
// corners. A card held landscape before an upright box (a torso, a door's
// panel) has sides that end at its corners, and keeps its place.
bool upright_encloses(const Detection &upright, const Detection &landscape) {
    return landscape.run_on.count() >= kSearch.upright_box_min_ends_running_on && upright.run_on.count() == 0 &&
           upright.rank > landscape.rank &&
           encloses(upright.quad, landscape.quad, kSearch.enclosed_tolerance * float(mean_width(landscape.quad)));
}

// What a search found: the best quads held landscape, and, aside from them
// when upright quads are set aside, the best upright ones (UprightQuads).
// Upright boxes are everywhere a card is held, so they never outrank a card
// held as the flow asks; but a card lying on a desk, photographed by a
// phone held in portrait, is upright.
class RankedQuads {
public:
    RankedQuads(int wanted, UprightQuads upright)
        : landscape_(size_t(wanted)), upright_(size_t(wanted)), policy_(upright) {}
    UprightQuads upright_policy() const { return policy_; }
    // Whether no quad was found that is the answer whatever else is found.
    bool empty() const { return landscape_.empty(); }
    const Detection &best() const { return landscape_.best(); }
    bool would_drop(double rank, bool upright) const { return list(upright).would_drop(rank); }
    void keep(const Detection &d, const Quad &q, bool upright) { list(upright).keep(d, q); }
    // The landscape quads (with the upright ones when they compete), or the
    // upright ones set aside when no landscape quad was found or when the
    // best upright quad is the whole of the best landscape one
    // (upright_encloses).
    std::vector<Detection> detections() const {
        if (upright_.empty()) return landscape_.detections();
        if (!landscape_.empty() && !upright_encloses(upright_.best(), landscape_.best()))
            return landscape_.detections();
        std::vector<Detection> out = upright_.detections();
        out.front().alone = landscape_.empty();
        return out;
    }
    // Whether a quad (upright or not) is set aside from the landscape ones.
    bool sets_aside(bool upright) const {
        return upright && policy_ == UprightQuads::set_aside;
    }

private:
    BestQuads &list(bool upright) { return sets_aside(upright) ? upright_ : landscape_; }
    const BestQuads &list(bool upright) const { return sets_aside(upright) ? upright_ : landscape_; }
    BestQuads landscape_, upright_;
    UprightQuads policy_;
};

// A hypothesis (q in small-image pixels; inferred: a side of it has no line
// of its own; joined: found on lines joined across a gap) tested, ranked,
// and kept when it is among the best so far. The corners can only lower
// the rank, so a quad that cannot beat the last of those kept is not
// looked at for them.
void consider(const SearchImage &im, const Quad &q, bool inferred, bool joined, RankedQuads &ranked) {
    const Quad fq = scale_quad(q, im.inv, im.offset);
    // An upright quad set aside from the landscape ones must be convincing,
    // and its sides must end at its corners: one with two ends running on is
    // drawn inside something larger (a column of a near card's print, its
    // top and side on the card's own edges).
    const bool upright = is_upright(q);
    if (upright && ranked.upright_policy() == UprightQuads::refused) return;
    const bool aside = ranked.sets_aside(upright);
    const double min_support = aside ? kSearch.convincing_score : 0.0;
    SideEdges edges;
    std::array<double, 4> step;
    if (!passes_card_tests(im, q, fq, min_support, edges, step)) return;
    const double support = outline_support(im, q, fq, edges, step);
    if (support < min_support) return;
    const double rank = rank_by_size(im, q, support, inferred);
    if (ranked.would_drop(rank, upright)) return;
    const RunOnEnds ends = ends_running_on(im, q, edges);
    if (aside && ends.count() >= kSearch.min_ends_running_on) return;
    const float pixel_error = inferred ? kSearch.pixel_error_inferred : kSearch.pixel_error;
    ranked.keep(Detection{fq, support, pixel_error * im.inv, false, joined, rank_with_corners(im, q, rank), ends},
                q, upright);
}

void consider_all(const SearchImage &im, const std::vector<std::pair<Quad, bool>> &hypotheses, bool joined,
                  RankedQuads &ranked) {
    for (const auto &[q, inferred] : hypotheses) consider(im, q, inferred, joined, ranked);
}

// Of lines, the n longest.
void keep_longest(std::vector<EdgeLine> &lines, size_t n) {
    if (lines.size() <= n) return;
    std::nth_element(lines.begin(), lines.begin() + long(n), lines.end(),
                     [](const EdgeLine &a, const EdgeLine &b) { return a.length() > b.length(); });
    lines.resize(n);
}

// The straight edges of the image: the sensitive edge map, the lines
// along it (collinear pieces merged, the short ones left out), and the
// corners where two lines meet. A search through the print also takes the
// straight stretches of its second image's edges (SearchImage::more_lines).
struct StraightEdges {
    cv::Mat edge_map;
    std::vector<EdgeLine> lines;
    std::vector<Corner> corners;
};
std::vector<EdgeLine> segments_of_edges(const cv::Mat &edge_map, float min_length) {
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(edge_map, contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
    return straight_segments(contours, min_length);
}
std::vector<EdgeLine> segments_of_image(const cv::Mat &image, float min_length) {
    cv::Mat gx, gy, edge_map;
    cv::Sobel(image, gx, CV_16S, 1, 0, 3);
    cv::Sobel(image, gy, CV_16S, 0, 1, 3);
    cv::Canny(gx, gy, edge_map, kSearch.canny_low, kSearch.canny_high, false);
    return segments_of_edges(edge_map, min_length);
}
StraightEdges straight_edges(const SearchImage &im) {
    StraightEdges s;
    cv::Canny(im.gx, im.gy, s.edge_map, kSearch.canny_low, kSearch.canny_high, false);
    const float min_segment = float(std::max(kSearch.min_segment_px, im.min_side * kSearch.min_segment_of_side));
    std::vector<EdgeLine> segments = segments_of_edges(s.edge_map, min_segment);
    if (!im.more_lines.empty()) {
        const auto more = segments_of_image(im.more_lines, min_segment);
        segments.insert(segments.end(), more.begin(), more.end());
    }
    s.lines = merge_collinear(std::move(segments), float(im.min_side));
    const auto too_short = [&](const EdgeLine &l) { return l.length() < im.min_side * kSearch.min_line_of_side; };
    s.lines.erase(std::remove_if(s.lines.begin(), s.lines.end(), too_short), s.lines.end());
    keep_longest(s.lines, kSearch.lines_kept);
    s.corners = find_corners(s.lines);
    return s;
}

// Stage 1: the U's of the lines, closed into quads (quads_from_corners);
// with shaped, also closed where the card's shape says, ranked there.
void search_line_hypotheses(const SearchImage &im, const StraightEdges &s, FourthSide fourth, RankedQuads &ranked,
                            RankedQuads *shaped) {
    std::vector<std::pair<Quad, bool>> hypotheses, by_shape;
    quads_from_corners(im.gx, im.gy, s.lines, s.corners, fourth, hypotheses, 0, shaped ? &by_shape : nullptr);
    consider_all(im, hypotheses, false, ranked);
    if (shaped) consider_all(im, by_shape, false, *shaped);
}

// The quads of one edge map's closed outlines, its one-pixel gaps
// (rounded corners, noise) closed first.
void search_outlines_of(const SearchImage &im, const cv::Mat &edge_map, RankedQuads &ranked) {
    cv::Mat closed;
    cv::dilate(edge_map, closed, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(closed, contours, cv::RETR_LIST, cv::CHAIN_APPROX_NONE);
    for (const auto &c : contours) {
        const cv::Rect box = cv::boundingRect(c);
        if (box.width < im.min_width * kSearch.min_outline_width || box.height < im.min_side) continue;
        if (auto q = quad_from_contour(c)) consider(im, *q, false, false, ranked);
    }
}

// Stage 2: closed outlines, of the strict edges first (less clutter joins
// the card's outline), of the sensitive ones when that found nothing
// convincing.
void search_closed_outlines(const SearchImage &im, const StraightEdges &s, RankedQuads &ranked) {
    cv::Mat strict;
    cv::Canny(im.gx, im.gy, strict, kSearch.strict_canny_low, kSearch.strict_canny_high, false);
    search_outlines_of(im, strict, ranked);
    if (!ranked.empty() && ranked.best().score > kSearch.convincing_score) return;
    search_outlines_of(im, s.edge_map, ranked);
}

// Stage 3, when nothing at all was found: the sides may be there in pieces
// too far apart to have been merged (a thumb and a palm over one side of a
// light card; a near card's edge lost for a third of its length against a
// white cup behind it). The longest lines joined across such gaps are
// added, and the U's with one of them closed near their legs' ends only,
// even where the fourth side is otherwise scanned for beyond them: beyond
// them, every U of a brick wall's joined mortar costs a scan, and a near
// card's hidden side is placed beyond the frame either way.
void search_joined_lines(const SearchImage &im, StraightEdges &s, FourthSide fourth, RankedQuads &ranked) {
    auto joined = joined_across_gaps(s.lines, float(im.min_side));
    keep_longest(joined, kSearch.joined_lines_kept);
    if (joined.empty()) return;
    const size_t first_new = s.lines.size();
    s.lines.insert(s.lines.end(), joined.begin(), joined.end());
    const auto more = find_corners(s.lines, first_new);  // those of the new lines
    s.corners.insert(s.corners.end(), more.begin(), more.end());
    std::vector<std::pair<Quad, bool>> hypotheses;
    quads_from_corners(im.gx, im.gy, s.lines, s.corners,
                       fourth == FourthSide::scanned_beyond ? FourthSide::at_ends : fourth, hypotheses, first_new);
    consider_all(im, hypotheses, true, ranked);
}

// Stage 4, in the coarse look at a near card when nothing else was found:
// a light card held so near that the frame cuts it, whose legs fade into a
// light wall or end under a hand before the border. Its hidden side is put
// beyond the border where the card's shape says. Only when nothing else was
// found: a card in full view whose side lies just short of the border (a
// card shown on a phone, at the screen's bezel) would lose to it by size.
void search_cut_by_shape(const SearchImage &im, const StraightEdges &s, RankedQuads &ranked) {
    std::vector<std::pair<Quad, bool>> hypotheses;
    quads_cut_by_shape(im.gx, s.lines, s.corners, hypotheses);
    consider_all(im, hypotheses, false, ranked);
}

}  // namespace

double printed_share(const cv::Mat &luma, cv::Rect roi, int long_side) {
    roi &= cv::Rect(0, 0, luma.cols, luma.rows);
    if (roi.width < kSearch.min_region_px || roi.height < kSearch.min_region_px) return 0;
    const cv::Mat small = downscaled(luma, roi, std::min(1.0, double(long_side) / std::max(roi.width, roi.height)));
    cv::Mat lifted;
    cv::subtract(print_closed_over(small), small, lifted);
    return double(cv::countNonZero(lifted > kSearch.print_stroke_levels)) / double(lifted.total());
}

double luma_step(const cv::Mat &luma, const Quad &q, int side) {
    const cv::Mat no_chroma[2];
    return side_step(luma, no_chroma, q, side);
}

std::vector<Detection> detect_card(const cv::Mat &luma, const Chroma &chroma, const SearchRequest &request) {
    const cv::Rect roi = request.roi & cv::Rect(0, 0, luma.cols, luma.rows);
    if (roi.width < kSearch.min_region_px || roi.height < kSearch.min_region_px) return {};
    const double scale = std::min(1.0, double(request.long_side) / std::max(roi.width, roi.height));
    const SearchImage im =
        search_image(luma, chroma, roi, scale, request.focal_px, request.glare_level, request.print);
    RankedQuads ranked(std::max(request.wanted, kSearch.alternatives), request.upright);
    // The card already tracked competes on the same terms, so a re-check
    // replaces it only with something better (the enclosing card, when the
    // tracker had settled on a box printed on it).
    const Quad *incumbent = request.incumbent;
    if (incumbent) consider(im, scale_quad(*incumbent, float(scale), -im.offset * float(scale)), false, false, ranked);
    const std::optional<Quad> held = ranked.empty() ? std::nullopt : std::optional<Quad>(ranked.best().quad);

    StraightEdges straight = straight_edges(im);
    RankedQuads shaped(1, UprightQuads::refused);
    std::optional<Detection> *closed_by_shape = request.closed_by_shape;
    search_line_hypotheses(im, straight, request.fourth, ranked, closed_by_shape ? &shaped : nullptr);
    if (closed_by_shape) {
        closed_by_shape->reset();
        if (!shaped.empty()) *closed_by_shape = shaped.detections().front();
    }
    search_closed_outlines(im, straight, ranked);
    if (ranked.empty() && !incumbent) search_joined_lines(im, straight, request.fourth, ranked);
    if (ranked.empty() && !incumbent && request.fourth == FourthSide::scanned_beyond)
        search_cut_by_shape(im, straight, ranked);

    std::vector<Detection> out = ranked.detections();
    prefer_ends_at_corners(im, out);
    if (out.size() > size_t(request.wanted)) out.resize(size_t(request.wanted));
    if (held && !out.empty() && out.front().quad == *held) out.front().incumbent = true;
    return out;
}

}  // namespace cardvision
