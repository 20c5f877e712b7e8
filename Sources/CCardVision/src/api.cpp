// api.cpp — the extern "C" boundary: argument checks, and no exception ever
// crosses it (OpenCV errors become HKCV_ERR_INTERNAL, the tracker stays usable).
#include "tracker.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

struct hkcv_tracker {
    explicit hkcv_tracker(const hkcv_config &c) : impl(c) {}
    cardvision::Tracker impl;
};

struct hkcv_still {
    std::shared_ptr<cardvision::Still> impl;
};

// The C side of an encoded image: malloc'd, released with hkcv_buffer_free.
static hkcv_status to_buffer(const std::vector<uint8_t> &jpeg, hkcv_buffer *out) {
    out->data = static_cast<uint8_t *>(std::malloc(jpeg.size()));
    if (!out->data) return HKCV_ERR_INTERNAL;
    std::memcpy(out->data, jpeg.data(), jpeg.size());
    out->size = jpeg.size();
    return HKCV_OK;
}

static hkcv_status encode(cardvision::Still *still, hkcv_still_kind kind, hkcv_buffer *out) {
    if (out) {
        out->data = nullptr;
        out->size = 0;
    }
    if (!out) return HKCV_ERR_NULL;
    if (kind != HKCV_STILL_CARD && kind != HKCV_STILL_HEAD) return HKCV_ERR_CONFIG;
    if (!still) return HKCV_ERR_NO_STILL;
    try {
        std::vector<uint8_t> jpeg;
        hkcv_status s = still->encode(kind, jpeg);
        return s == HKCV_OK ? to_buffer(jpeg, out) : s;
    } catch (...) {
        return HKCV_ERR_INTERNAL;
    }
}

static hkcv_status head_region(cardvision::Still *still, float rect[4], int *face_found) {
    if (!rect) return HKCV_ERR_NULL;
    if (!still) return HKCV_ERR_NO_STILL;
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
        return HKCV_OK;
    } catch (...) {
        return HKCV_ERR_INTERNAL;
    }
}

