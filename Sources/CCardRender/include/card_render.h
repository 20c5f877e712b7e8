/*
 * card_render.h — synthetic hand-held card scenes with exact ground truth,
 * and the small overlays that --annotate draws.
 *
 * A renderer draws a procedural ID-1 card face (never a real person's
 * document: fake fields, a cartoon portrait), places it in 3D in front of a
 * pinhole camera over a desk-like background, and adds what real video has:
 * sensor noise, focus and motion blur, a specular highlight, a thumb over an
 * edge, brightness changes. Everything derives from the seed, so the same
 * seed and scene give the same pixels; the background stays the same across
 * the frames of one renderer so a sequence looks like one video.
 *
 * Geometry follows shared/SPEC.md section 1 (and card_vision.h): corners are
 * TL, TR, BR, BL of the card face in pixels (pixel centres at integer
 * coordinates, principal point at ((w-1)/2, (h-1)/2)); yaw > 0 when the
 * right edge recedes, pitch > 0 when the top edge recedes, roll > 0
 * clockwise. The rotation is R = Rz(roll) * Rx(-pitch) * Ry(-yaw) applied to
 * card coordinates (x right, y down, mm, origin at the card centre).
 *
 * Plain C, opaque handle, no global state; one renderer per thread.
 * YUV output is full-range (JPEG) BT.601, like a UVC webcam's decoded MJPEG,
 * unless the scene asks for limited range (what phones and x264 produce).
 *
 * Harder scenes (issue 12), all off by default so that existing scenes
 * render the same bytes: real photographs as the background, the card's
 * paper or its portrait (cr_renderer_set_photo); hand parts that cover or
 * touch any edge (cr_scene.hands); bold printed inner boxes (the portrait
 * frame and an inset border with nearly the card's aspect); a background
 * lifted towards white (a light desk); limited-range YUV; a straight-edged
 * shadow cast over desk, card and hand by something above the scene.
 *
 * Card material and presentation attacks (issue 13). A genuine card carries
 * an optically variable patch (a round swirl of ~12 % of the card's width
 * between the fields and the small portrait) whose hue turns with the
 * direction the camera sees it from: about 5 degrees of hue per degree of
 * yaw or pitch, so a 20-degree turn moves it by ~100 degrees; its base hue,
 * the swirl's sense and the exact rates come from the seed. It is ON by
 * default (cr_scene.ovi = 1 from cr_scene_default), because every real HKID
 * has one and a card without it is what a copy looks like to the liveness
 * checks; this is the one change to the pixels of existing scenes (ovi = 0
 * renders the same bytes as before). Everything else is off by default:
 * cr_scene.material makes the card a colour or grey paper copy (the patch
 * frozen at its front-on hue, 60 % or no colour, toner black at 16 % of the
 * paper's white, softer print, matte: no specular highlight or torch
 * reflection) or films the whole frame off a screen (a recording of a genuine
 * card: black at 30 % of white, less contrast, a faint pixel-grid moire,
 * optionally a dark bezel); cr_scene.torch adds the phone torch's hotspot
 * where the laminate mirrors the lens, which moves with the pose.
 *
 * The person at the webcam (cr_scene.person, off by default): a head, hair,
 * neck and shoulders in clothes behind the card, and optionally a name badge
 * of the card's own aspect on a lanyard; the card held up in front of them
 * casts no contact shadow.
 */
#ifndef CARD_RENDER_H
#define CARD_RENDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_status {
    CR_OK = 0,
    CR_ERR_NULL = -1,
    CR_ERR_SIZE = -2,      /* frame size zero, odd (I420), > 8192, or a stride too small */
    CR_ERR_ARG = -3,       /* a scene or overlay value out of range */
    CR_ERR_IO = -4,        /* a photograph could not be read or decoded as JPEG */
    CR_ERR_INTERNAL = -99
} cr_status;

typedef enum cr_card_type {
    CR_CARD_2018 = 0,      /* large portrait on the left half of the face */
    CR_CARD_2003 = 1       /* large portrait on the right half of the face */
} cr_card_type;

/* What is in front of the camera (issue 13). */
typedef enum cr_material {
    CR_MATERIAL_GENUINE = 0,     /* the card itself */
    CR_MATERIAL_COLOUR_COPY = 1, /* a colour print of the card on matte paper, cut to size */
    CR_MATERIAL_GREY_COPY = 2,   /* a black-and-white print of it */
    CR_MATERIAL_SCREEN = 3       /* a recording of the genuine scene (card and background) shown on a
                                    phone or monitor and filmed: the whole frame is the screen */
} cr_material;

typedef enum cr_edge { CR_EDGE_TOP = 0, CR_EDGE_RIGHT = 1, CR_EDGE_BOTTOM = 2, CR_EDGE_LEFT = 3 } cr_edge;

