import CGStreamer
import Foundation

/// Encodes I420 frames to H.264 in an MP4 through `appsrc ! x264enc ! mp4mux`
/// (or to MPEG-4 part 2 through libav's encoder, as older phones record).
///
/// The file appears under its final name only after the muxer has written
/// its index at end of stream: frames go to a temporary file beside it, which
/// is synced and renamed by `finish()`. An abandoned or failed writer removes
/// the temporary file, so no half-written video is ever left behind.
public final class VideoWriter {
    public struct Settings: Sendable {
        public var width: Int
        public var height: Int
        public var framesPerSecond: Int
        /// Target bit rate in kbit/s.
        public var bitrate: Int = 2_000
        /// x264's speed preset: slower presets give smaller files.
        public var preset: String = "medium"
        /// One encoder thread makes the output byte-identical from run to run.
        public var deterministic: Bool = false
        /// The codec in the MP4.
        public var codec: Codec = .h264
        /// GStreamer colorimetry of the frames (e.g. "bt601" for limited-range
        /// BT.601, "1:4:0:0" for full range); the encoder writes it into the
        /// stream. nil leaves it to GStreamer's default for the frame size.
        public var colorimetry: String?

        public enum Codec: String, Sendable {
            case h264
            /// MPEG-4 part 2 (Simple Profile), as older phones and cameras record.
            case mpeg4
        }

        public init(width: Int, height: Int, framesPerSecond: Int) {
            self.width = width
            self.height = height
            self.framesPerSecond = framesPerSecond
        }
    }

    public let path: String
    public let settings: Settings
    private let temporaryPath: String
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let appSource: UnsafeMutablePointer<GstAppSrc>
    private let bus: UnsafeMutablePointer<GstBus>
    private var finished = false
    public private(set) var framesWritten = 0

    public init(path: String, settings: Settings) throws(MediaError) {
        try GStreamerRuntime.ensureInitialised()
        guard settings.width > 0, settings.height > 0, settings.width % 2 == 0, settings.height % 2 == 0,
              settings.framesPerSecond > 0 else {
            throw MediaError(.writeFailed, input: path, reason: "frame size must be positive and even, frame rate positive")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MediaError(.writeFailed, input: path, reason: "the folder \(folder) does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw MediaError(.writeFailed, input: path, reason: "the folder \(folder) is not writable")
        }
        self.path = path
        self.settings = settings
        temporaryPath = (folder as NSString).appendingPathComponent(".\((path as NSString).lastPathComponent).\(getpid()).partial")

        var caps = "video/x-raw,format=I420,width=\(settings.width),height=\(settings.height),framerate=\(settings.framesPerSecond)/1"
        if let colorimetry = settings.colorimetry { caps += ",colorimetry=(string)\(colorimetry)" }
        let threads = settings.deterministic ? "threads=1 sliced-threads=false" : ""
        let encoder: String
        switch settings.codec {
        case .h264:
            encoder = """
                x264enc name=enc bitrate=\(settings.bitrate) speed-preset=\(settings.preset) key-int-max=\(settings.framesPerSecond * 2) \(threads) \
                ! video/x-h264,profile=high ! h264parse
                """
        case .mpeg4:
            // No mpeg4videoparse: with it, mp4mux refused the packets
            // ("Buffer has no PTS"; the encoder gives none, see below).
            let libavThreads = settings.deterministic ? "threads=1" : ""
            // No B-frames: the packets come out in the order the frames went
            // in, which is what restores their timing (below).
            encoder = "avenc_mpeg4 name=enc bitrate=\(settings.bitrate * 1000) gop-size=\(settings.framesPerSecond * 2) max-bframes=0 \(libavThreads)"
        }
        let text = """
            appsrc name=src format=time block=true caps=\(caps) \
            ! \(encoder) ! mp4mux faststart=true ! filesink name=out
            """
        var error: UnsafeMutablePointer<GError>?
        guard let parsed = gst_parse_launch(text, &error), error == nil, let bin = hk_as_bin(parsed),
              let srcElement = gst_bin_get_by_name(bin, "src"), let source = hk_as_app_src(srcElement),
              let out = gst_bin_get_by_name(bin, "out") else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "the encoder pipeline could not be built"
            g_clear_error(&error)
            throw MediaError(.writeFailed, input: path, reason: reason)
        }
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(out)), "location", temporaryPath)
        gst_object_unref(out)
        if settings.codec == .mpeg4, let encoderElement = gst_bin_get_by_name(bin, "enc") {
            // gst-libav 1.22.0's MPEG-4 encoder drops every timestamp
            // (hk_encoder_keep_input_timing says how they come back).
            hk_encoder_keep_input_timing(encoderElement)
            gst_object_unref(encoderElement)
        }
        gst_object_ref_sink(parsed)
        pipeline = parsed
        appSource = source
        bus = gst_element_get_bus(parsed)
        if gst_element_set_state(parsed, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            let failure = popError() ?? MediaError(.writeFailed, input: path, reason: "the encoder could not start")
            abandon()
            throw failure
        }
    }

    deinit {
        if !finished { abandon() }
        gst_object_unref(bus)
        gst_object_unref(appSource)
        gst_object_unref(pipeline)
    }

    /// Appends one frame; `pts` in nanoseconds from the start of the video.
    public func write(y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
                      v: UnsafePointer<UInt8>, vStride: Int, pts: Int64) throws(MediaError) {
        precondition(!finished, "write after finish")
        if let error = popError() { abandon(); throw error }
        guard let buffer = hk_i420_buffer_new(Int32(settings.width), Int32(settings.height), y, Int32(yStride),
                                              u, Int32(uStride), v, Int32(vStride)) else {
            throw MediaError(.writeFailed, input: path, reason: "could not allocate a frame buffer")
        }
        let duration = GstClockTime(1_000_000_000 / settings.framesPerSecond)
        hk_buffer_set_timing(buffer, GstClockTime(pts), duration)
        // push_buffer takes the buffer's reference, whatever it returns.
        if gst_app_src_push_buffer(appSource, buffer) != GST_FLOW_OK {
            let error = popError() ?? MediaError(.writeFailed, input: path, reason: "the encoder refused a frame")
            abandon()
            throw error
        }
        framesWritten += 1
    }

    /// Ends the stream, waits for the muxer to write its index, syncs the
    /// file and moves it to its final name.
    public func finish() throws(MediaError) {
        guard !finished else { return }
        gst_app_src_end_of_stream(appSource)
        let types = GstMessageType(GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let message = gst_bus_timed_pop_filtered(bus, 60 * 1_000_000_000, types) else {
            abandon()
            throw MediaError(.writeFailed, input: path, reason: "the encoder did not finish within 60 s")
        }
        defer { gst_message_unref(message) }
        if hk_message_type(message) == GST_MESSAGE_ERROR {
            let error = MediaError(parsing: message, input: path)
            abandon()
            throw MediaError(.writeFailed, input: path, reason: error.reason)
        }
        gst_element_set_state(pipeline, GST_STATE_NULL)
        finished = true
        do {
            try DurableFile.sync(path: temporaryPath)
            try DurableFile.rename(temporaryPath, to: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw MediaError(.writeFailed, input: path, reason: "\(error)")
        }
    }

    private func abandon() {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        finished = true
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }

    private func popError() -> MediaError? {
        guard let message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_message_unref(message) }
        let error = MediaError(parsing: message, input: path)
        return MediaError(.writeFailed, input: path, reason: error.reason)
    }
}
