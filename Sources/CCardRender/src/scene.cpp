// scene.cpp — one frame: background, the card's shadow, the card projected
// through the exact camera, thumb, optics and noise; plus the ground truth.
#include "scene.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace cardrender {

static constexpr double kFacePpm = 16.0;   // finest face raster, px per mm
static constexpr int kFaceLevels = 4;      // 16, 8, 4, 2 px/mm
static constexpr int kBackgroundMargin = 64;

Renderer::Renderer(uint64_t seed) : seed_(seed), rng_(seed ^ 0xC0FFEEull) {}

cr_status Renderer::set_photo(cr_photo_slot slot, const char *path) {
    cv::Mat photo;
    if (path && *path) {
        photo = load_jpeg(path);
        if (photo.empty()) return CR_ERR_IO;
    }
    photos_[slot] = photo;
    // Whatever was drawn from the old photograph is redrawn on demand.
    if (slot == CR_PHOTO_BACKGROUND) backgrounds_.clear();
    else faces_.clear();
    return CR_OK;
}

const Renderer::FacePyramid &Renderer::face(cr_card_type type, bool inner_frames, cr_material material, bool ovi) {
    const bool copy = material == CR_MATERIAL_COLOUR_COPY || material == CR_MATERIAL_GREY_COPY;
    const int key = int(type) | (inner_frames ? 2 : 0) | (copy ? int(material) << 2 : 0) | (copy && ovi ? 16 : 0);
    auto it = faces_.find(key);
    if (it != faces_.end()) return it->second;
    FacePyramid p;
    double ppm = kFacePpm;
    FaceOptions options;
    options.inner_frames = inner_frames;
    if (!photos_[CR_PHOTO_PAPER].empty()) options.paper = &photos_[CR_PHOTO_PAPER];
    if (!photos_[CR_PHOTO_PORTRAIT].empty()) options.portrait = &photos_[CR_PHOTO_PORTRAIT];
    cv::Mat level = draw_card_face(type, ppm, seed_, options);
    if (copy) {
        // A copy is printed from the card seen straight on: its patch is
        // ink of the front-on hue, the same at every angle.
        if (ovi) draw_ovi(level, ppm, type, seed_, 0, 0);
        make_copy(level, ppm, material);
    }
    for (int i = 0; i < kFaceLevels; ++i) {
        p.levels.push_back(level);
        p.alphas.push_back(card_alpha(level.size(), ppm));
        p.ppm.push_back(ppm);
        cv::Mat next;
        cv::resize(level, next, cv::Size(), 0.5, 0.5, cv::INTER_AREA);
        level = next;
        ppm *= 0.5;
    }
    return faces_.emplace(key, std::move(p)).first->second;
}

const cv::Mat &Renderer::background(cv::Size size) {
    auto key = std::make_pair(size.width, size.height);
    auto it = backgrounds_.find(key);
    if (it != backgrounds_.end()) return it->second;
    const cv::Size full = size + cv::Size(2 * kBackgroundMargin, 2 * kBackgroundMargin);
    cv::Mat bg = photos_[CR_PHOTO_BACKGROUND].empty() ? draw_background(full, seed_)
                                                     : cover(photos_[CR_PHOTO_BACKGROUND], full);
    return backgrounds_.emplace(key, bg).first->second;
}

const PersonLayer &Renderer::person(cv::Size size, const cr_scene &s) {
    const std::array<long, 5> key{size.width, size.height, std::lround(s.person_size * 1e6),
                                  std::lround(s.person_x * 1e6), s.person_badge};
    auto it = people_.find(key);
    if (it != people_.end()) return it->second;
    const cv::Size full = size + cv::Size(2 * kBackgroundMargin, 2 * kBackgroundMargin);
    return people_.emplace(key, draw_person(full, kBackgroundMargin, s, seed_)).first->second;
}

