// still.hpp — a kept still: the best front-on view's pixels, rectified and
// encoded only when a result asks for it.
//
// A still never changes once kept (a better view makes a new one), so the
// tracker can hand it out and go on with new frames while another thread
// rectifies, searches for the face and encodes it: the frame that decides a
// result does not also pay ~8 ms of warp, colour conversion and JPEG.
#pragma once

#include "internal.hpp"

#include <opencv2/objdetect.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace cardvision {

// A face detector parsed on first use: parsing is the expensive part, and
// only the head crop at the end of a session needs one.
struct LazyCascade {
    std::string path;  // "" = none
    cv::CascadeClassifier cascade;
    bool tried = false;
    cv::CascadeClassifier *get();
};

// The head crop's face detectors, in the order they are tried, shared by a
// tracker and its stills. A cascade must not run on two threads at once,
// and stills may be encoded on any thread: one search at a time.
class FaceFinder {
public:
    // cascade_path NULL: Debian's opencv-data cascades (LBP, then Haar).
    explicit FaceFinder(const char *cascade_path);
    // The head in the portrait area (grey), in the area's coordinates.
    std::optional<cv::Rect> find(const cv::Mat &portrait_gray);

private:
    std::mutex mutex_;
    LazyCascade first_, fallback_;
};

// Whether the card at q in luma shows a face where its layout puts the
// portrait (the portrait area rectified at the head crop's search width).
// nullopt when the card is too small in the camera's pixels for the
// cascade to see a face there: no face then says nothing.
std::optional<bool> portrait_shows_face(FaceFinder &faces, const cv::Mat &luma, const Quad &q, hkcv_card_type type);

class Still {
public:
    Still(const hkcv_image &frame, const Quad &card, int64_t pts, const hkcv_config &config,
          std::shared_ptr<FaceFinder> faces);

    int64_t pts() const { return pts_; }
    // JPEG of the rectified card or of its head crop.
    hkcv_status encode(hkcv_still_kind kind, std::vector<uint8_t> &jpeg);
    // The head crop's rectangle in the rectified still, and the still's size.
    void head_region(cv::Rect &rect, cv::Size &still_size, bool &face_found);

private:
    const cv::Mat &bgr();               // under mutex_
    void find_head(cv::Rect &rect, bool &face_found);  // under mutex_

    const CardCrop source_;
    const int64_t pts_;
    const int width_, jpeg_quality_;
    const hkcv_card_type card_type_;
    const std::shared_ptr<FaceFinder> faces_;

    // Filled on first use; a still asked for from two threads is rectified once.
    std::mutex mutex_;
    cv::Mat bgr_;
    std::optional<std::pair<cv::Rect, bool>> head_;
};

}  // namespace cardvision
