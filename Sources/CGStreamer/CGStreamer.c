/* Definitions of the helpers CGStreamer.h declares (and says why). */
#include "CGStreamer.h"

#include <malloc.h>
#include <string.h>

gboolean hk_clock_time_is_valid(GstClockTime t) { return GST_CLOCK_TIME_IS_VALID(t); }

void hk_buffer_set_timing(GstBuffer *buffer, GstClockTime pts, GstClockTime duration) {
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(buffer) = duration;
}

typedef struct {
    GMutex lock;
    GQueue timing;  /* of HkFrameTiming, in input order */
} HkTimingQueue;

typedef struct {
    GstClockTime running_time, duration;
} HkFrameTiming;

static void hk_timing_queue_free(gpointer data) {
    HkTimingQueue *q = data;
    g_queue_clear_full(&q->timing, g_free);
    g_mutex_clear(&q->lock);
    g_free(q);
}

/* The segment `pad` is on now (its sticky segment event); FALSE before one. */
static gboolean hk_pad_segment(GstPad *pad, GstSegment *segment) {
    GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (event == NULL) return FALSE;
    gst_event_copy_segment(event, segment);
    gst_event_unref(event);
    return TRUE;
}

static GstPadProbeReturn hk_record_input_timing(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    HkTimingQueue *q = data;
    GstBuffer *in = GST_PAD_PROBE_INFO_BUFFER(info);
    HkFrameTiming *t = g_new(HkFrameTiming, 1);
    /* Kept as running time: the encoder's output segment is not its input's
     * (GstVideoEncoder moves it 1000 hours on, room for negative DTS). */
    GstSegment segment;
    t->running_time = hk_pad_segment(pad, &segment)
                          ? gst_segment_to_running_time(&segment, GST_FORMAT_TIME, GST_BUFFER_PTS(in))
                          : GST_BUFFER_PTS(in);
    t->duration = GST_BUFFER_DURATION(in);
    g_mutex_lock(&q->lock);
    g_queue_push_tail(&q->timing, t);
    g_mutex_unlock(&q->lock);
    return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn hk_restore_output_timing(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    HkTimingQueue *q = data;
    g_mutex_lock(&q->lock);
    HkFrameTiming *t = g_queue_pop_head(&q->timing);
    g_mutex_unlock(&q->lock);
    if (t == NULL) return GST_PAD_PROBE_OK;
    GstBuffer *out = GST_PAD_PROBE_INFO_BUFFER(info);
    /* The encoder's "no timestamp" is libav's AV_NOPTS_VALUE (INT64_MIN)
     * read as an unsigned clock time, which GStreamer takes for a valid one
     * (2562047 hours); no real stream runs that long. */
    const GstClockTime pts = GST_BUFFER_PTS(out);
    if (!GST_CLOCK_TIME_IS_VALID(pts) || pts > (GstClockTime)G_MAXINT64) {
        out = gst_buffer_make_writable(out);
        GstSegment segment;
        const GstClockTime restored =
            hk_pad_segment(pad, &segment)
                ? gst_segment_position_from_running_time(&segment, GST_FORMAT_TIME, t->running_time)
                : t->running_time;
        GST_BUFFER_PTS(out) = restored;
        GST_BUFFER_DTS(out) = restored;  /* no reordering: decoded in presentation order */
        if (!GST_BUFFER_DURATION_IS_VALID(out)) GST_BUFFER_DURATION(out) = t->duration;
        GST_PAD_PROBE_INFO_DATA(info) = out;
    }
    g_free(t);
    return GST_PAD_PROBE_OK;
}

void hk_encoder_keep_input_timing(GstElement *encoder) {
    GstPad *sink = gst_element_get_static_pad(encoder, "sink"), *src = gst_element_get_static_pad(encoder, "src");
    if (sink && src) {
        HkTimingQueue *q = g_new0(HkTimingQueue, 1);
        g_mutex_init(&q->lock);
        g_queue_init(&q->timing);
        /* The queue lives as long as the src pad's probe; the sink pad's
         * probe goes with it when the encoder is disposed (same element). */
        gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, hk_record_input_timing, q, NULL);
        gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, hk_restore_output_timing, q, hk_timing_queue_free);
    }
    if (sink) gst_object_unref(sink);
    if (src) gst_object_unref(src);
}

