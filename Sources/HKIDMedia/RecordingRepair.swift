import CGStreamer
import Foundation

/// Rewrites a Matroska recording whose muxer never finished (the station was
/// killed mid-session): demuxed and muxed again without re-encoding, so the
/// copy ends at the last complete frame and its header states the duration
/// of what is really in it, with a seek index. The cut original claims
/// whatever duration the muxer guessed at the start (a file source's whole
/// length) and has no index.
public enum RecordingRepair {
    /// Remuxes `input` into `output` (replaced if present). Throws when not a
    /// single frame could be carried over; `output` is then removed.
    public static func remux(_ input: String, to output: String,
                             timeout: Duration = .seconds(60)) throws(MediaError) {
        try GStreamerRuntime.ensureInitialised()
        try? FileManager.default.removeItem(atPath: output)
        let description = "filesrc name=src ! matroskademux ! h264parse ! matroskamux ! filesink name=sink"
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(description, &error), error == nil else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "the remux pipeline did not parse"
            g_clear_error(&error)
            throw MediaError(.invalidPipeline, input: input, reason: reason)
        }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        guard let bin = hk_as_bin(pipeline), let src = gst_bin_get_by_name(bin, "src"),
              let sink = gst_bin_get_by_name(bin, "sink") else {
            throw MediaError(.invalidPipeline, input: input, reason: "the remux pipeline lacks its source or sink")
        }
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "location", input)
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(sink)), "location", output)
        gst_object_unref(src)
        gst_object_unref(sink)

        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let types = GstMessageType(GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)
        let nanoseconds = GstClockTime(timeout.components.seconds) * 1_000_000_000
        guard let message = gst_bus_timed_pop_filtered(bus, nanoseconds, types) else {
            try? FileManager.default.removeItem(atPath: output)
            throw MediaError(.stalled, input: input, reason: "the recording could not be remuxed within \(timeout)")
        }
        defer { gst_message_unref(message) }
        if hk_message_type(message) == GST_MESSAGE_ERROR {
            let failure = MediaError(parsing: message, input: input)
            try? FileManager.default.removeItem(atPath: output)
            throw failure
        }
    }

    /// Whether the recording holds at least one frame that decodes: a
    /// session cancelled in its first moments leaves a Matroska header and
    /// nothing a player can show, which must not be signed as "the video".
    public static func hasPlayableFrame(_ path: String, timeout: Duration = .seconds(10)) -> Bool {
        guard (try? GStreamerRuntime.ensureInitialised()) != nil else { return false }
        var error: UnsafeMutablePointer<GError>?
        let description = "filesrc name=src ! matroskademux ! h264parse ! avdec_h264 ! appsink name=sink sync=false"
        guard let pipeline = gst_parse_launch(description, &error), error == nil else {
            g_clear_error(&error)
            return false
        }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        guard let bin = hk_as_bin(pipeline), let src = gst_bin_get_by_name(bin, "src") else { return false }
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "location", path)
        gst_object_unref(src)
        guard let sinkElement = gst_bin_get_by_name(bin, "sink") else { return false }
        defer { gst_object_unref(sinkElement) }
        guard let sink = hk_as_app_sink(sinkElement) else { return false }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        // try_pull returns nil at EOS at once, but an error (a file with a
        // header and no frame) only shows on the bus: poll both.
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let sample = gst_app_sink_try_pull_sample(sink, 50_000_000) {
                gst_sample_unref(sample)
                return true
            }
            if gst_app_sink_is_eos(sink) != 0 { return false }
            if let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
                gst_message_unref(message)
                return false
            }
        }
        return false
    }

    /// The duration a file's container states, in seconds (nil when it
    /// states none or the file does not open).
    public static func statedDuration(of path: String) -> Double? {
        guard (try? GStreamerRuntime.ensureInitialised()) != nil else { return nil }
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch("filesrc name=src ! matroskademux ! fakesink", &error), error == nil else {
            g_clear_error(&error)
            return nil
        }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        guard let bin = hk_as_bin(pipeline), let src = gst_bin_get_by_name(bin, "src") else { return nil }
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "location", path)
        gst_object_unref(src)
        gst_element_set_state(pipeline, GST_STATE_PAUSED)
        guard gst_element_get_state(pipeline, nil, nil, 10_000_000_000) != GST_STATE_CHANGE_FAILURE else { return nil }
        var duration: gint64 = -1
        guard gst_element_query_duration(pipeline, GST_FORMAT_TIME, &duration) != 0, duration > 0 else { return nil }
        return Double(duration) / 1e9
    }
}
