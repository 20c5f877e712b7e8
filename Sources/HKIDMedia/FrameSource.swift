import CGStreamer
import Foundation
import Logging
import Synchronization

/// Pulls decoded frames out of a GStreamer pipeline's `appsink`, on the
/// caller's thread, with the bus watched in the same loop.
///
/// There is no GLib main loop and no callback from a streaming thread: the
/// loop alternates `gst_app_sink_try_pull_sample` (short timeout) with
/// `gst_bus_pop_filtered`, so an error posted by any element ends the loop
/// within one poll interval instead of leaving `pull_sample` blocked forever.
public final class FrameSource {
    public enum Ending: Sendable, Equatable {
        /// The source delivered everything it had (end of file).
        case endOfStream
        /// `StopSignal.stop()` was called.
        case stopped
    }

    /// Lets another thread (a signal handler, a daemon's cancel request) end
    /// the pull loop; the loop notices within one poll interval.
    public final class StopSignal: Sendable {
        private let requested = Atomic<Bool>(false)
        public init() {}
        public func stop() { requested.store(true, ordering: .relaxed) }
        public var isStopped: Bool { requested.load(ordering: .relaxed) }
    }

    public let description: PipelineDescription
    /// The file or device frames come from; names the input in errors.
    public let inputName: String
    /// The file given to `src` as its `location`, when the input is a file.
    private let inputFile: String?
    public let stopSignal = StopSignal()

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstAppSink>
    private var sinkElement: UnsafeMutablePointer<GstElement> { UnsafeMutablePointer(OpaquePointer(sink)) }
    private let bus: UnsafeMutablePointer<GstBus>
    private let logger: Logger
    /// How long the loop waits with nothing arriving before it gives up.
    /// nil for live sources, which may legitimately pause.
    private let stallTimeout: Duration?

    private static let pollInterval: GstClockTime = 50_000_000  // 50 ms

    /// Parses `description`, gives `input` (if any) to the element named `src`
    /// and finds the appsink named `sink`. Nothing runs until `run`.
    public init(_ description: PipelineDescription, input: String?, stallTimeout: Duration? = .seconds(10),
                logger: Logger = Logger(label: "hkid.media")) throws(MediaError) {
        self.description = description
        self.inputName = input ?? description.origin
        self.stallTimeout = stallTimeout
        self.logger = logger

        let (parsed, bin) = try GStreamerRuntime.parseSourcePipeline(
            description.text, origin: description.origin, notABin: "the pipeline must be a bin with an appsink named 'sink'")

        guard let sinkElement = gst_bin_get_by_name(bin, "sink") else {
            gst_object_unref(parsed)
            throw MediaError(.invalidPipeline, input: description.origin, reason: "no element named 'sink' in the pipeline")
        }
        guard let appSink = hk_as_app_sink(sinkElement) else {
            gst_object_unref(sinkElement)
            gst_object_unref(parsed)
            throw MediaError(.invalidPipeline, input: description.origin, reason: "the element named 'sink' is not an appsink")
        }

        var inputFile: String?
        if let input {
            do throws(MediaError) {
                inputFile = try Self.assignInput(input, in: bin, origin: description.origin) ? input : nil
            } catch {
                gst_object_unref(sinkElement)
                gst_object_unref(parsed)
                throw error
            }
        }

        self.inputFile = inputFile
        pipeline = parsed
        sink = appSink
        bus = gst_element_get_bus(parsed)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(bus)
        gst_object_unref(sink)
        gst_object_unref(pipeline)
    }

    /// Runs the pipeline and calls `body` with every frame the appsink hands
    /// over, in order, until end of stream, `stopSignal`, or an error.
    ///
    /// Frames already decoded when an error arrives are still delivered
    /// before the error is thrown, so a truncated recording yields the events
    /// of everything that played.
    @discardableResult
    public func run(_ body: (VideoFrame) throws -> Void) throws -> Ending {
        defer { gst_element_set_state(pipeline, GST_STATE_NULL) }
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            // The element that failed has posted its reason on the bus.
            throw nextError(waiting: .seconds(2)) ?? MediaError(.invalidPipeline, input: inputName,
                                                                 reason: "the pipeline could not start")
        }

