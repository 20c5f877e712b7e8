// api.cpp — the extern "C" boundary: argument checks, and no exception ever
// crosses it (OpenCV errors become CV_ERR_INTERNAL, the tracker stays usable).
#include "tracker.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

struct cv_tracker {
    explicit cv_tracker(const cv_config &c) : impl(c) {}
    cardvision::Tracker impl;
};

struct cv_still {
    std::shared_ptr<cardvision::Still> impl;
};

// The C side of an encoded image: malloc'd, released with cv_buffer_free.
static cv_status to_buffer(const std::vector<uint8_t> &jpeg, cv_buffer *out) {
    out->data = static_cast<uint8_t *>(std::malloc(jpeg.size()));
    if (!out->data) return CV_ERR_INTERNAL;
    std::memcpy(out->data, jpeg.data(), jpeg.size());
    out->size = jpeg.size();
    return CV_OK;
}

static cv_status encode(cardvision::Still *still, cv_still_kind kind, cv_buffer *out) {
    if (out) {
        out->data = nullptr;
        out->size = 0;
    }
    if (!out) return CV_ERR_NULL;
    if (kind != CV_STILL_CARD && kind != CV_STILL_HEAD) return CV_ERR_CONFIG;
    if (!still) return CV_ERR_NO_STILL;
    try {
        std::vector<uint8_t> jpeg;
        cv_status s = still->encode(kind, jpeg);
        return s == CV_OK ? to_buffer(jpeg, out) : s;
    } catch (...) {
        return CV_ERR_INTERNAL;
    }
}

static cv_status head_region(cardvision::Still *still, float rect[4], int *face_found) {
    if (!rect) return CV_ERR_NULL;
    if (!still) return CV_ERR_NO_STILL;
    try {
        cv::Rect r;
        cv::Size size;
        bool face = false;
        still->head_region(r, size, face);
        rect[0] = float(r.x) / size.width;
        rect[1] = float(r.y) / size.height;
        rect[2] = float(r.width) / size.width;
        rect[3] = float(r.height) / size.height;
        if (face_found) *face_found = face ? 1 : 0;
        return CV_OK;
    } catch (...) {
        return CV_ERR_INTERNAL;
    }
}

