// liveness.cpp — what the tracked frames say about the card's material.
//
// What a copy or a re-filmed screen cannot fake, measured on the card
// rectified to a small raster on every tracked frame (about 0.1 ms), and on
// the camera's own pixels for the screen's grid:
//
// * Optically variable print. A genuine card carries ink or a hologram
//   whose hue changes with the viewing angle; a print of it is frozen. The
//   card is divided into 32 x 20 cells; each pose bin (front-on, turned each
//   way on each axis) accumulates each cell's mean colour. Between two bins
//   a cell's change is the chord of its hue change at the smaller of its two
//   saturations: a hue that turns scores, a thumb that slides over white
//   card (a saturation change, not a hue change) does not, and the whole
//   card's shift (white balance following the light) is removed first. No
//   mask per card design: whichever cells move, move.
// * Colour. A black-and-white copy has none. (Colour and black level leave
//   out frames with glare over the exposure limit: a reflection veils both.)
// * Black level. Print on a card is near black; a screen's black and a
//   copier's toner on paper are lifted towards the white. Frames with glare
//   are left out: a reflection veils a real card's black as well. Measured
//   from the darkest level in view, not from zero: a camera that lifts
//   every black (a veiling glare over the lens, a washed-out webcam) lifts
//   the card's and the room's alike, where a screen lifts only its own.
// * A screen's pixel grid, left by the camera as moire: isolated peaks in
//   the spectrum of the card's middle (screen_grid.cpp), on one tracked
//   frame in three.
//
// Levels are converted to a full-range scale with the stream's range, and
// colour is rescaled as if the card's white were 200, so a dim room and a
// bright one measure alike.
#include "liveness.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace cardvision {

namespace {

constexpr int kRasterW = 128, kRasterH = 80;  // luma; chroma is half that: 2 x 2 per cell
constexpr double kFrontDeg = 6, kTurnedDeg = 15;
constexpr int kMinBinFrames = 2;
constexpr float kMovingCell = 6;  // levels: a cell "moves" beyond this
constexpr double kMaterialMargin = 0.02;  // of the frame's width (height): the card's corners stay inside it
// The screen grid (about 0.3 ms a measurement at 720p, as much as decoding a
// third of a 640x480 frame) on one tracked frame in three until the early
// verdict's measurements are in hand and a median is steady, then on one in
// twelve: a screen's grid is there on every frame it shows.
constexpr int kGridEvery = 3, kGridDense = 30, kGridSparseEvery = 12;
// The black level is judged on the frames where the card is widest: within
// this share of its widest width, and at least this many.
constexpr float kLargestShare = 0.8f;
constexpr int kLargestFrames = 10;
// The black level and the colour are judged on the frames in focus: a focus
// (the Laplacian's variance on the rectified face) at least kFocusShare of
// the session's sharp frames', the focus kSharpQuantile from the top of its
// material frames (so that one frame's noise does not set it), or the
// kSharpestFrames sharpest if fewer are. A quarter of the variance is what a
// Gaussian blur of sigma 1 camera pixel leaves of a card in focus (sigma 0.5
// leaves about 0.7): a fast turn's motion blur, a camera hunting for focus.
// Relative to the same session, since cameras and renderers differ in their
// sharpest several times over (the development set's renderer draws cards
// about a tenth as sharp as ours, docs/decisions.md).
constexpr float kFocusShare = 0.25f;
constexpr double kSharpQuantile = 0.1;
constexpr int kSharpestFrames = 10;

int pose_bin(double yaw, double pitch) {
    const double a = std::max(std::abs(yaw), std::abs(pitch));
    if (a < kFrontDeg) return HKCV_POSE_FRONT;
    if (a < kTurnedDeg) return -1;
    if (std::abs(yaw) >= std::abs(pitch)) return yaw > 0 ? HKCV_POSE_YAW_POS : HKCV_POSE_YAW_NEG;
    return pitch > 0 ? HKCV_POSE_PITCH_POS : HKCV_POSE_PITCH_NEG;
}

// The darkest level in view: the 0.5th percentile of the frame's luma
// (levels_in_view), stretched to full range as the card's levels are when
// they are limited.
int darkest_in_view(const LevelHistogram &view, bool limited) {
    const int level = view.percentile(0.005);
    return limited ? std::clamp(int(std::lround((level - 16) * 255.0 / 219.0)), 0, 255) : level;
}

// How far the card's darkest print (dark) lies above the darkest level in
// view (floor), as a share of the way from there to its white. With
// something black in view (floor 0) it is dark / white. Taken in gamma-
// encoded levels, not in linear light: there a glare adds, and a
// washed-out card a few levels above the floor reads nearly as high as a
// screen.
float black_above_floor(int dark, int white, int floor) {
    if (white <= floor) return 1.f;
    return float(std::max(0, dark - floor)) / float(white - floor);
}

float median(std::vector<float> v) {
    if (v.empty()) return -1;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + long(mid), v.end());
    return v[mid];
}