GstMessageType hk_message_type(GstMessage *message) { return GST_MESSAGE_TYPE(message); }
const char *hk_message_source_name(GstMessage *message) {
    return GST_MESSAGE_SRC(message) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(message)) : "";
}
GstObject *hk_message_source(GstMessage *message) { return GST_MESSAGE_SRC(message); }

GstAppSink *hk_as_app_sink(GstElement *element) {
    return GST_IS_APP_SINK(element) ? GST_APP_SINK(element) : NULL;
}
GstAppSrc *hk_as_app_src(GstElement *element) {
    return GST_IS_APP_SRC(element) ? GST_APP_SRC(element) : NULL;
}
GstBin *hk_as_bin(GstElement *element) {
    return GST_IS_BIN(element) ? GST_BIN(element) : NULL;
}
GstObject *hk_as_object(gpointer p) { return GST_OBJECT(p); }

/* Whether a GObject has a property of that name (gst_util_set_object_arg
 * only warns on a missing one, and we want to say so). */
gboolean hk_object_has_property(gpointer object, const char *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name) != NULL;
}

gboolean hk_video_frame_map(GstSample *sample, hk_video_frame *out) {
    GstCaps *caps = gst_sample_get_caps(sample);
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstVideoInfo info;
    if (caps == NULL || buffer == NULL || !gst_video_info_from_caps(&info, caps)) return FALSE;
    if (!gst_video_frame_map(&out->frame, &info, buffer, GST_MAP_READ)) return FALSE;
    out->format = GST_VIDEO_INFO_FORMAT(&info);
    out->width = GST_VIDEO_INFO_WIDTH(&info);
    out->height = GST_VIDEO_INFO_HEIGHT(&info);
    out->n_planes = (int)GST_VIDEO_FRAME_N_PLANES(&out->frame);
    for (int i = 0; i < 4; i++) {
        out->planes[i] = i < out->n_planes ? (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&out->frame, i) : NULL;
        out->strides[i] = i < out->n_planes ? GST_VIDEO_FRAME_PLANE_STRIDE(&out->frame, i) : 0;
    }
    out->pts = GST_BUFFER_PTS(buffer);
    out->duration = GST_BUFFER_DURATION(buffer);
    out->full_range = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    out->bt709 = info.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709;
    /* Read from the caps themselves: GstVideoInfo (1.22) keeps a chroma-site
     * only when the caps also name a colorimetry, and decoders (avdec_h264,
     * avdec_mpeg4) name a chroma-site without one. */
    const gchar *named = gst_structure_get_string(gst_caps_get_structure(caps, 0), "chroma-site");
    const GstVideoChromaSite site = named ? gst_video_chroma_site_from_string(named) : GST_VIDEO_CHROMA_SITE_UNKNOWN;
    if (site == GST_VIDEO_CHROMA_SITE_UNKNOWN) {
        out->chroma_h_cosited = 1;
        out->chroma_v_cosited = 0;
    } else {
        out->chroma_h_cosited = (site & GST_VIDEO_CHROMA_SITE_H_COSITED) != 0;
        out->chroma_v_cosited = (site & GST_VIDEO_CHROMA_SITE_V_COSITED) != 0;
    }
    return TRUE;
}

void hk_video_frame_unmap(hk_video_frame *frame) { gst_video_frame_unmap(&frame->frame); }

/*
 * A new buffer holding an I420 frame copied row by row from the caller's
 * planes (any strides) into GStreamer's default layout for those caps.
 * Returns NULL when the size does not match the caps.
 */
GstBuffer *hk_i420_buffer_new(int width, int height,
                                            const guint8 *y, int y_stride,
                                            const guint8 *u, int u_stride,
                                            const guint8 *v, int v_stride) {
    GstVideoInfo info;
    if (!gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, (guint)width, (guint)height)) return NULL;
    GstBuffer *buffer = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
    if (buffer == NULL) return NULL;
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_WRITE)) { gst_buffer_unref(buffer); return NULL; }
    const guint8 *src[3] = { y, u, v };
    const int src_stride[3] = { y_stride, u_stride, v_stride };
    for (int p = 0; p < 3; p++) {
        const int rows = p == 0 ? height : (height + 1) / 2;
        const int bytes = p == 0 ? width : (width + 1) / 2;
        guint8 *dst = map.data + GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
        const int dst_stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
        for (int r = 0; r < rows; r++) memcpy(dst + (gsize)r * dst_stride, src[p] + (gsize)r * src_stride[p], (size_t)bytes);
    }
    gst_buffer_unmap(buffer, &map);
    return buffer;
}