cv::Mat Renderer::face_raster(cr_card_type type, cv::Size size) {
    const FacePyramid &p = face(type);
    cv::Mat out;
    cv::resize(p.levels[0], out, size, 0, 0, cv::INTER_AREA);
    return out;
}

cr_status Renderer::render(const cr_scene &s, cv::Mat &frame, cr_truth *truth) {
    const cv::Size size(s.width, s.height);
    const double bright = s.brightness;

    // Background, shifted by the camera shake (sub-pixel).
    const cv::Mat &bg = background(size);
    cv::Matx23d shift(1, 0, kBackgroundMargin + s.background_dx, 0, 1, kBackgroundMargin + s.background_dy);
    cv::warpAffine(bg, frame, shift, size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REFLECT);
    // warpAffine with WARP_INVERSE_MAP maps dst->src: src = dst + margin + d.
    // A light desk: the background's levels squeezed towards white.
    if (s.background_lift > 0) frame.convertTo(frame, -1, 1 - s.background_lift, 255 * s.background_lift);
    // The person sits in front of the background, in the room's light.
    if (s.person) {
        const PersonLayer &layer = person(size, s);
        PersonLayer shifted;
        cv::warpAffine(layer.bgr, shifted.bgr, shift, size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP);
        cv::warpAffine(layer.cover, shifted.cover, shift, size, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP);
        lay_over(frame, shifted);
    }
    if (std::abs(bright - 1.0) > 1e-6) frame.convertTo(frame, -1, bright, 0);

    cr_truth t{};
    const Camera cam = make_camera(s);
    t.focal_px = cam.f;
    t.yaw = float(s.yaw_deg);
    t.pitch = float(s.pitch_deg);
    t.roll = float(s.roll_deg);

    if (s.card_visible) {
        const double hw = kCardWidthMm / 2, hh = kCardHeightMm / 2;
        const double cxs[4] = {-hw, hw, hw, -hw}, cys[4] = {-hh, -hh, hh, hh};
        cv::Point2d corners[4];
        for (int i = 0; i < 4; ++i)
            if (!cam.project(cxs[i], cys[i], corners[i])) return CR_ERR_ARG;
        for (int i = 0; i < 4; ++i) {
            t.corners[2 * i] = float(corners[i].x);
            t.corners[2 * i + 1] = float(corners[i].y);
        }
        t.width_ratio = float(0.5 * (cv::norm(corners[1] - corners[0]) + cv::norm(corners[2] - corners[3])) / s.width);
        double longest = 0;
        for (int i = 0; i < 4; ++i)
            longest = std::max(longest, cv::norm(corners[(i + 1) % 4] - corners[i]) / (i % 2 ? kCardHeightMm : kCardWidthMm));

        // Face raster: the coarsest pyramid level still finer than the
        // image (no aliasing from the warp).
        const bool copy = s.material == CR_MATERIAL_COLOUR_COPY || s.material == CR_MATERIAL_GREY_COPY;
        const FacePyramid &p = face(s.card_type, s.inner_frames != 0, s.material, s.ovi != 0);
        int level = 0;
        while (level + 1 < int(p.levels.size()) && p.ppm[level + 1] >= longest * 1.2) ++level;
        const double ppm = p.ppm[level];
        cv::Mat tex = p.levels[level].clone();
        // The genuine card's optically variable patch, as the camera sees it
        // from where it is now (a copy has it printed in its pyramid).
        if (!copy && s.ovi) {
            double view_yaw, view_pitch;
            view_angles(cam, s.card_type, view_yaw, view_pitch);
            draw_ovi(tex, ppm, s.card_type, seed_, view_yaw, view_pitch);
        }
        if (std::abs(bright - 1.0) > 1e-6) tex.convertTo(tex, -1, bright, 0);
        // Matte paper has no specular highlight; the laminate does.
        if (s.glare && !copy) add_glare(tex, ppm, s);
        double torch_u, torch_v;
        if (s.torch > 0 && !copy && torch_point(cam, torch_u, torch_v)) {
            // The torch's LED mirrored in the laminate: a small saturated
            // core and a halo as strong as the torch.
            cr_scene torch = s;
            torch.glare_u = torch_u;
            torch.glare_v = torch_v;
            torch.glare_radius_mm = 3.5;
            torch.glare_strength = s.torch;
            add_glare(tex, ppm, torch);
        }
        const cv::Mat &alpha = p.alphas[level];
        {
            // Exact glare coverage on the face, before optics and noise.
            cv::Mat gray;
            cv::cvtColor(tex, gray, cv::COLOR_BGR2GRAY);
            const double area = cv::countNonZero(alpha > 127);
            t.glare_fraction = float(cv::countNonZero((gray >= 250) & (alpha > 127)) / std::max(1.0, area));
        }

        // Face raster pixel -> card mm -> image.
        const cv::Matx33d S(1 / ppm, 0, 0.5 / ppm - hw, 0, 1 / ppm, 0.5 / ppm - hh, 0, 0, 1);
        const cv::Matx33d H = cam.homography_mm() * S;
        cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>{corners[0], corners[1], corners[2], corners[3]});
        box.x -= 3; box.y -= 3; box.width += 6; box.height += 6;
        box &= cv::Rect(0, 0, s.width, s.height);
        t.card_visible = box.area() > 0;
        // The palm behind the card goes down first; the card covers part of it.
        for (const cr_hand_part &part : s.hands)
            if (part.kind == CR_HAND_PALM) add_palm(frame, cam, part, bright);
        if (box.area() > 0) {
            const cv::Matx33d T(1, 0, -box.x, 0, 1, -box.y, 0, 0, 1);
            cv::Mat warped, a;
            cv::warpPerspective(tex, warped, T * H, box.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            cv::warpPerspective(alpha, a, T * H, box.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            // Contact shadow: the card floats a little above the desk, taking
            // `contact` of the light under its offset outline. Held up in
            // front of a person, it is far from anything behind it, and its
            // shadow falls out of sight.
            const float contact = s.person ? 0.f : 0.35f;
            cv::Mat shadow;
            if (contact > 0) cv::GaussianBlur(a, shadow, cv::Size(0, 0), 6);
            cv::Mat roi = frame(box);
            const int sx = 5, sy = 7;
            for (int y = 0; y < box.height; ++y) {
                const uint8_t *ar = a.ptr<uint8_t>(y);
                const cv::Vec3b *wr = warped.ptr<cv::Vec3b>(y);
                cv::Vec3b *o = roi.ptr<cv::Vec3b>(y);
                const int ys = y - sy;
                for (int x = 0; x < box.width; ++x) {
                    const int xs = x - sx;
                    const float sh = (contact > 0 && ys >= 0 && xs >= 0) ? shadow.at<uint8_t>(ys, xs) / 255.f : 0.f;
                    const float k = ar[x] / 255.f;
                    for (int c = 0; c < 3; ++c) {
                        float bgv = o[x][c] * (1 - contact * sh);
                        o[x][c] = cv::saturate_cast<uint8_t>(bgv * (1 - k) + wr[x][c] * k);
                    }
                }
            }
        }
        if (s.thumb) add_thumb(frame, cam, s.thumb_edge, s.thumb_pos, s.thumb_width_mm, s.thumb_reach_mm, bright);
        for (const cr_hand_part &part : s.hands)
            if (part.kind == CR_HAND_THUMB) add_thumb(frame, cam, part.edge, part.pos, part.width_mm, part.reach_mm, bright);
    }
    add_cast_shadow(frame, s);
    add_optics_and_noise(frame, s, rng_);
    if (s.material == CR_MATERIAL_SCREEN) {
        auto key = std::make_pair(s.width, s.height);
        auto it = screens_.find(key);
        if (it == screens_.end()) it = screens_.emplace(key, ScreenLook(size, seed_)).first;
        film_screen(frame, it->second, s, rng_, &t);
    }
    if (truth) *truth = t;
    return CR_OK;
}

}  // namespace cardrender
