/*
 * card_vision.h — the eye of hkid-liveness.
 *
 * One tracker per card holder. Feed it every frame (or every frame you can
 * afford) with its presentation timestamp; it tells you where the card is,
 * how it is rotated, how fast it turns, how far it is, how much glare and blur
 * there is, and it keeps the best front-on still for you to encode on demand.
 *
 * Plain C on purpose: no C++ types or exceptions cross this boundary, every
 * entry point returns a cv_status, and there is no global state, so any number
 * of trackers may run on different threads. One tracker must not be used from
 * two threads at once; the stills taken from it may (cv_still).
 *
 * Geometry follows shared/SPEC.md section 1: corners are top-left, top-right,
 * bottom-right, bottom-left of the card face in full-resolution pixels;
 * yaw > 0 when the card's right edge recedes, pitch > 0 when its top edge
 * recedes, roll > 0 clockwise in the image.
 */
#ifndef CARD_VISION_H
#define CARD_VISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cv_status {
    CV_OK = 0,
    CV_ERR_NULL = -1,           /* a required pointer was NULL */
    CV_ERR_SIZE = -2,           /* width/height zero, odd where evenness is needed, or absurd */
    CV_ERR_STRIDE = -3,         /* a stride smaller than the plane's width */
    CV_ERR_FORMAT = -4,         /* pixel format not supported */
    CV_ERR_CONFIG = -5,         /* a configuration value out of range */
    CV_ERR_NO_STILL = -6,       /* no still has been captured since the last reset */
    CV_ERR_IO = -7,             /* a file (e.g. the face cascade) could not be read */
    CV_ERR_INTERNAL = -99       /* OpenCV threw; the tracker stays usable */
} cv_status;

/* Human-readable name of a status, never NULL. */
const char *cv_status_string(int status);

typedef enum cv_pixel_format {
    CV_PIXEL_GRAY8 = 0,         /* one plane: luma */
    CV_PIXEL_I420 = 1,          /* three planes: Y, U, V (U and V at half size) */
    CV_PIXEL_NV12 = 2,          /* two planes: Y, interleaved UV at half size */
    CV_PIXEL_BGR = 3,           /* one plane, 3 bytes per pixel */
    CV_PIXEL_BGRA = 4           /* one plane, 4 bytes per pixel */
} cv_pixel_format;

/* How the levels of Y'CbCr input are to be read. Most H.264 and MPEG-4
 * video is limited range (luma 16-235, "studio swing"); camera buffers and
 * JPEG are full range. Measures that compare levels with absolute
 * thresholds (glare) and the colour of the stills depend on it. Ignored for
 * BGR and grey input. */
typedef enum cv_color_range {
    CV_RANGE_FULL = 0,          /* 0-255 (the zero default) */
    CV_RANGE_LIMITED = 1        /* luma 16-235, chroma 16-240 */
} cv_color_range;

typedef enum cv_color_matrix {
    CV_MATRIX_BT601 = 0,        /* SD video, JPEG (the zero default) */
    CV_MATRIX_BT709 = 1         /* HD video */
} cv_color_matrix;

/* A frame as the caller already has it in memory; nothing is copied for the
 * luma path (the Y plane is wrapped, not converted). Unused planes are NULL. */
typedef struct cv_image {
    cv_pixel_format format;
    int width;
    int height;
    const uint8_t *planes[3];
    int strides[3];             /* bytes per row of each plane */
    cv_color_range range;       /* YUV input: from the stream's colorimetry */
    cv_color_matrix matrix;
} cv_image;

typedef enum cv_card_type {
    CV_CARD_2018 = 0,           /* large portrait on the left half of the face */
    CV_CARD_2003 = 1            /* large portrait on the right half of the face */
} cv_card_type;

typedef struct cv_config {
    cv_card_type card_type;
    double hfov_deg;            /* camera horizontal field of view; default 62 */
    int estimate_focal;         /* refine the focal length from the card's own perspective; default 1 */
    int detect_long_side;       /* long side of the downscaled search image; default 640 */
    double front_max_deg;       /* |yaw| and |pitch| below this count as front-on; default 10 */
    int glare_luma;             /* luma at or above this is saturated, on full-range levels (limited-range
                                   input is compared at the same level of its own scale); default 250 */
    int still_width;            /* width of the rectified still, height = width / 1.586; default 856 */
    int jpeg_quality;           /* default 90 */
    const char *face_cascade_path; /* OpenCV face cascade (Haar or LBP) for the head crop; NULL = opencv-data's
                                      LBP frontal face, then its Haar one if that finds none; "" = no face detector */
} cv_config;

