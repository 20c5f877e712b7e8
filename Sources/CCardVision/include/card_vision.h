/*
 * card_vision.h — the eye of hkid-liveness.
 *
 * One tracker per card holder. Feed it every frame (or every frame you can
 * afford) with its presentation timestamp; it tells you where the card is,
 * how it is rotated, how fast it turns, how far it is, how much glare and blur
 * there is, and it keeps the best front-on still, which you take out of it
 * and encode on demand.
 *
 * The header reads in the order a frame travels: a frame in (hkcv_image),
 * a tracker configured for it (hkcv_config), the measurement out
 * (hkcv_measurement), then the still taken from the tracker (hkcv_still) and
 * its encoded bytes (hkcv_buffer).
 *
 * Plain C on purpose: no C++ types or exceptions cross this boundary, every
 * entry point returns an hkcv_status, and there is no global state, so any
 * number of trackers may run on different threads (hkcv_set_opencv_threads
 * is the one process-wide setting, and it is OpenCV's). One tracker must not be
 * used from two threads at once; the stills taken from it may.
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

/* ---- Status ------------------------------------------------------------ */

typedef enum hkcv_status {
    HKCV_OK = 0,
    HKCV_ERR_NULL = -1,         /* a required pointer was NULL */
    HKCV_ERR_SIZE = -2,         /* width/height zero, odd where evenness is needed, or absurd */
    HKCV_ERR_STRIDE = -3,       /* a stride smaller than the plane's width */
    HKCV_ERR_FORMAT = -4,       /* pixel format not supported */
    HKCV_ERR_CONFIG = -5,       /* a configuration value out of range */
    HKCV_ERR_NO_STILL = -6,     /* no still has been captured since the last reset */
    HKCV_ERR_IO = -7,           /* a file (e.g. the face cascade) could not be read */
    HKCV_ERR_INTERNAL = -99     /* OpenCV threw; the tracker stays usable */
} hkcv_status;

/* Human-readable name of a status, never NULL. */
const char *hkcv_status_string(int status);

/* ---- A frame in -------------------------------------------------------- */

typedef enum hkcv_pixel_format {
    HKCV_PIXEL_GRAY8 = 0,       /* one plane: luma */
    HKCV_PIXEL_I420 = 1,        /* three planes: Y, U, V (U and V at half size) */
    HKCV_PIXEL_NV12 = 2,        /* two planes: Y, interleaved UV at half size */
    HKCV_PIXEL_BGR = 3,         /* one plane, 3 bytes per pixel */
    HKCV_PIXEL_BGRA = 4         /* one plane, 4 bytes per pixel */
} hkcv_pixel_format;

/* How the levels of Y'CbCr input are to be read. Most H.264 and MPEG-4
 * video is limited range (luma 16-235, "studio swing"); camera buffers and
 * JPEG are full range. Measures that compare levels with absolute
 * thresholds (glare) and the colour of the stills depend on it. Ignored for
 * BGR and grey input. */
typedef enum hkcv_color_range {
    HKCV_RANGE_FULL = 0,        /* 0-255 (the zero default) */
    HKCV_RANGE_LIMITED = 1      /* luma 16-235, chroma 16-240 */
} hkcv_color_range;

typedef enum hkcv_color_matrix {
    HKCV_MATRIX_BT601 = 0,      /* SD video, JPEG (the zero default) */
    HKCV_MATRIX_BT709 = 1       /* HD video */
} hkcv_color_matrix;

/* Where 4:2:0 input's colour samples sit against the luma grid (GStreamer's
 * chroma-site). The edge fit reads a card's side on the colour planes when
 * it has no edge in luma, and places it to a fraction of a pixel. Ignored for
 * BGR and grey input. */
typedef enum hkcv_chroma_site {
    HKCV_CHROMA_SITE_MPEG2 = 0, /* on the even luma columns, halfway between two rows: H.264, MPEG-2 and
                                   MPEG-4 (the zero default) */
    HKCV_CHROMA_SITE_JPEG = 1,  /* halfway between two columns and two rows: JPEG, an MJPEG webcam */
    HKCV_CHROMA_SITE_COSITED = 2 /* on the even luma columns and rows */
} hkcv_chroma_site;