        let started = ContinuousClock.now
        var lastProgress = started
        var lastFrameEnd: Int64 = -1
        var delivered = 0
        var idlePolls = 0
        while true {
            if stopSignal.isStopped { return .stopped }
            if let error = nextError(waiting: .zero) {
                try drainQueuedFrames(body)
                throw error
            }
            if let sample = gst_app_sink_try_pull_sample(sink, Self.pollInterval) {
                lastProgress = .now
                guard let frame = VideoFrame(adopting: sample) else {
                    throw MediaError(.decodeFailed, input: inputName, reason: "the appsink delivered a sample that is not raw video")
                }
                if frame.pts >= 0 { lastFrameEnd = frame.pts + max(frame.duration, 0) }
                delivered += 1
                try body(frame)
                continue
            }
            if gst_app_sink_is_eos(sink) != 0 {
                if let error = truncation(endedAt: lastFrameEnd) { throw error }
                // A stream that ends before its first frame was not analysed
                // at all (random bytes GStreamer took for an H.263 stream).
                guard delivered > 0 else {
                    throw MediaError(.decodeFailed, input: inputName, reason: MediaError.noFrameDecoded)
                }
                return .endOfStream
            }
            guard let stallTimeout else { continue }
            // decodebin 1.22 drops an error that a demuxer posts while it is
            // still bringing that demuxer up (a cut MP4 under load, about one
            // run in 40): nothing is posted and nothing will arrive. Every
            // streaming thread is then paused; two polls in a row say so.
            if delivered == 0, ContinuousClock.now - started > .milliseconds(500) {
                idlePolls = hk_bin_has_running_task(hk_as_bin(pipeline)) == 0 ? idlePolls + 1 : 0
                if idlePolls >= 2 {
                    if let error = nextError(waiting: .zero) { throw error }
                    throw inputFile.map({ InputFile.isCutShort($0) }) == true
                        ? MediaError(.decodeFailed, input: inputName, reason: MediaError.cutBeforeAnyFrame)
                        : MediaError(.decodeFailed, input: inputName, reason: MediaError.noFrameDecoded)
                }
            }
            if ContinuousClock.now - lastProgress > stallTimeout {
                throw MediaError(.stalled, input: inputName, reason: "no frame for \(stallTimeout) (the pipeline stalled)")
            }
        }
    }

    /// A cut-off MP4 whose index sits at the front plays its first part and
    /// then reaches a clean end of stream: GStreamer sees nothing wrong. The
    /// container still declares the full duration, so compare the two.
    private func truncation(endedAt lastFrameEnd: Int64) -> MediaError? {
        var declared: gint64 = -1
        guard gst_element_query_duration(pipeline, GST_FORMAT_TIME, &declared) != 0, declared > 0 else {
            return nil
        }
        let lastFrameEnd = max(lastFrameEnd, 0)
        // 0.3 s of slack covers edit lists and an audio track a little
        // longer than the video (AAC priming); a real cut loses more.
        // Within that slack, a file cut in its last frames (a 90 % cut of a
        // static scene lost only 0.17 s) is still caught by its container: a
        // top-level MP4 box that claims to run past the end of the file.
        guard lastFrameEnd + 300_000_000 < Int64(declared)
                || inputFile.map({ InputFile.isCutShort($0) }) == true else { return nil }
        let played = String(format: "%.2f", Double(lastFrameEnd) / 1e9)
        let total = String(format: "%.2f", Double(declared) / 1e9)
        return MediaError(.decodeFailed, input: inputName,
                          reason: "the file is truncated: decoding stopped at \(played) s of \(total) s")
    }

    private func drainQueuedFrames(_ body: (VideoFrame) throws -> Void) throws {
        while let sample = gst_app_sink_try_pull_sample(sink, 0) {
            if let frame = VideoFrame(adopting: sample) { try body(frame) }
        }
    }

    /// Pops bus messages until an error (returned) or until none is left;
    /// warnings are logged on the way.
    private func nextError(waiting timeout: Duration) -> MediaError? {
        let types = GstMessageType(GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue)
        var wait = GstClockTime(timeout.components.seconds) * 1_000_000_000
            + GstClockTime(timeout.components.attoseconds / 1_000_000_000)
        while let message = gst_bus_timed_pop_filtered(bus, wait, types) {
            defer { gst_message_unref(message) }
            wait = 0
            if hk_message_type(message) == GST_MESSAGE_WARNING {
                if let noVideo = MediaError(warning: message, feeding: sinkElement, input: inputName, logger: logger) {
                    return noVideo
                }
                continue
            }
            return MediaError(parsing: message, input: inputName)
        }
        return nil
    }

    /// Gives `input` to `src`; true when it went in as a file `location`.
    private static func assignInput(_ input: String, in bin: UnsafeMutablePointer<GstBin>, origin: String) throws(MediaError) -> Bool {
        guard let src = gst_bin_get_by_name(bin, "src") else {
            throw MediaError(.invalidPipeline, input: origin, reason: "an input was given but the pipeline has no element named 'src'")
        }
        defer { gst_object_unref(src) }
        if hk_object_has_property(src, "location") != 0 {
            if let problem = InputFile.problem(with: input) {
                throw MediaError(.unreadableInput, input: input, reason: problem)
            }
            gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "location", input)
            return true
        } else if hk_object_has_property(src, "device") != 0 {
            gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "device", input)
            return false
        } else {
            throw MediaError(.invalidPipeline, input: origin, reason: "the element named 'src' takes neither a location nor a device")
        }
    }
}