/* Fills *config with the defaults above. */
void cv_config_default(cv_config *config);

/* What one frame shows. All angles in degrees, times in nanoseconds. */
typedef struct cv_measurement {
    int64_t pts_ns;             /* the timestamp the frame was given with */
    int found;                  /* 1 when a card is tracked in this frame */
    float confidence;           /* 0..1 */
    float corners[8];           /* x0,y0 (TL), x1,y1 (TR), x2,y2 (BR), x3,y3 (BL) */
    float yaw;
    float pitch;
    float roll;
    float speed_dps;            /* angular speed, from consecutive poses and timestamps */
    float width_ratio;          /* card width (mean of top and bottom edge) / frame width */
    int touches_border;         /* a corner lies within 1 % of the frame border */
    float glare;                /* fraction of the rectified card with luma >= glare_luma */
    float glare_blob;           /* largest connected saturated area, as a fraction of the card */
    float sharpness;            /* 0..1 focus measure on the rectified card */
    float focal_px;             /* focal length used for the pose */
    int searched_full_frame;    /* 1 when the local search failed and the whole frame was searched */
} cv_measurement;

typedef struct cv_tracker cv_tracker;

/* Creates a tracker. config may be NULL for the defaults. On failure returns
 * NULL and, when err is not NULL, stores the reason. */
cv_tracker *cv_tracker_create(const cv_config *config, int *err);
void cv_tracker_destroy(cv_tracker *tracker);

/* Forgets the tracked card, the pose history and the kept still. */
cv_status cv_tracker_reset(cv_tracker *tracker);

cv_status cv_tracker_set_card_type(cv_tracker *tracker, cv_card_type card_type);

/* Analyses one frame. out is always written (found = 0 on error). */
cv_status cv_tracker_process(cv_tracker *tracker, const cv_image *image, int64_t pts_ns,
                             cv_measurement *out);

/* The best front-on still kept since the last reset (sharpest, least glare). */
typedef enum cv_still_kind {
    CV_STILL_CARD = 0,          /* rectified card face, perspective removed */
    CV_STILL_HEAD = 1           /* portrait crop from the card type's layout, tightened by face detection */
} cv_still_kind;

/* Encoded image owned by the caller; release with cv_buffer_free. */
typedef struct cv_buffer {
    uint8_t *data;
    size_t size;
} cv_buffer;

/* Whether a still is kept, and its timestamp. */
int cv_tracker_has_still(const cv_tracker *tracker, int64_t *pts_ns);

/* Encodes the kept still as JPEG (cv_tracker_take_still, then cv_still_encode). */
cv_status cv_tracker_encode_still(cv_tracker *tracker, cv_still_kind kind, cv_buffer *out);

/* Where the head crop lies in the kept still (x, y, width, height as
 * fractions of the still's width and height), and whether a face was found
 * in it (1) or the card layout's portrait area was used as is (0).
 * Added in 1.1.0. */
cv_status cv_tracker_head_region(cv_tracker *tracker, float rect[4], int *face_found);

/* A kept still taken out of its tracker. Taking one copies no pixels; the
 * still never changes and stays valid while the tracker goes on with new
 * frames, is reset or destroyed. So the frame that decides a result need
 * not wait for the rectification, face search and JPEG (about 8 ms at
 * 720p): take the still there and encode it on another thread. A still may
 * be used from any number of threads. Release each with cv_still_release.
 * Added in 1.2.0. */
typedef struct cv_still cv_still;

/* *out = the kept still, or NULL with CV_ERR_NO_STILL when none is kept. */
cv_status cv_tracker_take_still(const cv_tracker *tracker, cv_still **out);
cv_status cv_still_encode(cv_still *still, cv_still_kind kind, cv_buffer *out);
cv_status cv_still_head_region(cv_still *still, float rect[4], int *face_found);
/* The timestamp of the frame the still was taken from. */
int64_t cv_still_pts(const cv_still *still);
void cv_still_release(cv_still *still);

/* Forgets only the kept still, so a new "first" still can be chosen. */
cv_status cv_tracker_clear_still(cv_tracker *tracker);

void cv_buffer_free(cv_buffer *buffer);

/* Version of the shim, e.g. "1.2.0". */
const char *cv_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CARD_VISION_H */