// The material frames in focus (kFocusShare, kSharpQuantile,
// kSharpestFrames): a blurred card's darkest print is averaged with the
// paper round it, and its colour with its neighbours'.
std::vector<MaterialReading> in_focus(std::vector<MaterialReading> readings) {
    if (readings.empty()) return readings;
    std::sort(readings.begin(), readings.end(),
              [](const MaterialReading &a, const MaterialReading &b) { return a.focus > b.focus; });
    const float least = kFocusShare * readings[size_t(kSharpQuantile * double(readings.size() - 1))].focus;
    size_t kept = 0;
    while (kept < readings.size() && (readings[kept].focus >= least || kept < size_t(kSharpestFrames))) ++kept;
    readings.resize(kept);
    return readings;
}

// The black level where the card was largest in the camera's pixels: the
// median over the frames within kLargestShare of its widest, or over its
// kLargestFrames widest if fewer are. A card's darkest print is a few
// text strokes a third of a millimetre wide, which a small or softly
// focused card averages with the paper round them; a screen's black is
// lifted at any size.
float black_of_largest(std::vector<MaterialReading> readings) {
    if (readings.empty()) return -1;
    std::sort(readings.begin(), readings.end(),
              [](const MaterialReading &a, const MaterialReading &b) { return a.width_px > b.width_px; });
    const float least = kLargestShare * readings.front().width_px;
    std::vector<float> levels;
    for (const auto &r : readings)
        if (r.width_px >= least || levels.size() < size_t(kLargestFrames)) levels.push_back(r.black);
    return median(levels);
}

float median_chroma(const std::vector<MaterialReading> &readings) {
    std::vector<float> chroma;
    for (const auto &r : readings) chroma.push_back(r.chroma);
    return median(chroma);
}

}  // namespace

// A frame shows the card's material only when the whole card is in view,
// neither too far nor too near (the flow's FAR and NEAR widths, handed in
// through hkcv_config), and without glare: a card cut by the frame is held
// too close for the camera to focus (its print blurs, its black lifts), a
// far one is a few pixels of print, and a reflection veils both.
bool LivenessEvidence::shows_material(const Quad &q, double width_px, cv::Size size, float glare) const {
    if (glare > max_glare_ || far(width_px, size.width) || width_px > max_width_ * size.width) return false;
    const double mx = kMaterialMargin * size.width, my = kMaterialMargin * size.height;
    for (const auto &p : q)
        if (p.x < mx || p.y < my || p.x > size.width - 1 - mx || p.y > size.height - 1 - my) return false;
    return true;
}

// A card narrower than the material frames' least width (FAR's).
bool LivenessEvidence::far(double width_px, int frame_width) const { return width_px < min_width_ * frame_width; }

void LivenessEvidence::reset() {
    restart_material();
    frames_ = 0;
    grid_.clear();
}

void LivenessEvidence::restart_material() {
    for (auto &sums : cell_sums_) sums.clear();
    bin_frames_.fill(0);
    material_frames_ = 0;
    material_.clear();
    fine_print_.clear();
}

