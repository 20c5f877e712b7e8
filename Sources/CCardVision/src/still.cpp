// still.cpp — a kept still (still.hpp), and the portrait crop of it.
//
// The layout gives the portrait area (2018: large photo on the left half of
// the face; 2003: on the right half). A face detector tightens it to the
// head when it finds a face; otherwise the layout area is the crop.
//
// Two OpenCV cascades, cheapest first: the LBP frontal-face cascade parses
// in about 1 ms, the Haar one in about 20 ms (900 kB of XML), a tenth of a
// whole 720p replay's overhead. Card portraits are frontal, posed
// and evenly lit, which is what the LBP cascade is good at; the Haar cascade
// is loaded only when the LBP one finds nothing.

#include "still.hpp"

#include "jpeg_encode.h"

#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <array>
#include <cstdlib>

namespace cardvision {

namespace {

// cv::FeatureEvaluator::LBP; the enum is private to OpenCV's objdetect.
constexpr int kLbpFeatures = 1;

// What one face cascade is asked for, and how its box becomes a head.
struct CascadeParams {
    // Boxes looked for, their width as fractions of the portrait area's.
    // The card layout fixes how large the face is within the area: the LBP
    // box spans 27-31 % of its width, the Haar box 49-51 %. Bounding the
    // LBP search to 25-50 % nearly halves its cost and finds the same boxes.
    double min_face, max_face;
    // From the detector's face box to the whole head with some hair and
    // chin: the head's centre (fraction of the box's height from its top)
    // and its size (box widths, box heights). Haar's box runs from the
    // brows to the mouth; the LBP cascade's is tighter (eyes to mouth) and
    // sits lower. Both map onto the same head box, measured on the same
    // stills.
    double head_centre_y, head_width, head_height;
};

// Every tuning constant of the portrait crop, in one place.
struct StillParams {
    // The portrait area, fractions of the card face (x, y, w, h): the photo
    // with a generous margin, on the left half of a 2018 card's face and on
    // the right half of a 2003 one.
    std::array<double, 4> portrait_2018{0.02, 0.16, 0.42, 0.80}, portrait_2003{0.56, 0.16, 0.42, 0.80};
    // The face is searched for on the portrait area shrunk to this width
    // (px; at full size the search costs about 14 ms).
    int face_search_width = 192;
    // Scale step between the sizes searched: the finer step matters at this
    // width, where the LBP cascade misses the face on about half of the
    // stills of a head with 1.1 (leaving it to the Haar fallback), on none
    // with 1.05.
    double face_scale_step = 1.05;
    // Smallest face box looked for, px, however small the area: the Haar
    // cascade's window, 24 px square (the LBP cascade's is 45).
    int min_face_px = 24;
    // Overlapping detections a face needs (OpenCV's default): a face is
    // found at several neighbouring places and sizes, a stray match in the
    // print around the photo seldom.
    int min_neighbours = 3;
    CascadeParams lbp{0.25, 0.5, 0.49, 2.8, 3.45}, haar{0.4, 0.75, 0.55, 1.7, 2.1};
};
constexpr StillParams kStill{};

}  // namespace

cv::Rect2d portrait_area(hkcv_card_type type) {
    const std::array<double, 4> &a = type == HKCV_CARD_2003 ? kStill.portrait_2003 : kStill.portrait_2018;
    return {a[0], a[1], a[2], a[3]};
}

cv::Rect portrait_region(const cv::Mat &still, hkcv_card_type type) {
    const cv::Rect2d a = portrait_area(type);
    cv::Rect area(int(a.x * still.cols), int(a.y * still.rows), int(a.width * still.cols),
                  int(a.height * still.rows));
    return area & cv::Rect(0, 0, still.cols, still.rows);
}

std::optional<cv::Rect> find_head(const cv::Mat &portrait_gray, cv::CascadeClassifier &cascade) {
    if (cascade.empty()) return std::nullopt;
    const double scale = std::min(1.0, double(kStill.face_search_width) / portrait_gray.cols);
    cv::Mat small = portrait_gray;
    if (scale < 1.0) cv::resize(portrait_gray, small, cv::Size(), scale, scale, cv::INTER_AREA);
    std::vector<cv::Rect> faces;
    const bool lbp = cascade.getFeatureType() == kLbpFeatures;
    const CascadeParams &kind = lbp ? kStill.lbp : kStill.haar;
    const int min_face = std::max(kStill.min_face_px, int(small.cols * kind.min_face));
    const int max_face = std::max(min_face, int(small.cols * kind.max_face));
    const cv::Size smallest(min_face, min_face), largest(max_face, max_face);
    cascade.detectMultiScale(small, faces, kStill.face_scale_step, kStill.min_neighbours, 0, smallest, largest);
    if (faces.empty()) {
        // A dim or washed-out still: retry with the contrast stretched.
        cv::Mat stretched;
        cv::equalizeHist(small, stretched);
        cascade.detectMultiScale(stretched, faces, kStill.face_scale_step, kStill.min_neighbours, 0, smallest,
                                 largest);
    }
    if (faces.empty()) return std::nullopt;
    const cv::Rect found = *std::max_element(faces.begin(), faces.end(),
                                             [](const cv::Rect &x, const cv::Rect &y) { return x.area() < y.area(); });
    const cv::Rect2d f(found.x / scale, found.y / scale, found.width / scale, found.height / scale);
    // From the detector's face box to the whole head (kind.head_*).
    const cv::Point2d c(f.x + f.width * 0.5, f.y + f.height * kind.head_centre_y);
    const double w = f.width * kind.head_width, h = f.height * kind.head_height;
    cv::Rect head(int(c.x - w / 2), int(c.y - h / 2), int(w), int(h));
    head &= cv::Rect(0, 0, portrait_gray.cols, portrait_gray.rows);
    if (head.area() <= 0) return std::nullopt;
    return head;
}

cv::CascadeClassifier *LazyCascade::get() {
    if (!tried && !path.empty()) {
        tried = true;
        if (!cascade.load(path)) cascade = cv::CascadeClassifier();
    }
    return cascade.empty() ? nullptr : &cascade;
}

FaceFinder::FaceFinder(const char *cascade_path) {
    if (cascade_path == nullptr) {
        first_.path = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml";
        fallback_.path = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
    } else {
        first_.path = cascade_path;
    }
}

std::optional<cv::Rect> FaceFinder::find(const cv::Mat &portrait_gray) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (LazyCascade *detector : {&first_, &fallback_}) {
        cv::CascadeClassifier *cascade = detector->get();
        if (!cascade) continue;
        if (auto head = find_head(portrait_gray, *cascade)) return head;
    }
    return std::nullopt;
}

