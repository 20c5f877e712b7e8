// view_change.cpp — whether anything came into a still view.
//
// With no card in view, searching one frame in ten, each search of a 720p
// frame costing about as much as decoding four frames, would make an empty
// counter in front of a station's camera, or the start of a recording
// before the card is raised, cost nearly twice its decoding.
// A card coming into view changes its cells of a coarse copy of the frame
// by tens of grey levels; sensor noise, compression and a camera held on a
// tripod or drifting in a hand change them by a few.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdlib>

namespace cardvision {

namespace {

// Every threshold of ViewChange, in one place.
struct ViewChangeParams {
    // Cells across the coarse copy compared (its height keeps the frame's
    // aspect): cells of 40 px at 1280x720, so a card covers several and
    // noise averages out within one.
    int cells_across = 32;
    // A cell changed when its mean moved by more than this (grey levels):
    // above what noise, compression and a drifting camera do, well below
    // the tens of levels of a card coming in.
    int changed_levels = 10;
    // The view changed when at least this many cells did: a far card (15 %
    // of the frame's width) covers about 15.
    int changed_cells = 3;
};
constexpr ViewChangeParams kViewChange{};

void coarse(const cv::Mat &luma, cv::Mat &out) {
    const int across = std::min(kViewChange.cells_across, luma.cols);
    const int down = std::max(1, cvRound(double(luma.rows) * across / luma.cols));
    cv::resize(luma, out, cv::Size(across, down), 0, 0, cv::INTER_AREA);
}

}  // namespace

void ViewChange::searched(const cv::Mat &luma) { coarse(luma, searched_); }

bool ViewChange::changed(const cv::Mat &luma) {
    if (searched_.empty()) return true;
    coarse(luma, now_);
    if (now_.size() != searched_.size()) return true;
    int cells = 0;
    for (int y = 0; y < now_.rows; ++y) {
        const uint8_t *a = now_.ptr<uint8_t>(y), *b = searched_.ptr<uint8_t>(y);
        for (int x = 0; x < now_.cols; ++x) cells += std::abs(int(a[x]) - int(b[x])) > kViewChange.changed_levels;
    }
    return cells >= kViewChange.changed_cells;
}

}  // namespace cardvision