/*
 * Camera pipeline with a recording branch on a tee (hkid-station, issue 6).
 *
 * A recording bin is detached from its tee pad in the one place that is safe
 * while data flows: a blocking probe on the tee's src pad. The probe runs on
 * the streaming thread, unlinks the bin and sends EOS into it (so the muxer
 * finalises the file), then removes itself. Swift never runs on that thread;
 * it waits for the bin's EOS on the bus (forwarded, see
 * hk_message_is_forwarded_eos_within) and then removes the bin.
 */
static GstPadProbeReturn hk_tee_branch_detach_probe(GstPad *pad, GstPadProbeInfo *info, gpointer user_data) {
    (void)info;
    GstPad *branch_sink = GST_PAD(user_data);
    gst_pad_unlink(pad, branch_sink);
    gst_pad_send_event(branch_sink, gst_event_new_eos());
    return GST_PAD_PROBE_REMOVE;
}

/* Schedules the detach for the next buffer on tee_pad. */
void hk_tee_branch_detach(GstPad *tee_pad, GstPad *branch_sink) {
    gst_pad_add_probe(tee_pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM, hk_tee_branch_detach_probe,
                      gst_object_ref(branch_sink), (GDestroyNotify)gst_object_unref);
}

/* The pipeline's running time now (clock time minus base time), or
 * GST_CLOCK_TIME_NONE before it has a clock. */
GstClockTime hk_element_running_time(GstElement *element) {
    GstClock *clock = gst_element_get_clock(element);
    if (clock == NULL) return GST_CLOCK_TIME_NONE;
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = gst_element_get_base_time(element);
    return now > base ? now - base : 0;
}

/* With message-forward=TRUE a bin wraps each child's EOS in an element
 * message "GstBinForwarded"; true when msg is one whose EOS came from inside
 * `within` (a sink of the recording bin). */
gboolean hk_message_is_forwarded_eos_within(GstMessage *msg, GstObject *within) {
    if (GST_MESSAGE_TYPE(msg) != GST_MESSAGE_ELEMENT) return FALSE;
    const GstStructure *s = gst_message_get_structure(msg);
    if (s == NULL || !gst_structure_has_name(s, "GstBinForwarded")) return FALSE;
    GstMessage *inner = NULL;
    if (!gst_structure_get(s, "message", GST_TYPE_MESSAGE, &inner, NULL) || inner == NULL) return FALSE;
    gboolean result = GST_MESSAGE_TYPE(inner) == GST_MESSAGE_EOS && GST_MESSAGE_SRC(inner) != NULL &&
                      (GST_MESSAGE_SRC(inner) == within || gst_object_has_as_ancestor(GST_MESSAGE_SRC(inner), within));
    gst_message_unref(inner);
    return result;
}

/* Copies a sample's whole buffer (an encoded JPEG, say) into dest; returns
 * the byte count, or 0 when it does not fit or there is no buffer. */
gsize hk_sample_size(GstSample *sample) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    return buffer ? gst_buffer_get_size(buffer) : 0;
}
gsize hk_sample_copy(GstSample *sample, guint8 *dest, gsize capacity) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (buffer == NULL || gst_buffer_get_size(buffer) > capacity) return 0;
    return gst_buffer_extract(buffer, 0, dest, capacity);
}

/* GStreamer 1.22's videoflip starts at identity and switches passthrough on
 * only when its method *changes*, so a videoflip that never rotates copies
 * every frame into a new buffer: a 720p replay page-faulted ~13 MB more and
 * its streaming thread spent ~14 ms on the copies. Every videoflip in the
 * bin whose direction is identity or automatic starts in passthrough; an
 * orientation tag that asks for a rotation switches it off again (videoflip
 * does that itself when the method changes). */
void hk_videoflips_start_in_passthrough(GstBin *bin) {
    GstIterator *it = gst_bin_iterate_all_by_element_factory_name(bin, "videoflip");
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        GstElement *flip = GST_ELEMENT(g_value_get_object(&item));
        gint direction = GST_VIDEO_ORIENTATION_IDENTITY;
        g_object_get(flip, "video-direction", &direction, NULL);
        if (direction == GST_VIDEO_ORIENTATION_IDENTITY || direction == GST_VIDEO_ORIENTATION_AUTO) {
            gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(flip), TRUE);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
}

