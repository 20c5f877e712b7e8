// still.cpp — the portrait crop of a rectified card still.
//
// The layout gives the portrait area (2018: large photo on the left half of
// the face; 2003: on the right half). OpenCV's Haar frontal-face detector
// tightens it to the head when it finds a face; otherwise the layout area is
// the crop.
#include "internal.hpp"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace cardvision {

cv::Rect2d portrait_area(cv_card_type type) {
    // Fractions of the card face (x, y, w, h), generous around the photo.
    if (type == CV_CARD_2003) return {0.56, 0.16, 0.42, 0.80};
    return {0.02, 0.16, 0.42, 0.80};
}

cv::Rect head_region(const cv::Mat &still, cv_card_type type, void *cascade_ptr, bool *face_found) {
    if (face_found) *face_found = false;
    const cv::Rect2d a = portrait_area(type);
    cv::Rect area(int(a.x * still.cols), int(a.y * still.rows), int(a.width * still.cols),
                  int(a.height * still.rows));
    area &= cv::Rect(0, 0, still.cols, still.rows);
    cv::Rect crop = area;
    auto *cascade = static_cast<cv::CascadeClassifier *>(cascade_ptr);
    if (cascade && !cascade->empty()) {
        cv::Mat gray;
        cv::cvtColor(still(area), gray, cv::COLOR_BGR2GRAY);
        std::vector<cv::Rect> faces;
        const int min_face = std::max(24, area.width / 5);
        cascade->detectMultiScale(gray, faces, 1.1, 3, 0, cv::Size(min_face, min_face));
        if (faces.empty()) {
            // A dim or washed-out still: retry with the contrast stretched.
            cv::equalizeHist(gray, gray);
            cascade->detectMultiScale(gray, faces, 1.1, 3, 0, cv::Size(min_face, min_face));
        }
        if (!faces.empty()) {
            cv::Rect f = *std::max_element(faces.begin(), faces.end(),
                                           [](const cv::Rect &x, const cv::Rect &y) { return x.area() < y.area(); });
            // The Haar box covers brows to mouth; widen it to the whole head
            // with some hair and chin.
            cv::Point2d c(f.x + f.width * 0.5, f.y + f.height * 0.55);
            double w = f.width * 1.7, h = f.height * 2.1;
            cv::Rect head(int(c.x - w / 2), int(c.y - h / 2), int(w), int(h));
            head += area.tl();
            head &= area;
            if (head.area() > 0) {
                crop = head;
                if (face_found) *face_found = true;
            }
        }
    }
    return crop;
}

}  // namespace cardvision