// The card's raster as full-range Y (8 bit) and Cb, Cr centred on 0 (float,
// half size), whatever the input's format and range.
CardPlanes LivenessEvidence::full_range(const ColourRaster &card) {
    CardPlanes out;
    if (card.y.empty()) {
        cv::Mat ycc, parts[3];
        cv::cvtColor(card.bgr, ycc, cv::COLOR_BGR2YCrCb);
        cv::split(ycc, parts);
        out.y = parts[0];
        cv::Mat crf, cbf;
        cv::resize(parts[1], crf, cv::Size(kRasterW / 2, kRasterH / 2), 0, 0, cv::INTER_AREA);
        cv::resize(parts[2], cbf, cv::Size(kRasterW / 2, kRasterH / 2), 0, 0, cv::INTER_AREA);
        crf.convertTo(out.cr, CV_32F, 1.0, -128.0);
        cbf.convertTo(out.cb, CV_32F, 1.0, -128.0);
        return out;
    }
    out.limited = card.range == HKCV_RANGE_LIMITED;
    out.y = card.y;
    card.u.convertTo(out.cb, CV_32F);
    card.v.convertTo(out.cr, CV_32F);
    if (out.limited) {
        out.y.convertTo(y_, CV_8U, 255.0 / 219.0, -16.0 * 255.0 / 219.0);
        out.y = y_;
        out.cb = (out.cb - 128.f) * (255.f / 224.f);
        out.cr = (out.cr - 128.f) * (255.f / 224.f);
    } else {
        out.cb -= 128.f;
        out.cr -= 128.f;
    }
    return out;
}

void LivenessEvidence::add(const hkcv_image &image, const cv::Mat &luma, const LevelHistogram &view, const Quad &q,
                           double yaw, double pitch, float glare, float focus) {
    const ColourRaster card = warp_colour(image, raster_to_quad(q, kRasterW, kRasterH), kRasterW, kRasterH);
    if (card.empty()) return;
    const CardPlanes planes = full_range(card);

    // The card's inside: 6 % in from each edge, where rounded corners,
    // the outline's last pixel of error and fingers on the edge are.
    const int mx = kRasterW * 6 / 100, my = kRasterH * 6 / 100;
    const cv::Mat inner = planes.y(cv::Rect(mx, my, kRasterW - 2 * mx, kRasterH - 2 * my));
    const LevelHistogram levels(inner);
    const int p1 = levels.percentile(0.01), p2 = levels.percentile(0.02), p98 = levels.percentile(0.98);
    const float gain = 200.f / float(std::max(p98, 40));  // colour as if the card's white were at 200
    ++frames_;
    // Only frames that show the material (shows_material) count: a
    // reflection over the card veils its black and washes out its colour,
    // a card cut by the frame is out of focus, a far one is too few pixels.
    const double width_px = mean_width(q);
    const bool material = shows_material(q, width_px, cv::Size(image.width, image.height), glare);
    if (material) {
        ++material_frames_;
        // The darkest 1 %: a card's black print is a few percent of its face
        // (text strokes, the portrait's hair), a screen's black is everywhere.
        // The colour: its 99th percentile of saturation. Both are judged on
        // the frames in focus (in_focus), when the verdict is read.
        const cv::Rect inside(mx / 2, my / 2, kRasterW / 2 - mx, kRasterH / 2 - my);
        material_.push_back({float(width_px), focus,
                             black_above_floor(p1, p98, darkest_in_view(view, planes.limited)),
                             saturation_percentile(planes.cb(inside), planes.cr(inside), 0.99) * gain});
    }
    // The screen's grid on some tracked frames (kGridEvery), whether or not it
    // shows the material: a screen's outline followed as a near card (cut
    // by the frame) still has the screen in its middle, and a blurred card
    // only loses peaks. Not on a far card: its fine periodic print (the
    // guilloche) shrinks onto the grid's periods of 2-11 camera pixels.
    if (!far(width_px, image.width) && frames_ % (grid_.size() < size_t(kGridDense) ? kGridEvery : kGridSparseEvery) == 1)
        if (const float peak = screen_grid_peak(luma, q); peak >= 0) grid_.push_back(peak);

    const int bin = pose_bin(yaw, pitch);
    if (bin == HKCV_POSE_FRONT && p98 > p2) {
        cv::Laplacian(inner, lap_, CV_16S);
        fine_print_.push_back(float(cv::mean(cv::abs(lap_))[0] / double(p98 - p2)));
    }
    // The optically variable print is compared between poses on the same
    // frames: a quad reaching past the frame (part of it guessed) rasters
    // the background into its cells, and a reflection tints them as it
    // moves, which a glossy copy would pass for a hologram.
    if (bin >= 0 && material) add_cells(bin, planes, gain);
}

