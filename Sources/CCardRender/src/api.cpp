// api.cpp — the extern "C" boundary of the renderer: argument checks, output
// format conversion, no exception crosses it.
#include "scene.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>

struct cr_renderer {
    explicit cr_renderer(uint64_t seed) : impl(seed) {}
    cardrender::Renderer impl;
};

using namespace cardrender;

static constexpr int kMaxSide = 8192;

static bool hands_valid(const cr_scene &s) {
    for (const cr_hand_part &p : s.hands) {
        if (p.kind == CR_HAND_NONE) continue;
        if (p.kind != CR_HAND_THUMB && p.kind != CR_HAND_PALM) return false;
        if (p.edge < CR_EDGE_TOP || p.edge > CR_EDGE_LEFT || !std::isfinite(p.pos) || p.pos < -0.5 || p.pos > 1.5)
            return false;
        const bool thumb = p.kind == CR_HAND_THUMB;
        if (!(p.width_mm > (thumb ? 0 : 1) && p.width_mm < (thumb ? 60 : 150))) return false;
        if (!(p.reach_mm >= (thumb ? 0 : 1) && p.reach_mm < (thumb ? 60 : 150))) return false;
    }
    return true;
}

static bool scene_valid(const cr_scene &s) {
    auto finite = [](double v) { return std::isfinite(v); };
    return s.width > 0 && s.height > 0 && s.width <= kMaxSide && s.height <= kMaxSide && s.hfov_deg >= 10 &&
           s.hfov_deg <= 170 && (s.card_type == CR_CARD_2018 || s.card_type == CR_CARD_2003) &&
           finite(s.center_x) && finite(s.center_y) && s.distance_mm > 10 && s.distance_mm < 1e5 &&
           std::abs(s.yaw_deg) < 89 && std::abs(s.pitch_deg) < 89 && finite(s.roll_deg) && s.brightness >= 0 &&
           s.brightness <= 10 && s.noise_sigma >= 0 && s.noise_sigma <= 100 && s.blur_sigma >= 0 &&
           s.blur_sigma <= 50 && s.motion_blur_px >= 0 && s.motion_blur_px <= 200 && finite(s.motion_blur_deg) &&
           s.glare_radius_mm >= 0 && s.glare_radius_mm <= 100 && finite(s.glare_u) && finite(s.glare_v) &&
           finite(s.glare_strength) && s.thumb_edge >= CR_EDGE_TOP && s.thumb_edge <= CR_EDGE_LEFT &&
           finite(s.thumb_pos) && s.thumb_width_mm > 0 && s.thumb_width_mm < 60 && s.thumb_reach_mm >= 0 &&
           s.thumb_reach_mm < 60 && std::abs(s.background_dx) < 60 && std::abs(s.background_dy) < 60 &&
           hands_valid(s) && (s.inner_frames == 0 || s.inner_frames == 1) && s.background_lift >= 0 &&
           s.background_lift <= 0.95 && (s.limited_range == 0 || s.limited_range == 1) &&
           (s.ovi == 0 || s.ovi == 1) && s.material >= CR_MATERIAL_GENUINE && s.material <= CR_MATERIAL_SCREEN &&
           s.torch >= 0 && s.torch <= 1 && s.screen_bezel >= 0 && s.screen_bezel <= 0.2 && s.shadow >= 0 &&
           s.shadow <= 0.85 && finite(s.shadow_x) && finite(s.shadow_y) && finite(s.shadow_angle_deg) &&
           s.shadow_soft_px >= 0 && s.shadow_soft_px <= 500 && s.compression_quality >= 0 &&
           s.compression_quality <= 100 && (s.person == 0 || s.person == 1) && s.person_size >= 0.05 &&
           s.person_size <= 0.5 && s.person_x >= -0.5 && s.person_x <= 1.5 &&
           (s.person_badge == 0 || s.person_badge == 1);
}