std::optional<bool> portrait_shows_face(FaceFinder &faces, const cv::Mat &luma, const Quad &q, hkcv_card_type type) {
    const cv::Rect2d a = portrait_area(type);
    // The smallest face box the search looks for spans min_face_px of the
    // camera's pixels and lbp.min_face of the area's width, which is
    // a.width of the card's: a narrower card cannot show one.
    if (mean_width(q) * a.width * kStill.lbp.min_face < kStill.min_face_px) return std::nullopt;
    // The area's pixels to the card face at 10 px per mm to the camera's
    // pixels.
    const int face_w = int(std::lround(10 * kCardWidthMm)), face_h = int(std::lround(10 * kCardHeightMm));
    const int w = kStill.face_search_width;
    const int h = int(std::lround(w * (a.height * face_h) / (a.width * face_w)));
    const cv::Matx33d area(a.width * face_w / w, 0, a.x * face_w, 0, a.height * face_h / h, a.y * face_h, 0, 0, 1);
    const cv::Matx33d area_to_frame = raster_to_quad(q, face_w, face_h) * area;
    cv::Mat portrait;
    cv::warpPerspective(luma, portrait, cv::Mat(area_to_frame), cv::Size(w, h), cv::INTER_LINEAR | cv::WARP_INVERSE_MAP);
    return faces.find(portrait).has_value();
}

Still::Still(const hkcv_image &frame, const Quad &card, int64_t pts, const hkcv_config &config,
             std::shared_ptr<FaceFinder> faces)
    : source_([&] {
          CardCrop crop;
          crop.assign(frame, card);
          return crop;
      }()),
      pts_(pts),
      width_(config.still_width & ~1),
      jpeg_quality_(config.jpeg_quality),
      card_type_(config.card_type),
      faces_(std::move(faces)) {}

const cv::Mat &Still::bgr() {
    if (bgr_.empty()) {
        const int h = int(std::lround(width_ / kCardAspect)) & ~1;
        bgr_ = warp_colour(source_.view(), raster_to_quad(source_.quad, width_, h), width_, h).to_bgr();
    }
    return bgr_;
}

void Still::find_head(cv::Rect &rect, bool &face_found) {
    if (!head_) {
        const cv::Mat &card = bgr();
        const cv::Rect area = portrait_region(card, card_type_);
        cv::Mat gray;
        cv::cvtColor(card(area), gray, cv::COLOR_BGR2GRAY);
        const std::optional<cv::Rect> head = faces_ ? faces_->find(gray) : std::nullopt;
        head_ = head ? std::make_pair(*head + area.tl(), true) : std::make_pair(area, false);
    }
    rect = head_->first;
    face_found = head_->second;
}

void Still::head_region(cv::Rect &rect, cv::Size &still_size, bool &face_found) {
    std::lock_guard<std::mutex> lock(mutex_);
    find_head(rect, face_found);
    still_size = bgr().size();
}

hkcv_status Still::encode(hkcv_still_kind kind, std::vector<uint8_t> &jpeg) {
    std::lock_guard<std::mutex> lock(mutex_);
    cv::Mat picture = bgr();
    if (kind == HKCV_STILL_HEAD) {
        cv::Rect rect;
        bool face = false;
        find_head(rect, face);
        picture = picture(rect);
    }
    uint8_t *encoded = nullptr;
    size_t length = 0;
    if (cardvision_encode_jpeg_bgr(picture.ptr<uint8_t>(), picture.cols, picture.rows, int(picture.step[0]),
                                   jpeg_quality_, &encoded, &length) != 0)
        return HKCV_ERR_INTERNAL;
    jpeg.assign(encoded, encoded + length);
    std::free(encoded);
    return HKCV_OK;
}

}  // namespace cardvision