extension MediaError {
    static let noFrameDecoded = "no video frame could be decoded"
    /// An MP4 whose index (moov) comes last, cut before it: the box
    /// structure shows the cut (`InputFile.isCutShort`).
    static let cutBeforeAnyFrame = "the file is truncated: no playable stream left before the cut"

    static let noVideoStream = "has no video stream"

    /// A WARNING message: nil, logged, unless it means the input has no
    /// video. gst_parse posts "Delayed linking failed" when, at no-more-pads,
    /// none of decodebin's pads could link to the branch after it; when that
    /// branch is the one that feeds `sink`, this is the error that says so,
    /// at once. Waiting for the "not-linked" error is not enough, because
    /// only a stream that flows posts it: an audio-only MP4 does, a file taken
    /// for subtitles never does and would stall.
    init?(warning message: UnsafeMutablePointer<GstMessage>, feeding sink: UnsafeMutablePointer<GstElement>,
          input: String, logger: Logger) {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_warning(message, &error, &debug)
        let text = error.map { String(cString: $0.pointee.message) } ?? ""
        g_clear_error(&error)
        g_free(debug)
        guard text.hasPrefix("Delayed linking failed"), hk_element_reaches_a_source(sink) == 0 else {
            logger.warning("\(String(cString: hk_message_source_name(message))): \(text)")
            return nil
        }
        self.init(.decodeFailed, input: input, reason: Self.noVideoStream)
    }

    /// Turns a GStreamer ERROR message into our error: GStreamer's own
    /// sentence, sharpened where its wording hides the real cause.
    init(parsing message: UnsafeMutablePointer<GstMessage>, input: String) {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(message, &error, &debug)
        defer { g_clear_error(&error); g_free(debug) }
        let text = error.map { String(cString: $0.pointee.message) } ?? "unknown GStreamer error"
        let detail = debug.map { String(cString: $0) }
        let domain = error?.pointee.domain ?? 0

        let kind: Kind = domain == gst_resource_error_quark() ? .unreadableInput : .decodeFailed
        var reason = text
        if let detail {
            if detail.contains("reason not-linked") || detail.contains("no video") {
                reason = Self.noVideoStream
            } else if detail.contains("no known streams found") {
                // An MP4 whose index (moov) comes last and was cut off: say
                // so for certain when the box structure shows the cut.
                reason = InputFile.isCutShort(input)
                    ? Self.cutBeforeAnyFrame
                    : "\(text) (no playable stream; the file may be truncated or not a video)"
            } else if text.hasPrefix("Internal data stream error") {
                reason = "\(text) (\(detail.split(separator: "\n").last ?? ""))"
            }
        }
        self.init(kind, input: input, reason: reason, detail: detail)
    }
}