extern "C" {

void cr_scene_default(cr_scene *s) {
    if (!s) return;
    *s = cr_scene{};
    s->width = 1280;
    s->height = 720;
    s->hfov_deg = 62;
    s->card_visible = 1;
    s->card_type = CR_CARD_2018;
    s->center_x = (s->width - 1) * 0.5;
    s->center_y = (s->height - 1) * 0.5;
    s->distance_mm = 250;
    s->brightness = 1;
    s->noise_sigma = 2;
    s->glare_u = 0.6;
    s->glare_v = 0.4;
    s->glare_radius_mm = 8;
    s->glare_strength = 1;
    s->thumb_edge = CR_EDGE_BOTTOM;
    s->thumb_pos = 0.5;
    s->thumb_width_mm = 18;
    s->thumb_reach_mm = 10;
    s->ovi = 1;  // every genuine card has one (card_render.h)
    s->shadow_x = 0.5;
    s->shadow_y = 0.5;
    s->shadow_soft_px = 12;
    s->person_size = 0.2;
    s->person_x = 0.5;
}

cr_renderer *cr_renderer_create(uint64_t seed, int *err) {
    try {
        auto *r = new cr_renderer(seed);
        if (err) *err = CR_OK;
        return r;
    } catch (...) {
        if (err) *err = CR_ERR_INTERNAL;
        return nullptr;
    }
}

void cr_renderer_destroy(cr_renderer *r) { delete r; }

cr_status cr_renderer_set_photo(cr_renderer *r, cr_photo_slot slot, const char *path) {
    if (!r) return CR_ERR_NULL;
    if (slot != CR_PHOTO_BACKGROUND && slot != CR_PHOTO_PAPER && slot != CR_PHOTO_PORTRAIT) return CR_ERR_ARG;
    try {
        return r->impl.set_photo(slot, path);
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

cr_status cr_render_bgr(cr_renderer *r, const cr_scene *s, uint8_t *bgr, int stride, cr_truth *truth) {
    if (!r || !s || !bgr) return CR_ERR_NULL;
    if (!scene_valid(*s)) return CR_ERR_ARG;
    if (stride < 3 * s->width) return CR_ERR_SIZE;
    try {
        cv::Mat out(s->height, s->width, CV_8UC3, bgr, size_t(stride));
        cv::Mat frame;
        cr_status st = r->impl.render(*s, frame, truth);
        if (st != CR_OK) return st;
        if (s->compression_quality > 0) compress(frame, s->compression_quality);
        frame.copyTo(out);
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

cr_status cr_render_i420(cr_renderer *r, const cr_scene *s, uint8_t *y, int ys, uint8_t *u, int us, uint8_t *v,
                         int vs, cr_truth *truth) {
    if (!r || !s || !y || !u || !v) return CR_ERR_NULL;
    if (!scene_valid(*s)) return CR_ERR_ARG;
    if ((s->width & 1) || (s->height & 1) || ys < s->width || us < s->width / 2 || vs < s->width / 2)
        return CR_ERR_SIZE;
    try {
        cv::Mat frame;
        cr_status st = r->impl.render(*s, frame, truth);
        if (st != CR_OK) return st;
        // Full-range BT.601 (JPEG) Y'CbCr, chroma averaged over 2x2.
        cv::Matx34f m(0.114f, 0.587f, 0.299f, 0.f,
                      0.5f, -0.331264f, -0.168736f, 128.f,
                      -0.081312f, -0.418688f, 0.5f, 128.f);
        if (s->limited_range) {
            // Studio swing: Y' = 16 + 219/255 Y, C = 128 + 224/255 (C - 128).
            for (int c = 0; c < 3; ++c) {
                m(0, c) *= 219.f / 255.f;
                m(1, c) *= 224.f / 255.f;
                m(2, c) *= 224.f / 255.f;
            }
            m(0, 3) = 16.f;
        }
        cv::Mat yuv;
        cv::transform(frame, yuv, m);
        cv::Mat planes[3];
        cv::split(yuv, planes);
        const cv::Size half(s->width / 2, s->height / 2);
        cv::Mat ud, vd;
        cv::resize(planes[1], ud, half, 0, 0, cv::INTER_AREA);
        cv::resize(planes[2], vd, half, 0, 0, cv::INTER_AREA);
        if (s->compression_quality > 0)
            for (cv::Mat *plane : {&planes[0], &ud, &vd}) compress(*plane, s->compression_quality);
        planes[0].copyTo(cv::Mat(s->height, s->width, CV_8UC1, y, size_t(ys)));
        ud.copyTo(cv::Mat(half, CV_8UC1, u, size_t(us)));
        vd.copyTo(cv::Mat(half, CV_8UC1, v, size_t(vs)));
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

cr_status cr_render_card_face(cr_renderer *r, cr_card_type type, int width, int height, uint8_t *bgr, int stride) {
    if (!r || !bgr) return CR_ERR_NULL;
    if (type != CR_CARD_2018 && type != CR_CARD_2003) return CR_ERR_ARG;
    if (width <= 0 || height <= 0 || width > kMaxSide || height > kMaxSide || stride < 3 * width) return CR_ERR_SIZE;
    try {
        r->impl.face_raster(type, cv::Size(width, height)).copyTo(cv::Mat(height, width, CV_8UC3, bgr, size_t(stride)));
        return CR_OK;
    } catch (...) {
        return CR_ERR_INTERNAL;
    }
}

void cr_set_opencv_threads(int threads) {
    try {
        cv::setNumThreads(threads <= 0 ? -1 : threads);
    } catch (...) {
    }
}

}  // extern "C"
