// tracker.hpp — one card holder's tracker: search, track, pose, photometry,
// and the best front-on still.
#pragma once

#include "internal.hpp"

#include <opencv2/objdetect.hpp>

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

class Tracker {
public:
    explicit Tracker(const cv_config &config);

    void reset();
    void set_card_type(cv_card_type t) { config_.card_type = t; }
    // image has been validated.
    void process(const cv_image &image, int64_t pts_ns, cv_measurement &out);

    bool has_still(int64_t *pts) const;
    void clear_still() {
        still_source_ = CardCrop();
        still_bgr_ = cv::Mat();
        still_score_ = -1e9;
    }
    // Encoded JPEG of the kept still or its portrait crop; empty if none.
    cv_status encode_still(cv_still_kind kind, std::vector<uint8_t> &jpeg);
    // The head crop's rectangle in the kept still.
    cv_status head_region(cv::Rect &rect, cv::Size &still_size, bool &face_found);

private:
    std::optional<Refinement> track(const cv::Mat &luma, double focal);
    std::optional<Refinement> search(const cv::Mat &luma, cv::Rect roi, double focal);
    std::optional<Refinement> polish(const cv::Mat &luma, const Quad &guess, float radius, double focal);
    void lose();
    void keep_still_if_better(const cv_image &image, const Quad &q, double score, int64_t pts);

    cv_config config_;
    // The head crop's face detectors, in the order they are tried.
    LazyCascade face_detector_, fallback_face_detector_;

    // Tracking state.
    bool tracking_ = false;
    Quad quad_{}, prev_quad_{};
    bool has_prev_quad_ = false;
    int64_t last_pts_ = 0;
    cv::Size frame_size_;
    cv::Mat luma_scratch_;
    PhotometryScratch photometry_;
    RefineScratch refine_;

    // Pose state.
    OneEuroFilter yaw_f_, pitch_f_, roll_f_;
    bool has_pose_ = false;
    double yaw_ = 0, pitch_ = 0, roll_ = 0, speed_ = 0;
    FocalEstimator focal_;

    // The kept still: the best view's pixels, warped on first use.
    CardCrop still_source_;
    cv::Mat still_bgr_;  // still_source_ rectified, on first use
    const cv::Mat &still_bgr();
    int64_t still_pts_ = 0;
    double still_score_ = -1e9;
};

}  // namespace cardvision