typedef enum cr_hand_kind {
    CR_HAND_NONE = 0,
    CR_HAND_THUMB = 1,     /* lies on the card over the edge (like cr_scene.thumb) */
    CR_HAND_PALM = 2       /* behind the card, sticking out past the edge: skin that touches the card's outline */
} cr_hand_kind;

/* One part of the hand holding the card, in card millimetres. */
typedef struct cr_hand_part {
    cr_hand_kind kind;
    cr_edge edge;
    double pos;            /* centre along the edge, 0..1 in reading direction */
    double width_mm;       /* thumb: its width (default 18); palm: its extent along the edge (1..150) */
    double reach_mm;       /* thumb: how far onto the card (0..60); palm: how far it sticks out past the edge (1..150) */
} cr_hand_part;

#define CR_MAX_HAND_PARTS 4

/* One frame's scene. Start from cr_scene_default and change what you need. */
typedef struct cr_scene {
    int width, height;          /* frame size in pixels; default 1280 x 720 */
    double hfov_deg;            /* camera horizontal field of view; default 62 */
    int card_visible;           /* 0 = background only; default 1 */
    cr_card_type card_type;     /* default 2018 */
    double center_x, center_y;  /* where the card centre projects, pixels; default frame centre */
    double distance_mm;         /* card centre depth along the optical axis; default 250 */
    double yaw_deg, pitch_deg, roll_deg; /* default 0 */

    double brightness;          /* multiplies the whole frame; default 1 */
    double noise_sigma;         /* Gaussian sensor noise, grey levels; default 2 */
    double blur_sigma;          /* Gaussian focus blur, pixels; default 0 (the warp already smooths ~0.5 px) */
    double motion_blur_px;      /* linear motion blur length, pixels; default 0 */
    double motion_blur_deg;     /* its direction in the image, degrees from +x; default 0 */

    int glare;                  /* 1 = add a specular highlight on the card face; default 0 */
    double glare_u, glare_v;    /* its centre on the face, fractions of width and height (0..1) */
    double glare_radius_mm;     /* radius of the saturated core, mm of card; default 8 */
    double glare_strength;      /* 0..1, how far the halo lifts the surface towards white; default 1 */

    int thumb;                  /* 1 = a thumb covers part of one edge; default 0 */
    cr_edge thumb_edge;         /* default CR_EDGE_BOTTOM */
    double thumb_pos;           /* position along that edge, 0..1 in reading direction; default 0.5 */
    double thumb_width_mm;      /* default 18 */
    double thumb_reach_mm;      /* how far it reaches onto the card from the edge; default 10 */

    double background_dx, background_dy; /* background shift in pixels (camera shake); default 0 */

    /* ---- harder scenes (issue 12); the defaults change nothing ---- */
    cr_hand_part hands[CR_MAX_HAND_PARTS]; /* more hand parts; kind CR_HAND_NONE = unused (default) */
    int inner_frames;           /* 1 = bold printed boxes on the face: a dark frame around the large
                                   portrait and a border line 2.5 mm inside the card's edge; default 0 */
    double background_lift;     /* 0..0.95: lifts the background towards white (a light desk), 0 = as drawn */
    int limited_range;          /* 1 = cr_render_i420 writes limited-range BT.601 (Y 16..235, C 16..240) as
                                   phones and x264 do; truth.glare_fraction still counts rendered luma >= 250
                                   before the range is squeezed; default 0 */

    /* ---- material and presentation attacks (issue 13) ---- */
    int ovi;                    /* 1 = the optically variable patch (see the top of this file); default 1 */
    cr_material material;       /* default CR_MATERIAL_GENUINE */
    double torch;               /* 0..1: the phone's torch next to the lens, a specular hotspot where the
                                   card's normal points at the camera (on the card only within ~10 degrees
                                   of facing it); genuine cards and screens' recorded cards; default 0 */
    double screen_bezel;        /* CR_MATERIAL_SCREEN: 0..0.2 of the frame's width shows the screen's dark
                                   bezel around the recording, which is shrunk to fit inside it (truth
                                   follows); default 0 (the screen fills the view) */

    /* ---- a cast shadow (desks with shadows); the default changes nothing ---- */
    double shadow;              /* 0..0.85: share of the light the shadowed side loses (desk, card, hand
                                   alike: the shadow of a person or a phone above the scene); default 0 */
    double shadow_x, shadow_y;  /* a point on the shadow's edge, fractions of the frame's width and height;
                                   default 0.5, 0.5 */
    double shadow_angle_deg;    /* direction from that edge into the shadow, degrees from +x (image y down);
                                   default 0 (the right side is in shadow) */
    double shadow_soft_px;      /* width of the penumbra, pixels; default 12 */

    /* ---- what a low-bitrate stream does to the frame; the default changes nothing ---- */
    int compression_quality;    /* 0 = none; 1..100 = the output passes through JPEG at this quality
                                   (cr_render_i420: each plane on its own, as a video encoder codes
                                   Y, Cb and Cr; cr_render_bgr: one colour JPEG): 8x8 blocks, ringing
                                   and smeared edges; default 0 */

    /* ---- the person at the webcam, behind the card; the default changes nothing ---- */
    int person;                 /* 1 = a person sits behind the card, in front of the background: head,
                                   hair, neck and shoulders in clothes (skin tone, hair, a jacket with
                                   shirt and tie, a sweater or an open shirt, from the seed), a little out
                                   of focus; moves with the camera's shake; default 0 */
    double person_size;         /* the head's width as a fraction of the frame's width, 0.05..0.5 (a
                                   webcam at arm's length: 0.15..0.25); default 0.2 */
    double person_x;            /* the head's centre, fraction of the frame's width, -0.5..1.5; default 0.5 */
    int person_badge;           /* 1 = a name badge of the card's own aspect on a lanyard on the chest
                                   (white, a coloured band, a photograph's box, lines of text); default 0 */
} cr_scene;

