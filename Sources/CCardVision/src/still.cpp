// still.cpp — the portrait crop of a rectified card still.
//
// The layout gives the portrait area (2018: large photo on the left half of
// the face; 2003: on the right half). A face detector tightens it to the
// head when it finds a face; otherwise the layout area is the crop.
//
// Two OpenCV cascades, cheapest first: the LBP frontal-face cascade parses
// in about 1 ms, the Haar one in about 20 ms (900 kB of XML), which was a
// tenth of a whole 720p replay's overhead. Card portraits are frontal, posed
// and evenly lit, which is what the LBP cascade is good at; the Haar cascade
// is loaded only when the LBP one finds nothing.

#include "internal.hpp"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace cardvision {

// cv::FeatureEvaluator::LBP; the enum is private to OpenCV's objdetect.
static constexpr int kLbpFeatures = 1;

cv::Rect2d portrait_area(cv_card_type type) {
    // Fractions of the card face (x, y, w, h), generous around the photo.
    if (type == CV_CARD_2003) return {0.56, 0.16, 0.42, 0.80};
    return {0.02, 0.16, 0.42, 0.80};
}

cv::Rect portrait_region(const cv::Mat &still, cv_card_type type) {
    const cv::Rect2d a = portrait_area(type);
    cv::Rect area(int(a.x * still.cols), int(a.y * still.rows), int(a.width * still.cols),
                  int(a.height * still.rows));
    return area & cv::Rect(0, 0, still.cols, still.rows);
}

// The face is searched for on the portrait area shrunk to this width: a
// card portrait's face spans about a third of it, so it still measures
// ~55 px, above the cascades' 24 px window, and the search runs on the frame
// that reports the result, where latency counts (13.7 ms at full size in a
// live replay). The finer scale step matters at this size: with 1.1 the LBP
// cascade missed the face on 1 to 2 of the 9 samples that end with a head
// still (and the 20 ms Haar fallback ran); with 1.05 on none.
static constexpr int kFaceSearchWidth = 192;
static constexpr double kFaceScaleStep = 1.05;

std::optional<cv::Rect> find_head(const cv::Mat &portrait_gray, cv::CascadeClassifier &cascade) {
    if (cascade.empty()) return std::nullopt;
    const double scale = std::min(1.0, double(kFaceSearchWidth) / portrait_gray.cols);
    cv::Mat small = portrait_gray;
    if (scale < 1.0) cv::resize(portrait_gray, small, cv::Size(), scale, scale, cv::INTER_AREA);
    std::vector<cv::Rect> faces;
    const int min_face = std::max(24, small.cols / 5);
    cascade.detectMultiScale(small, faces, kFaceScaleStep, 3, 0, cv::Size(min_face, min_face));
    if (faces.empty()) {
        // A dim or washed-out still: retry with the contrast stretched.
        cv::Mat stretched;
        cv::equalizeHist(small, stretched);
        cascade.detectMultiScale(stretched, faces, kFaceScaleStep, 3, 0, cv::Size(min_face, min_face));
    }
    if (faces.empty()) return std::nullopt;
    const cv::Rect found = *std::max_element(faces.begin(), faces.end(),
                                             [](const cv::Rect &x, const cv::Rect &y) { return x.area() < y.area(); });
    const cv::Rect2d f(found.x / scale, found.y / scale, found.width / scale, found.height / scale);
    // From the detector's face box to the whole head with some hair and
    // chin. Haar's box runs from the brows to the mouth; the LBP cascade's is
    // tighter (eyes to mouth) and sits lower. The factors map both onto the
    // same head box; they were measured on the same stills.
    const bool lbp = cascade.getFeatureType() == kLbpFeatures;
    const double centre_y = lbp ? 0.49 : 0.55, width = lbp ? 2.8 : 1.7, height = lbp ? 3.45 : 2.1;
    const cv::Point2d c(f.x + f.width * 0.5, f.y + f.height * centre_y);
    const double w = f.width * width, h = f.height * height;
    cv::Rect head(int(c.x - w / 2), int(c.y - h / 2), int(w), int(h));
    head &= cv::Rect(0, 0, portrait_gray.cols, portrait_gray.rows);
    if (head.area() <= 0) return std::nullopt;
    return head;
}

}  // namespace cardvision
