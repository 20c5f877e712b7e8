/*
 * jpeg_encode.c — stills to JPEG with libjpeg(-turbo), directly.
 *
 * OpenCV's imgcodecs would do this in one call, but linking it loads 139
 * shared libraries (GDAL, GDCM, HDF5, …) into every process that uses the
 * shim, which cost ~70 ms at each start of hkid-liveness. libjpeg is one.
 *
 * Plain C on purpose: libjpeg reports errors by longjmp, which must not
 * cross C++ frames with destructors.
 */
#include "jpeg_encode.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

struct error_trap {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
};

static void escape_on_error(j_common_ptr info) {
    struct error_trap *trap = (struct error_trap *)info->err;
    longjmp(trap->escape, 1);
}

static void stay_silent(j_common_ptr info) { (void)info; }

int cardvision_encode_jpeg_bgr(const uint8_t *bgr, int width, int height, int stride, int quality,
                               uint8_t **out, size_t *size) {
    if (bgr == NULL || out == NULL || size == NULL || width <= 0 || height <= 0 || stride < 3 * width) return -1;
    struct jpeg_compress_struct info;
    struct error_trap trap;
    /* volatile: read after longjmp */
    unsigned char *volatile buffer = NULL;
    unsigned long length = 0;

    info.err = jpeg_std_error(&trap.manager);
    trap.manager.error_exit = escape_on_error;
    trap.manager.output_message = stay_silent;
    if (setjmp(trap.escape)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&buffer, &length);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_EXT_BGR; /* libjpeg-turbo: no conversion pass */
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(bgr + (size_t)info.next_scanline * (size_t)stride);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *size = length;
    return 0;
}