void cr_scene_default(cr_scene *scene);

/* What the frame shows, exactly. */
typedef struct cr_truth {
    int card_visible;           /* card drawn and at least partly inside the frame */
    float corners[8];           /* TL, TR, BR, BL (x, y), sharp corners of the 85.60 x 53.98 rectangle */
    float yaw, pitch, roll;     /* as in the scene */
    float width_ratio;          /* mean of top and bottom edge lengths / frame width */
    float glare_fraction;       /* fraction of the card face with rendered luma >= 250 (glare and torch) */
    double focal_px;            /* focal length of the camera */
} cr_truth;

typedef struct cr_renderer cr_renderer;

/* A renderer with its own seed (noise, background, portrait details). */
cr_renderer *cr_renderer_create(uint64_t seed, int *err);
void cr_renderer_destroy(cr_renderer *renderer);

typedef enum cr_photo_slot {
    CR_PHOTO_BACKGROUND = 0,   /* the desk: the photograph covers the frame (scaled, centre-cropped) */
    CR_PHOTO_PAPER = 1,        /* the card face's paper: the printing (text, portraits) goes over the photograph */
    CR_PHOTO_PORTRAIT = 2      /* the holder's photograph in both portrait boxes instead of the cartoon */
} cr_photo_slot;

/* Uses a photograph (a JPEG file) for one slot of this renderer's frames
 * from now on; path NULL or "" returns to the procedural drawing.
 * CR_ERR_IO when the file cannot be read or is not a JPEG (the slot is
 * then unchanged). */
cr_status cr_renderer_set_photo(cr_renderer *renderer, cr_photo_slot slot, const char *path);

/* Renders the scene as BGR (3 bytes per pixel, stride >= 3 * width). truth may be NULL. */
cr_status cr_render_bgr(cr_renderer *renderer, const cr_scene *scene, uint8_t *bgr, int stride,
                        cr_truth *truth);

/* Renders the scene as I420: Y at full size, U and V at half size. Even sizes only. */
cr_status cr_render_i420(cr_renderer *renderer, const cr_scene *scene,
                         uint8_t *y, int y_stride, uint8_t *u, int u_stride, uint8_t *v, int v_stride,
                         cr_truth *truth);

/* The flat card face (no perspective, no effects) as BGR, width x height pixels. */
cr_status cr_render_card_face(cr_renderer *renderer, cr_card_type type, int width, int height,
                              uint8_t *bgr, int stride);

/* ---- overlays for --annotate, drawn in place ---------------------------- */

typedef enum cr_frame_format { CR_FRAME_BGR = 0, CR_FRAME_I420 = 1 } cr_frame_format;

typedef struct cr_frame {
    cr_frame_format format;
    int width, height;
    uint8_t *planes[3];         /* BGR: planes[0]; I420: Y, U, V */
    int strides[3];
} cr_frame;

typedef struct cr_color { uint8_t r, g, b; } cr_color;

/* The tracked quad (TL, TR, BR, BL), with a dot on the top-left corner. */
cr_status cr_draw_quad(const cr_frame *frame, const float corners[8], cr_color color, int thickness);

/* Lines of ASCII text on a dark box whose top-left corner is (x, y); scale 1 is ~22 px per line. */
cr_status cr_draw_text(const cr_frame *frame, const char *const *lines, int line_count, int x, int y,
                       double scale, cr_color color);

/* A horizontal progress bar filled to fraction (0..1). */
cr_status cr_draw_progress(const cr_frame *frame, int x, int y, int width, int height, double fraction,
                           cr_color color);

/* ---- process-wide ------------------------------------------------------- */

/* Sets the size of OpenCV's thread pool for the whole process (0 = OpenCV's
 * default). For benchmarks that measure per-core cost; the libraries never
 * call it themselves. */
void cr_set_opencv_threads(int threads);

#ifdef __cplusplus
}
#endif

#endif /* CARD_RENDER_H */