extern "C" {

const char *hkcv_status_string(int status) {
    switch (status) {
    case HKCV_OK: return "ok";
    case HKCV_ERR_NULL: return "a required pointer was NULL";
    case HKCV_ERR_SIZE: return "image size is zero, odd where it must be even, or too large";
    case HKCV_ERR_STRIDE: return "a stride is smaller than the plane's row";
    case HKCV_ERR_FORMAT: return "unsupported pixel format";
    case HKCV_ERR_CONFIG: return "a configuration value is out of range";
    case HKCV_ERR_NO_STILL: return "no still has been captured";
    case HKCV_ERR_IO: return "a file could not be read";
    case HKCV_ERR_INTERNAL: return "internal error";
    default: return "unknown status";
    }
}

void hkcv_config_default(hkcv_config *c) {
    if (!c) return;
    c->card_type = HKCV_CARD_2018;
    c->hfov_deg = 62.0;
    c->estimate_focal = 1;
    c->detect_long_side = 640;
    c->front_max_deg = 10.0;
    c->border_margin = 0.01;
    c->glare_luma = 250;
    c->liveness_evidence = 1;
    c->still_width = 856;
    c->jpeg_quality = 90;
    c->face_cascade_path = nullptr;
    c->material_min_width = 0.25;
    c->material_max_width = 0.90;
    c->material_max_glare = 0.25;
}

static bool config_valid(const hkcv_config &c) {
    return (c.card_type == HKCV_CARD_2018 || c.card_type == HKCV_CARD_2003) && c.hfov_deg >= 10 &&
           c.hfov_deg <= 170 && c.detect_long_side >= 160 && c.detect_long_side <= 4096 &&
           c.front_max_deg > 0 && c.front_max_deg < 90 &&
           c.border_margin >= 0 && c.border_margin < 0.5 && c.glare_luma >= 1 && c.glare_luma <= 255 &&
           c.still_width >= 64 && c.still_width <= 4096 && c.jpeg_quality >= 1 && c.jpeg_quality <= 100 &&
           c.material_min_width >= 0 && c.material_min_width < c.material_max_width &&
           c.material_max_glare >= 0 && c.material_max_glare <= 1;
}

void hkcv_set_opencv_threads(int threads) {
    try {
        cv::setNumThreads(std::max(1, threads));
    } catch (...) {
        // OpenCV does not throw here; nothing may cross the C boundary if it did.
    }
}

hkcv_tracker *hkcv_tracker_create(const hkcv_config *config, int *err) {
    auto fail = [&](int code) -> hkcv_tracker * {
        if (err) *err = code;
        return nullptr;
    };
    hkcv_config c;
    hkcv_config_default(&c);
    if (config) c = *config;
    if (!config_valid(c)) return fail(HKCV_ERR_CONFIG);
    if (c.face_cascade_path && c.face_cascade_path[0]) {
        // The cascade itself is loaded on first use (it takes tens of ms);
        // an explicit path that cannot be read is an error here, at
        // creation, not at the first still.
        FILE *f = std::fopen(c.face_cascade_path, "rb");
        if (!f) return fail(HKCV_ERR_IO);
        std::fclose(f);
    }
    try {
        auto *t = new hkcv_tracker(c);
        if (err) *err = HKCV_OK;
        return t;
    } catch (...) {
        return fail(HKCV_ERR_INTERNAL);
    }
}

void hkcv_tracker_destroy(hkcv_tracker *t) { delete t; }

hkcv_status hkcv_tracker_reset(hkcv_tracker *t) {
    if (!t) return HKCV_ERR_NULL;
    try {
        t->impl.reset();
        return HKCV_OK;
    } catch (...) {
        return HKCV_ERR_INTERNAL;
    }
}

hkcv_status hkcv_tracker_set_card_type(hkcv_tracker *t, hkcv_card_type type) {
    if (!t) return HKCV_ERR_NULL;
    if (type != HKCV_CARD_2018 && type != HKCV_CARD_2003) return HKCV_ERR_CONFIG;
    t->impl.set_card_type(type);
    return HKCV_OK;
}

hkcv_status hkcv_tracker_process(hkcv_tracker *t, const hkcv_image *image, int64_t pts_ns, hkcv_measurement *out) {
    if (out) {
        *out = hkcv_measurement{};
        out->pts_ns = pts_ns;
    }
    if (!t || !image || !out) return HKCV_ERR_NULL;
    hkcv_status s = cardvision::validate_image(image);
    if (s != HKCV_OK) return s;
    try {
        t->impl.process(*image, pts_ns, *out);
        return HKCV_OK;
    } catch (...) {
        *out = hkcv_measurement{};
        out->pts_ns = pts_ns;
        try { t->impl.reset(); } catch (...) {}
        return HKCV_ERR_INTERNAL;
    }
}

hkcv_status hkcv_tracker_take_still(const hkcv_tracker *t, hkcv_still **out) {
    if (out) *out = nullptr;
    if (!t || !out) return HKCV_ERR_NULL;
    auto still = t->impl.still();
    if (!still) return HKCV_ERR_NO_STILL;
    *out = new (std::nothrow) hkcv_still{std::move(still)};
    return *out ? HKCV_OK : HKCV_ERR_INTERNAL;
}

hkcv_status hkcv_still_encode(hkcv_still *still, hkcv_still_kind kind, hkcv_buffer *out) {
    if (!still) {
        if (out) *out = hkcv_buffer{};
        return HKCV_ERR_NULL;
    }
    return encode(still->impl.get(), kind, out);
}

hkcv_status hkcv_still_head_region(hkcv_still *still, float rect[4], int *face_found) {
    if (!still) return HKCV_ERR_NULL;
    return head_region(still->impl.get(), rect, face_found);
}

int64_t hkcv_still_pts(const hkcv_still *still) { return still ? still->impl->pts() : 0; }

void hkcv_still_release(hkcv_still *still) { delete still; }

hkcv_status hkcv_tracker_liveness(const hkcv_tracker *t, hkcv_liveness *out) {
    if (out) *out = hkcv_liveness{};
    if (!t || !out) return HKCV_ERR_NULL;
    try {
        *out = t->impl.liveness().summary();
        return HKCV_OK;
    } catch (...) {
        return HKCV_ERR_INTERNAL;
    }
}

hkcv_status hkcv_tracker_restart_material(hkcv_tracker *t) {
    if (!t) return HKCV_ERR_NULL;
    t->impl.restart_material();
    return HKCV_OK;
}

void hkcv_buffer_free(hkcv_buffer *b) {
    if (!b) return;
    std::free(b->data);
    b->data = nullptr;
    b->size = 0;
}

}  // extern "C"