/* A frame as the caller already has it in memory; nothing is copied for the
 * luma path (the Y plane is wrapped, not converted). Unused planes are NULL. */
typedef struct hkcv_image {
    hkcv_pixel_format format;
    int width;
    int height;
    const uint8_t *planes[3];
    int strides[3];             /* bytes per row of each plane */
    hkcv_color_range range;     /* YUV input: from the stream's colorimetry */
    hkcv_color_matrix matrix;
    hkcv_chroma_site chroma_site; /* 4:2:0 input: from the stream's chroma-site */
} hkcv_image;

/* ---- The tracker and its configuration --------------------------------- */

typedef enum hkcv_card_type {
    HKCV_CARD_2018 = 0,         /* large portrait on the left half of the face */
    HKCV_CARD_2003 = 1          /* large portrait on the right half of the face */
} hkcv_card_type;

typedef struct hkcv_config {
    hkcv_card_type card_type;
    double hfov_deg;            /* camera horizontal field of view; default 62 */
    int estimate_focal;         /* refine the focal length from the card's own perspective; default 1 */
    int detect_long_side;       /* long side of the downscaled search image; default 640 */
    double front_max_deg;       /* |yaw| and |pitch| below this count as front-on; default 10 */
    double border_margin;       /* a corner closer than this fraction of the frame's width (height) to its
                                   left or right (top or bottom) edge touches the border; default 0.01 */
    int glare_luma;             /* luma at or above this is saturated, on full-range levels (limited-range
                                   input is compared at the same level of its own scale); default 250 */
    int liveness_evidence;      /* gather the liveness evidence on tracked frames (hkcv_tracker_liveness);
                                   default 1. 0 saves its cost when only the geometry is wanted */
    int still_width;            /* width of the rectified still, height = width / 1.586; default 856 */
    int jpeg_quality;           /* default 90 */
    const char *face_cascade_path; /* OpenCV face cascade (Haar or LBP) for the head crop; NULL = opencv-data's
                                      LBP frontal face, then its Haar one if that finds none; "" = no face detector */
    /* Which tracked frames show the card's material and feed the liveness evidence's black level and
       colour (hkcv_liveness.material_frames): the card's width against the frame's within
       [material_min_width, material_max_width] (set them to the flow's FAR and NEAR widths; defaults 0.25
       and 0.90), and at most material_max_glare of its face saturated (the exposure limit; default 0.25). */
    double material_min_width;
    double material_max_width;
    double material_max_glare;
} hkcv_config;

/* How many threads OpenCV's parallel loops use, in the whole process (the
 * pool is OpenCV's, shared with every other user of OpenCV): 1 runs them on
 * the calling thread. By default OpenCV uses every core. A replay that
 * decodes on the other cores sets 1: handing the flow's and warps' stripes
 * to the pool cost a quarter more CPU a frame, taken from the decoder. */
void hkcv_set_opencv_threads(int threads);

/* Fills *config with the defaults above. */
void hkcv_config_default(hkcv_config *config);

typedef struct hkcv_tracker hkcv_tracker;

/* Creates a tracker. config may be NULL for the defaults. On failure returns
 * NULL and, when err is not NULL, stores the reason. */
hkcv_tracker *hkcv_tracker_create(const hkcv_config *config, int *err);
void hkcv_tracker_destroy(hkcv_tracker *tracker);

/* Forgets the tracked card, the pose history and the kept still. */
hkcv_status hkcv_tracker_reset(hkcv_tracker *tracker);

hkcv_status hkcv_tracker_set_card_type(hkcv_tracker *tracker, hkcv_card_type card_type);

/* ---- The measurement out ----------------------------------------------- */

/* Where one frame's analysis time went, in milliseconds of the monotonic
 * clock, for benchmarks (hkid-bench vision prints their medians and means).
 * The stages add up to total; a stage the frame did not need reads 0. */
