import CGStreamer
import Foundation

/// The recording branch of a `CameraPipeline`: a bin hung on a tee request
/// pad for the length of one session, encoding everything it is given.
///
/// Nothing on this branch drops frames: its queue holds several seconds and
/// blocks rather than leaks. The file is Matroska, which is playable up to the
/// last complete cluster even when the process dies before the muxer writes
/// its index; that is what lets a crashed station serve a partial recording.
///
/// Lifecycle, all on the camera thread: `attach` (link to the tee and start),
/// `beginDetach` (the streaming thread unlinks it and sends EOS into it, see
/// `hk_tee_branch_detach` in CGStreamer.c), `remove` (once its EOS came back, or a
/// timeout passed: stop it and take it out of the pipeline).
final class SessionRecorder {
    let path: String
    let bin: UnsafeMutablePointer<GstElement>
    private let teePad: UnsafeMutablePointer<GstPad>
    private let sinkPad: UnsafeMutablePointer<GstPad>
    /// When `beginDetach` ran, to give up waiting for EOS on a stalled source.
    private(set) var detachStarted: ContinuousClock.Instant?

    /// Encoder settings: zerolatency keeps x264 from holding a second of
    /// frames back (lookahead), so what is in the file is what was seen.
    /// The file sink is unbuffered: with stdio's buffer a still scene (tiny
    /// P-frames) kept seconds of video in the process, lost to a `kill -9`.
    /// It is not async: a sink added to a running pipeline must not wait to
    /// preroll (the usual rule for a branch added at run time).
    static func description(bitrate: Int, keyframeInterval: Int) -> String {
        "queue name=recqueue max-size-buffers=0 max-size-bytes=0 max-size-time=5000000000 "
            + "! videoconvert ! video/x-raw,format=I420 "
            + "! x264enc tune=zerolatency speed-preset=veryfast bitrate=\(bitrate) key-int-max=\(keyframeInterval) "
            + "! h264parse ! matroskamux name=mux offset-to-zero=true ! filesink name=file sync=false async=false buffer-mode=unbuffered"
    }

    init(pipeline: UnsafeMutablePointer<GstElement>, tee: UnsafeMutablePointer<GstElement>, path: String,
         bitrate: Int, keyframeInterval: Int) throws(MediaError) {
        var error: UnsafeMutablePointer<GError>?
        let text = Self.description(bitrate: bitrate, keyframeInterval: keyframeInterval)
        guard let made = gst_parse_bin_from_description(text, 1, &error), error == nil,
              let madeBin = hk_as_bin(made) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "the recording branch could not be built"
            g_clear_error(&error)
            throw MediaError(.writeFailed, input: path, reason: reason)
        }
        guard let file = gst_bin_get_by_name(madeBin, "file") else {
            gst_object_unref(made)
            throw MediaError(.writeFailed, input: path, reason: "the recording branch has no file sink")
        }
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(file)), "location", path)
        gst_object_unref(file)
        guard let sink = gst_element_get_static_pad(made, "sink") else {
            gst_object_unref(made)
            throw MediaError(.writeFailed, input: path, reason: "the recording branch has no sink pad")
        }
        guard let pad = gst_element_request_pad_simple(tee, "src_%u") else {
            gst_object_unref(sink)
            gst_object_unref(made)
            throw MediaError(.writeFailed, input: path, reason: "the camera tee gave no pad for recording")
        }
        self.path = path
        bin = made
        sinkPad = sink
        teePad = pad

        // Keep our own reference: the pipeline takes the floating one.
        gst_object_ref(made)
        _ = gst_bin_add(hk_as_bin(pipeline), made)
        // The file starts at zero through the muxer's offset-to-zero, not a
        // pad offset of minus the running time at attach: frames already on
        // their way to the tee then came out with negative times and were
        // clipped, the encoder's first (key) frame among them, so every
        // recording began with up to a second of undecodable delta frames.
        _ = gst_element_sync_state_with_parent(made)
        if gst_pad_link(pad, sink) != GST_PAD_LINK_OK {
            gst_element_set_state(made, GST_STATE_NULL)
            _ = gst_bin_remove(hk_as_bin(pipeline), made)
            gst_element_release_request_pad(tee, pad)
            gst_object_unref(pad)
            gst_object_unref(sink)
            gst_object_unref(made)
            throw MediaError(.writeFailed, input: path, reason: "the recording branch does not accept the camera's video")
        }
    }

    /// Asks the streaming thread to unlink this branch and send it EOS.
    func beginDetach() {
        guard detachStarted == nil else { return }
        detachStarted = .now
        hk_tee_branch_detach(teePad, sinkPad)
    }

    /// Stops the branch and takes it out of the pipeline; the tee pad goes back.
    /// Safe after EOS came back (the file is finalised) and after a timeout
    /// (the file ends at its last complete cluster).
    func remove(from pipeline: UnsafeMutablePointer<GstElement>, tee: UnsafeMutablePointer<GstElement>) {
        if gst_pad_is_linked(teePad) != 0 { _ = gst_pad_unlink(teePad, sinkPad) }
        gst_element_set_state(bin, GST_STATE_NULL)
        _ = gst_bin_remove(hk_as_bin(pipeline), bin)
        gst_element_release_request_pad(tee, teePad)
    }

    /// Whether `message` is this branch's EOS coming back (the file is complete).
    func isOwnEndOfStream(_ message: UnsafeMutablePointer<GstMessage>) -> Bool {
        hk_message_is_forwarded_eos_within(message, hk_as_object(bin)) != 0
    }

    deinit {
        gst_object_unref(teePad)
        gst_object_unref(sinkPad)
        gst_object_unref(bin)
    }
}