// The colour saturation (|Cb, Cr|) at quantile q over a patch.
float LivenessEvidence::saturation_percentile(const cv::Mat &cb, const cv::Mat &cr, double q) {
    cv::magnitude(cb, cr, saturation_);
    saturation_values_.assign(saturation_.begin<float>(), saturation_.end<float>());
    const size_t k = size_t(q * double(saturation_values_.size() - 1));
    std::nth_element(saturation_values_.begin(), saturation_values_.begin() + long(k), saturation_values_.end());
    return saturation_values_[k];
}

// Adds the card's colour, cell by cell, to its pose bin's sums.
void LivenessEvidence::add_cells(int bin, const CardPlanes &planes, float gain) {
    cv::Mat cells_cb, cells_cr;
    cv::resize(planes.cb, cells_cb, cv::Size(kCols, kRows), 0, 0, cv::INTER_AREA);
    cv::resize(planes.cr, cells_cr, cv::Size(kCols, kRows), 0, 0, cv::INTER_AREA);
    auto &sums = cell_sums_[size_t(bin)];
    if (sums.empty()) sums.assign(size_t(kCols * kRows), cv::Vec2f(0, 0));
    for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < kCols; ++c)
            sums[size_t(r * kCols + c)] += cv::Vec2f(cells_cb.at<float>(r, c), cells_cr.at<float>(r, c)) * gain;
    ++bin_frames_[size_t(bin)];
}

hkcv_liveness LivenessEvidence::summary() const {
    hkcv_liveness out{};
    out.frames = frames_;
    out.material_frames = material_frames_;
    for (int b = 0; b < kBins; ++b) out.pose_frames[b] = bin_frames_[size_t(b)];
    const std::vector<MaterialReading> focused = in_focus(material_);
    out.chroma = median_chroma(focused);
    out.black_level = black_of_largest(focused);
    out.fine_print = median(fine_print_);
    out.screen_grid = median(grid_);
    out.grid_frames = int(grid_.size());
    out.ovi_shift = -1;
    out.ovi_area = -1;

    // Every pair of bins with enough frames; the outer ring of cells is
    // left out (the card's edge, and whatever holds it).
    for (int a = 0; a < kBins; ++a) {
        if (bin_frames_[size_t(a)] < kMinBinFrames) continue;
        for (int b = a + 1; b < kBins; ++b) {
            if (bin_frames_[size_t(b)] < kMinBinFrames) continue;
            const float na = 1.f / float(bin_frames_[size_t(a)]), nb = 1.f / float(bin_frames_[size_t(b)]);
            std::vector<cv::Vec2f> ma, mb;
            std::vector<float> dcb, dcr;
            for (int r = 1; r < kRows - 1; ++r)
                for (int c = 1; c < kCols - 1; ++c) {
                    const size_t i = size_t(r * kCols + c);
                    ma.push_back(cell_sums_[size_t(a)][i] * na);
                    mb.push_back(cell_sums_[size_t(b)][i] * nb);
                    dcb.push_back(mb.back()[0] - ma.back()[0]);
                    dcr.push_back(mb.back()[1] - ma.back()[1]);
                }
            // The whole card's shift (the light's colour changes with the
            // angle) is not the print's.
            const cv::Vec2f shift(median(dcb), median(dcr));
            std::vector<float> moved(ma.size());
            int moving = 0;
            for (size_t i = 0; i < ma.size(); ++i) {
                const cv::Vec2f pa = ma[i], pb = mb[i] - shift;
                const float sa = float(cv::norm(pa)), sb = float(cv::norm(pb));
                const float s = std::min(sa, sb);
                float chord = 0;
                if (s > 1e-3f) {
                    const float cosang = std::clamp(float(pa.dot(pb) / (sa * sb)), -1.f, 1.f);
                    chord = s * std::sqrt(2.f * (1.f - cosang));  // 2 s sin(angle / 2)
                }
                moved[i] = chord;
                if (chord > kMovingCell) ++moving;
            }
            // The third-largest cell: one or two cells at a printed edge
            // that the outline's error smears are not a hologram.
            std::nth_element(moved.begin(), moved.begin() + 2, moved.end(), std::greater<float>());
            const float score = moved[2];
            if (score > out.ovi_shift) {
                out.ovi_shift = score;
                out.ovi_area = float(moving) / float(moved.size());
            }
        }
    }
    return out;
}

}  // namespace cardvision