/* deep-element-added runs on the thread that adds the element (decodebin
 * adds its decoder on the streaming thread), before the element starts. */
static void hk_limit_decoder_threads(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer threads) {
    (void)bin;
    (void)sub_bin;
    GstElementFactory *factory = gst_element_get_factory(element);
    if (factory == NULL) return;
    const char *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    if (klass == NULL || strstr(klass, "Decoder") == NULL) return;
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "max-threads");
    if (spec == NULL || spec->value_type != G_TYPE_INT) return;
    g_object_set(element, "max-threads", GPOINTER_TO_INT(threads), NULL);
}

/* Measured on the development set's 720p H.264 (2 cores): libav's frame
 * threads cut decoding alone by a fifth but took the core the analysis
 * needed; replay with one decoder thread was faster overall. */
void hk_decoders_leave_a_core(GstBin *bin) {
    const int threads = MAX(1, (int)g_get_num_processors() - 1);
    g_signal_connect(bin, "deep-element-added", G_CALLBACK(hk_limit_decoder_threads), GINT_TO_POINTER(threads));
}

/* Whether data can still reach `element`: following its sink pads upstream
 * through linked peers (bins through their ghost pads) arrives at a source,
 * an element without sink pads. FALSE when a link on the way was never made,
 * e.g. decodebin exposed no pad that could link to the video branch. */
gboolean hk_element_reaches_a_source(GstElement *element) {
    gboolean reaches = FALSE, has_sink_pads = FALSE;
    GstIterator *it = gst_element_iterate_sink_pads(element);
    GValue item = G_VALUE_INIT;
    while (!reaches && gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        has_sink_pads = TRUE;
        GstPad *peer = gst_pad_get_peer(GST_PAD(g_value_get_object(&item)));
        if (peer) {
            GstElement *upstream = gst_pad_get_parent_element(peer);
            if (upstream) {
                reaches = hk_element_reaches_a_source(upstream);
                gst_object_unref(upstream);
            }
            gst_object_unref(peer);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return reaches || !has_sink_pads;
}

/* gst_iterator_fold steps for hk_bin_has_running_task: `running` is a
 * gboolean GValue; returning FALSE stops the fold once it is set. */
static gboolean hk_fold_pad_task_running(const GValue *pad, GValue *running, gpointer unused) {
    (void)unused;
    if (gst_pad_get_task_state(GST_PAD(g_value_get_object(pad))) == GST_TASK_STARTED) g_value_set_boolean(running, TRUE);
    return !g_value_get_boolean(running);
}

static gboolean hk_fold_element_task_running(const GValue *element, GValue *running, gpointer unused) {
    (void)unused;
    GstIterator *pads = gst_element_iterate_pads(GST_ELEMENT(g_value_get_object(element)));
    if (gst_iterator_fold(pads, hk_fold_pad_task_running, running, NULL) != GST_ITERATOR_DONE
        && !g_value_get_boolean(running)) {
        g_value_set_boolean(running, TRUE);  /* pads changed under us: busy */
    }
    gst_iterator_free(pads);
    return !g_value_get_boolean(running);
}

/* Whether any pad of any element in `bin` (recursively) has a streaming task
 * that is running. In a pipeline reading a file every thread that moves data
 * is such a task (the source's push loop, a demuxer's pull loop, a queue's
 * output); when none runs and the sink has no EOS, nothing will ever arrive.
 * A bin that changes while it is looked at (decodebin plugging elements) is
 * busy, hence TRUE, as is an iterator that fails. */
gboolean hk_bin_has_running_task(GstBin *bin) {
    GValue running = G_VALUE_INIT;
    g_value_init(&running, G_TYPE_BOOLEAN);
    GstIterator *elements = gst_bin_iterate_recurse(bin);
    GstIteratorResult result = gst_iterator_fold(elements, hk_fold_element_task_running, &running, NULL);
    gst_iterator_free(elements);
    return g_value_get_boolean(&running) || (result != GST_ITERATOR_DONE && result != GST_ITERATOR_OK);
}

/* Keeps large buffers (decoded frames, encoder state) in mmap so that
 * freeing them returns them to the system; see AllocatorTuning.swift.
 * <malloc.h> is not part of Swift's Glibc module, hence here. */
void hk_pin_mmap_threshold(int bytes) {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}

/* Hands free pages in every malloc arena back to the system (not just the
 * top of the main heap, as free() does); see AllocatorTuning.swift. */
void hk_release_free_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
