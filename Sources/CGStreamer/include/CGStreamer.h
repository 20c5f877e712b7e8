/*
 * The few GStreamer things Swift cannot do on its own, in the shape of
 * swift-nio's CNIOLinux: declarations here, definitions in CGStreamer.c.
 *
 * - macros (buffer timestamps, message fields, video-frame planes) and the
 *   casts GObject hides behind them;
 * - what must run on a GStreamer streaming thread (the tee-branch probe,
 *   the encoder timing probes), where no Swift closure may run;
 * - pad and iterator walks that are a page of C and three of Swift;
 * - glibc malloc tuning (<malloc.h> is not part of Swift's Glibc module).
 *
 * What to do with a frame is decided in Swift. `import CGStreamer` also
 * brings GStreamer's own API (the headers below).
 */
#ifndef HKID_CGSTREAMER_H
#define HKID_CGSTREAMER_H

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

/* MARK: Macros and casts */

gboolean hk_clock_time_is_valid(GstClockTime t);
void hk_buffer_set_timing(GstBuffer *buffer, GstClockTime pts, GstClockTime duration);

/* gst-libav 1.22.0's avenc_mpeg4 hands out its packets with libav's "no
 * timestamp" as PTS and DTS, and mp4mux then writes every frame at time 0
 * (a 30 s video plays in 40 ms). For an encoder that does not reorder
 * frames (max-bframes=0), each packet takes the timing of the frame that
 * went in: the input timestamps are queued on its sink pad and given to the
 * packets on its src pad, where a packet lacks them. */
void hk_encoder_keep_input_timing(GstElement *encoder);

GstMessageType hk_message_type(GstMessage *message);
GstObject *hk_message_source(GstMessage *message);
/* The name of the message's source element, "" when it has none. */
const char *hk_message_source_name(GstMessage *message);

/* NULL when the element is not of that type. */
GstAppSink *hk_as_app_sink(GstElement *element);
GstAppSrc *hk_as_app_src(GstElement *element);
GstBin *hk_as_bin(GstElement *element);
GstObject *hk_as_object(gpointer p);

/* Whether a GObject has a property of that name (gst_util_set_object_arg
 * only warns on a missing one, and we want to say so). */
gboolean hk_object_has_property(gpointer object, const char *name);

/* MARK: Frames and samples */

/* A video sample mapped for reading. The planes stay valid until
 * hk_video_frame_unmap; the sample must outlive the mapping. */
typedef struct hk_video_frame {
    GstVideoFrame frame;
    GstVideoFormat format;
    int width;
    int height;
    int n_planes;
    const guint8 *planes[4];
    int strides[4];
    GstClockTime pts;
    GstClockTime duration;
    /* From the caps' colorimetry (GStreamer's defaults when the caps name
     * none: limited range, BT.601 below 720 lines, BT.709 from 720 up). */
    int full_range;
    int bt709;
    /* From the caps' chroma-site: whether 4:2:0 colour samples sit on the
     * even luma columns (rows), else halfway between two. A stream that
     * names none (or one GStreamer does not know) is read as MPEG-2's: on
     * the columns, between the rows. */
    int chroma_h_cosited;
    int chroma_v_cosited;
} hk_video_frame;

gboolean hk_video_frame_map(GstSample *sample, hk_video_frame *out);
void hk_video_frame_unmap(hk_video_frame *frame);

/* A new buffer holding an I420 frame copied row by row from the caller's
 * planes (any strides) into GStreamer's default layout for those caps.
 * NULL when the size does not match the caps. */
GstBuffer *hk_i420_buffer_new(int width, int height,
                              const guint8 *y, int y_stride,
                              const guint8 *u, int u_stride,
                              const guint8 *v, int v_stride);

/* A sample's whole buffer (an encoded JPEG, say): its size, and a copy into
 * dest returning the byte count, 0 when it does not fit or there is none. */
gsize hk_sample_size(GstSample *sample);
gsize hk_sample_copy(GstSample *sample, guint8 *dest, gsize capacity);

/* MARK: Pipelines */

/* Detaches a recording branch from its tee at the next buffer on tee_pad
 * (hkid-station, issue 6): a blocking probe on the streaming thread unlinks
 * branch_sink and sends EOS into it, so the muxer finalises the file. Swift
 * waits for that EOS on the bus (hk_message_is_forwarded_eos_within). */
void hk_tee_branch_detach(GstPad *tee_pad, GstPad *branch_sink);

/* The pipeline's running time now (clock time minus base time), or
 * GST_CLOCK_TIME_NONE before it has a clock. */
GstClockTime hk_element_running_time(GstElement *element);

/* With message-forward=TRUE a bin wraps each child's EOS in an element
 * message "GstBinForwarded"; true when msg is one whose EOS came from inside
 * `within` (a sink of the recording bin). */
gboolean hk_message_is_forwarded_eos_within(GstMessage *msg, GstObject *within);

/* Every videoflip in the bin whose direction is identity or automatic
 * starts in passthrough (GStreamer 1.22 copies every frame otherwise). */
void hk_videoflips_start_in_passthrough(GstBin *bin);

/* Every decoder that decodebin (or another bin in `bin`) creates later and
 * that takes a thread count (libav's max-threads) gets one thread fewer than
 * the machine has cores, at least one: the analysis of the frames needs a
 * core of its own, and a decoder that occupies all of them makes it wait. */
void hk_decoders_leave_a_core(GstBin *bin);

/* Whether data can still reach `element`: following its sink pads upstream
 * through linked peers arrives at a source. FALSE when a link on the way
 * was never made (decodebin exposed no pad the video branch could take). */
gboolean hk_element_reaches_a_source(GstElement *element);

/* Whether any pad of any element in `bin` (recursively) has a running
 * streaming task; a bin that changes while it is looked at counts as busy. */
gboolean hk_bin_has_running_task(GstBin *bin);

/* MARK: Memory (see AllocatorTuning.swift) */

/* Keeps blocks of at least `bytes` in mmap, so freeing them returns them. */
void hk_pin_mmap_threshold(int bytes);
/* Hands free pages in every malloc arena back to the system. */
void hk_release_free_memory(void);

#endif /* HKID_CGSTREAMER_H */
