/* JPEG encoding for stills; see jpeg_encode.c for why not imgcodecs. */
#ifndef CARDVISION_JPEG_ENCODE_H
#define CARDVISION_JPEG_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes a BGR image; on success *out is malloc'd (free() it) and 0 is returned. */
int cardvision_encode_jpeg_bgr(const uint8_t *bgr, int width, int height, int stride, int quality,
                               uint8_t **out, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
