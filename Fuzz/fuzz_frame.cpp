// fuzz_frame.cpp — libFuzzer target for hkcv_tracker_process.
//
// The first bytes choose the pixel format, the size, the stride padding and
// a few flags (NULL planes, undersized strides, process twice for the
// tracking path); the rest is pixel data. The planes are laid out in one
// exactly-sized heap buffer, so AddressSanitizer catches any read past a
// plane the header says exists.
#include "card_vision.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

struct Reader {
    const uint8_t *p;
    size_t n;
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    uint16_t u16() { return uint16_t(byte() | (byte() << 8)); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader r{data, size};
    const int format = r.byte() % 6;         // 5 = invalid
    const int width = r.u16() % 700 + (r.byte() & 1 ? 0 : -2);
    const int height = r.u16() % 500 + (r.byte() & 1 ? 0 : -2);
    const int pad = r.byte() % 9;
    const uint8_t flags = r.byte();
    const int bpp = format == HKCV_PIXEL_BGR ? 3 : format == HKCV_PIXEL_BGRA ? 4 : 1;

    hkcv_image im{};
    im.format = hkcv_pixel_format(format);
    im.width = width;
    im.height = height;
    const int w = width > 0 ? width : 0, h = height > 0 ? height : 0;
    int strides[3] = {w * bpp + pad, 0, 0};
    int rows[3] = {h, 0, 0};
    if (format == HKCV_PIXEL_I420) {
        strides[1] = strides[2] = (w + 1) / 2 + pad;
        rows[1] = rows[2] = (h + 1) / 2;
    } else if (format == HKCV_PIXEL_NV12) {
        strides[1] = 2 * ((w + 1) / 2) + pad;
        rows[1] = (h + 1) / 2;
    }
    if (flags & 0x10) strides[0] -= 1 + (flags >> 6);  // undersized stride: must be rejected
    size_t total = 0;
    for (int i = 0; i < 3; ++i) total += size_t(strides[i] > 0 ? strides[i] : 0) * rows[i];
    if (total > (8u << 20)) return 0;
    std::vector<uint8_t> buffer(total ? total : 1);
    for (size_t i = 0; i < total; ++i) buffer[i] = r.n ? r.byte() : uint8_t(i * 31);
    // Exactly-sized copy so ASan sees the end.
    uint8_t *pixels = new uint8_t[total ? total : 1];
    std::memcpy(pixels, buffer.data(), total ? total : 1);
    size_t offset = 0;
    for (int i = 0; i < 3; ++i) {
        im.strides[i] = strides[i];
        im.planes[i] = rows[i] ? pixels + offset : nullptr;
        offset += size_t(strides[i] > 0 ? strides[i] : 0) * rows[i];
    }
    if (flags & 0x20) im.planes[flags & 1] = nullptr;

    hkcv_config config;
    hkcv_config_default(&config);
    config.face_cascade_path = "";
    config.detect_long_side = 160 + (flags & 0x0f) * 40;
    hkcv_tracker *tracker = hkcv_tracker_create(&config, nullptr);
    hkcv_measurement m;
    hkcv_tracker_process(tracker, &im, 0, &m);
    if (flags & 0x80) {
        hkcv_tracker_process(tracker, &im, 33333333, &m);
        hkcv_still *still = nullptr;
        if (hkcv_tracker_take_still(tracker, &still) == HKCV_OK) {
            hkcv_buffer b;
            if (hkcv_still_encode(still, HKCV_STILL_HEAD, &b) == HKCV_OK) hkcv_buffer_free(&b);
            hkcv_still_release(still);
        }
    }
    hkcv_tracker_destroy(tracker);
    delete[] pixels;
    return 0;
}