extern "C" {

const char *cv_status_string(int status) {
    switch (status) {
    case CV_OK: return "ok";
    case CV_ERR_NULL: return "a required pointer was NULL";
    case CV_ERR_SIZE: return "image size is zero, odd where it must be even, or too large";
    case CV_ERR_STRIDE: return "a stride is smaller than the plane's row";
    case CV_ERR_FORMAT: return "unsupported pixel format";
    case CV_ERR_CONFIG: return "a configuration value is out of range";
    case CV_ERR_NO_STILL: return "no still has been captured";
    case CV_ERR_IO: return "a file could not be read";
    case CV_ERR_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

void cv_config_default(cv_config *c) {
    if (!c) return;
    c->card_type = CV_CARD_2018;
    c->hfov_deg = 62.0;
    c->estimate_focal = 1;
    c->detect_long_side = 640;
    c->front_max_deg = 10.0;
    c->glare_luma = 250;
    c->still_width = 856;
    c->jpeg_quality = 90;
    c->face_cascade_path = nullptr;
}

static bool config_valid(const cv_config &c) {
    return (c.card_type == CV_CARD_2018 || c.card_type == CV_CARD_2003) && c.hfov_deg >= 10 &&
           c.hfov_deg <= 170 && c.detect_long_side >= 160 && c.detect_long_side <= 4096 &&
           c.front_max_deg > 0 && c.front_max_deg < 90 && c.glare_luma >= 1 && c.glare_luma <= 255 &&
           c.still_width >= 64 && c.still_width <= 4096 && c.jpeg_quality >= 1 && c.jpeg_quality <= 100;
}

cv_tracker *cv_tracker_create(const cv_config *config, int *err) {
    auto fail = [&](int code) -> cv_tracker * {
        if (err) *err = code;
        return nullptr;
    };
    cv_config c;
    cv_config_default(&c);
    if (config) c = *config;
    if (!config_valid(c)) return fail(CV_ERR_CONFIG);
    if (c.face_cascade_path && c.face_cascade_path[0]) {
        // The cascade itself is loaded on first use (it takes tens of ms);
        // an explicit path that cannot be read is an error now.
        FILE *f = std::fopen(c.face_cascade_path, "rb");
        if (!f) return fail(CV_ERR_IO);
        std::fclose(f);
    }
    try {
        auto *t = new cv_tracker(c);
        if (err) *err = CV_OK;
        return t;
    } catch (...) {
        return fail(CV_ERR_INTERNAL);
    }
}

void cv_tracker_destroy(cv_tracker *t) { delete t; }

cv_status cv_tracker_reset(cv_tracker *t) {
    if (!t) return CV_ERR_NULL;
    try {
        t->impl.reset();
        return CV_OK;
    } catch (...) {
        return CV_ERR_INTERNAL;
    }
}

cv_status cv_tracker_set_card_type(cv_tracker *t, cv_card_type type) {
    if (!t) return CV_ERR_NULL;
    if (type != CV_CARD_2018 && type != CV_CARD_2003) return CV_ERR_CONFIG;
    t->impl.set_card_type(type);
    return CV_OK;
}

cv_status cv_tracker_process(cv_tracker *t, const cv_image *image, int64_t pts_ns, cv_measurement *out) {
    if (out) {
        *out = cv_measurement{};
        out->pts_ns = pts_ns;
    }
    if (!t || !image || !out) return CV_ERR_NULL;
    cv_status s = cardvision::validate_image(image);
    if (s != CV_OK) return s;
    try {
        t->impl.process(*image, pts_ns, *out);
        return CV_OK;
    } catch (...) {
        *out = cv_measurement{};
        out->pts_ns = pts_ns;
        try { t->impl.reset(); } catch (...) {}
        return CV_ERR_INTERNAL;
    }
}

int cv_tracker_has_still(const cv_tracker *t, int64_t *pts_ns) {
    if (!t) return 0;
    const auto still = t->impl.still();
    if (still && pts_ns) *pts_ns = still->pts();
    return still ? 1 : 0;
}

cv_status cv_tracker_encode_still(cv_tracker *t, cv_still_kind kind, cv_buffer *out) {
    if (!t) {
        if (out) *out = cv_buffer{};
        return CV_ERR_NULL;
    }
    return encode(t->impl.still().get(), kind, out);
}

cv_status cv_tracker_head_region(cv_tracker *t, float rect[4], int *face_found) {
    if (!t) return CV_ERR_NULL;
    return head_region(t->impl.still().get(), rect, face_found);
}

cv_status cv_tracker_take_still(const cv_tracker *t, cv_still **out) {
    if (out) *out = nullptr;
    if (!t || !out) return CV_ERR_NULL;
    auto still = t->impl.still();
    if (!still) return CV_ERR_NO_STILL;
    *out = new (std::nothrow) cv_still{std::move(still)};
    return *out ? CV_OK : CV_ERR_INTERNAL;
}

cv_status cv_still_encode(cv_still *still, cv_still_kind kind, cv_buffer *out) {
    if (!still) {
        if (out) *out = cv_buffer{};
        return CV_ERR_NULL;
    }
    return encode(still->impl.get(), kind, out);
}

cv_status cv_still_head_region(cv_still *still, float rect[4], int *face_found) {
    if (!still) return CV_ERR_NULL;
    return head_region(still->impl.get(), rect, face_found);
}

int64_t cv_still_pts(const cv_still *still) { return still ? still->impl->pts() : 0; }

void cv_still_release(cv_still *still) { delete still; }

cv_status cv_tracker_clear_still(cv_tracker *t) {
    if (!t) return CV_ERR_NULL;
    t->impl.clear_still();
    return CV_OK;
}

void cv_buffer_free(cv_buffer *b) {
    if (!b) return;
    std::free(b->data);
    b->data = nullptr;
    b->size = 0;
}

const char *cv_version(void) { return "1.2.0"; }

}  // extern "C"