typedef struct hkcv_stage_ms {
    float flow;                 /* the print followed: crop, pyramid, Lucas-Kanade, homography (and the
                                   next frame's points picked) */
    float fit;                  /* the edges refitted around the prediction, held to the print, a faint
                                   side restored */
    float search;               /* the neighbourhood or the whole frame searched (no card followed) */
    float recheck;              /* the tracked card's neighbourhood searched afresh (every 15-120 frames) */
    float photometry;           /* glare and sharpness on the card */
    float liveness;             /* the liveness evidence */
    float other;                /* the rest: pose, speed, the still kept, bookkeeping */
    float total;                /* the whole of hkcv_tracker_process */
} hkcv_stage_ms;

/* What one frame shows. All angles in degrees, times in nanoseconds. */
typedef struct hkcv_measurement {
    int64_t pts_ns;             /* the timestamp the frame was given with */
    int found;                  /* 1 when a card is tracked in this frame */
    float confidence;           /* 0..1 */
    float corners[8];           /* x0,y0 (TL), x1,y1 (TR), x2,y2 (BR), x3,y3 (BL) */
    float yaw;
    float pitch;
    float roll;
    float speed_dps;            /* angular speed over the last 150 ms of poses, five at least (buffer
                                   timestamps); 0 until the card has been found on five frames in a row */
    float width_ratio;          /* card width (mean of top and bottom edge) / frame width */
    int touches_border;         /* a corner lies within border_margin of the frame border */
    float glare;                /* fraction of the rectified card with luma >= glare_luma */
    float glare_blob;           /* largest connected saturated area, as a fraction of the card */
    float sharpness;            /* 0..1 focus measure on the rectified card */
    float focal_px;             /* focal length used for the pose */
    int searched_full_frame;    /* 1 when the local search failed and the whole frame was searched */
    hkcv_stage_ms stages;       /* where this frame's analysis time went */
} hkcv_measurement;

/* Analyses one frame. out is always written (found = 0 on error). */
hkcv_status hkcv_tracker_process(hkcv_tracker *tracker, const hkcv_image *image, int64_t pts_ns,
                                 hkcv_measurement *out);

/* ---- Liveness evidence ------------------------------------------------- */

/* What the tracked frames since the last reset say about the card's
 * material, for the liveness checks (HKIDLiveness judges; this only
 * measures). Every tracked frame adds to it at a small fixed cost: the card
 * is rectified to a small grid of colour cells.
 *
 * Levels are on a full-range 0-255 scale whatever the input's range, and
 * colour shifts are rescaled as if the card's white were at 200, so dim and
 * bright video measure alike. */
typedef enum hkcv_pose_bin {
    HKCV_POSE_FRONT = 0,        /* |yaw| and |pitch| below 6 degrees */
    HKCV_POSE_YAW_POS = 1,      /* yaw at least 15 degrees (and the larger of the two angles) */
    HKCV_POSE_YAW_NEG = 2,
    HKCV_POSE_PITCH_POS = 3,
    HKCV_POSE_PITCH_NEG = 4,
    HKCV_POSE_BINS = 5
} hkcv_pose_bin;

typedef struct hkcv_liveness {
    int frames;                 /* tracked frames measured */
    int pose_frames[HKCV_POSE_BINS]; /* of the frames that show the material (material_frames), those in
                                        each pose bin (frames between bins count in none) */
    float ovi_shift;            /* optically variable print: the largest change of a card area's colour
                                   (Cb/Cr distance, after removing the whole card's shift) between two pose
                                   bins holding at least 2 frames each; -1 when fewer than two such bins */
    float ovi_area;             /* fraction of the card's cells whose colour moves by more than 6 levels
                                   between the same two bins; -1 as above */
    float chroma;               /* 99th percentile of the card's colour saturation (Cb/Cr distance from grey),
                                   median over the frames that show the material (material_frames); -1
                                   before the first such frame */
    float black_level;          /* how far the card's 1st percentile luma lies above the darkest in view
                                   (the frame's 0.5th percentile), over the way from there to the card's
                                   98th; median over the frames that show the material (material_frames)
                                   where the card is widest in pixels (within 0.8 of its widest, at least
                                   10 frames: a small or soft card averages its thin dark strokes with the
                                   paper); print on a card is near black, a screen's or a copy's black is lifted, a
                                   washed-out camera lifts the room's black too; -1 before the first such
                                   frame */
    float fine_print;           /* mean absolute Laplacian of the rectified luma over its 2nd-98th percentile
                                   range, median over front-on frames: a copy or a re-filmed screen loses the
                                   finest print; -1 before the first front-on frame */
    int material_frames;        /* of the frames, those that show the card's material and feed chroma,
                                   black_level and the optically variable print's pose bins: the whole card inside the frame (corners 2 % in from its
                                   border), its width within hkcv_config's material_min_width and
                                   material_max_width, glare within material_max_glare. A card cut by the frame, held too near
                                   or too far, or under a reflection says nothing about its black or colour */
    float screen_grid;          /* a screen's pixel grid: the strongest isolated peak in the spectrum of the
                                   card's middle (the camera's pixels, up to 128 x 128, periods of 2-11 px)
                                   over the median of its neighbours along each axis; median over the
                                   measured frames (grid_frames); a printed card's spectrum is smooth there,
                                   a re-filmed screen leaves moire. -1 before the first measured frame */
    int grid_frames;            /* tracked frames the screen grid was measured on (one in three for the
                                   first 30, then one in twelve; the card's middle at least 64 pixels and
                                   inside the frame, the card no narrower than material_min_width) */
} hkcv_liveness;

/* The evidence gathered since the last reset. */
hkcv_status hkcv_tracker_liveness(const hkcv_tracker *tracker, hkcv_liveness *out);

/* Drops the evidence about the card's material gathered so far (black level, colour, optically variable
 * cells, fine print, material_frames); the screen grid and the frame count stay. Call it when the card
 * first stands where the flow wants it (the session does, at ORTH): before that the holder is bringing it
 * into view, and what the tracker follows may be a box printed on a card the frame cuts, or a card too
 * near to be in focus, which reads as a lifted black. */
hkcv_status hkcv_tracker_restart_material(hkcv_tracker *tracker);

/* ---- The still --------------------------------------------------------- */

/* The best front-on still kept since the last reset (sharpest, least glare),
 * taken out of its tracker. Taking one copies no pixels; the still never
 * changes and stays valid while the tracker goes on with new frames, is reset
 * or destroyed. So the frame that decides a result need not wait for the
 * rectification, face search and JPEG (about 8 ms at 720p): take the still
 * there and encode it on another thread. A still may be used from any number
 * of threads. Release each with hkcv_still_release. */
typedef struct hkcv_still hkcv_still;

typedef enum hkcv_still_kind {
    HKCV_STILL_CARD = 0,        /* rectified card face, perspective removed */
    HKCV_STILL_HEAD = 1         /* portrait crop from the card type's layout, tightened by face detection */
} hkcv_still_kind;

/* Encoded image owned by the caller; release with hkcv_buffer_free. */
typedef struct hkcv_buffer {
    uint8_t *data;
    size_t size;
} hkcv_buffer;

/* *out = the kept still, or NULL with HKCV_ERR_NO_STILL when none is kept. */
hkcv_status hkcv_tracker_take_still(const hkcv_tracker *tracker, hkcv_still **out);

/* The timestamp of the frame the still was taken from. */
int64_t hkcv_still_pts(const hkcv_still *still);

/* Encodes the still as JPEG. */
hkcv_status hkcv_still_encode(hkcv_still *still, hkcv_still_kind kind, hkcv_buffer *out);

/* Where the head crop lies in the still (x, y, width, height as fractions of
 * the still's width and height), and whether a face was found in it (1) or
 * the card layout's portrait area was used as is (0). */
hkcv_status hkcv_still_head_region(hkcv_still *still, float rect[4], int *face_found);

void hkcv_still_release(hkcv_still *still);

void hkcv_buffer_free(hkcv_buffer *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CARD_VISION_H */
