import CGStreamer
import Foundation
import Logging
import Synchronization

/// A camera that feeds analysis, a preview and, during sessions, a recording,
/// from one GStreamer pipeline split by a `tee`:
///
/// ```
/// source ! tee ─┬─ queue(leaky, 1) ! videoconvert ! appsink "analysis" (drop, 1 buffer)
///               ├─ queue(leaky, 1) ! videorate ! videoscale ! jpegenc ! appsink "preview"
///               └─ SessionRecorder bin (only during a session; never drops)
/// ```
///
/// The analysis and preview branches drop frames rather than delay the
/// camera; the recording branch never drops. Like `FrameSource`, `run` is a
/// pull loop on the caller's thread (a dedicated camera thread): no GLib main
/// loop, no Swift code on streaming threads. Other threads talk to it through
/// `control`, whose requests the loop picks up within one poll interval.
public final class CameraPipeline {
    public struct Settings: Sendable {
        public var source: CameraSource
        /// Preview JPEG width in pixels (height keeps the aspect ratio).
        public var previewWidth = 640
        public var previewFramesPerSecond = 5
        /// Recording bit rate in kbit/s.
        public var recordingBitrate = 2_500
        public var keyframeInterval = 30
        /// How long a stopping recording may take to drain before it is cut
        /// (a stalled camera never delivers the buffer that triggers the detach).
        public var recordingDrainTimeout: Duration = .seconds(5)
        /// A file source plays again from its start when it reaches its end,
        /// within the same pipeline (segment seeks): no EOS, so the running
        /// session and its recording go on across the wrap.
        public var loops = false

        public init(source: CameraSource) {
            self.source = source
        }
    }

    public enum Ending: Sendable, Equatable {
        /// The source ran out (a file's end).
        case endOfStream
        /// `control.stop()` was called.
        case stopped
    }

    /// How a recording ended.
    public enum RecordingEnding: Sendable, Equatable {
        /// The muxer got its EOS and wrote its index.
        case finalised(path: String)
        /// Drain timed out or the branch failed: the file holds what was
        /// written, playable up to its last complete cluster.
        case cutShort(path: String, reason: String)
        /// There was no recording to stop.
        case notRecording
    }

    /// Requests from other threads, picked up by the camera loop.
    public final class Control: Sendable {
        enum Request: Sendable {
            case startRecording(path: String, done: @Sendable (Result<Void, MediaError>) -> Void)
            case stopRecording(done: @Sendable (RecordingEnding) -> Void)
        }

        private let pending = Mutex<[Request]>([])
        private let stopRequested = Atomic<Bool>(false)

        /// Starts encoding everything the camera delivers into `path` (Matroska).
        public func startRecording(to path: String, done: @escaping @Sendable (Result<Void, MediaError>) -> Void) {
            pending.withLock { $0.append(.startRecording(path: path, done: done)) }
        }

        /// Ends the current recording cleanly (EOS through the muxer).
        public func stopRecording(done: @escaping @Sendable (RecordingEnding) -> Void) {
            pending.withLock { $0.append(.stopRecording(done: done)) }
        }

        /// Ends `run`, after finalising a recording that is still going.
        public func stop() { stopRequested.store(true, ordering: .relaxed) }
        public var isStopped: Bool { stopRequested.load(ordering: .relaxed) }

        func take() -> [Request] { pending.withLock { requests in defer { requests = [] }; return requests } }
    }

    public let settings: Settings
    public let control = Control()
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let tee: UnsafeMutablePointer<GstElement>
    private let analysisSink: UnsafeMutablePointer<GstAppSink>
    private let previewSink: UnsafeMutablePointer<GstAppSink>
    private let bus: UnsafeMutablePointer<GstBus>
    private let logger: Logger
    private var recorder: SessionRecorder?
    private var recorderStopped: [@Sendable (RecordingEnding) -> Void] = []
    /// How a recording that failed on its own (its file could not be
    /// written) ended, until its session asks to stop it: the session must
    /// learn that its file is cut short, not that nothing was recorded.
    private var failedRecording: RecordingEnding?
    private var sourceEnded = false
    /// The looping segment seek was sent (`settings.loops`).
    private var looping = false

    private static let pollInterval: GstClockTime = 20_000_000  // 20 ms

    /// The whole description, for logs and tests.
    public static func description(for settings: Settings) -> String {
        let leaky = "queue leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0"
        return "\(settings.source.fragment) ! tee name=camtee allow-not-linked=true "
            + "camtee. ! \(leaky) ! videoconvert ! video/x-raw,format=I420 "
            + "! appsink name=analysis sync=false drop=true max-buffers=1 enable-last-sample=false "
            + "camtee. ! \(leaky) ! videorate drop-only=true max-rate=\(settings.previewFramesPerSecond) "
            + "! videoscale ! videoconvert ! video/x-raw,width=\(settings.previewWidth),pixel-aspect-ratio=1/1 "
            + "! jpegenc quality=70 ! appsink name=preview sync=false drop=true max-buffers=1 enable-last-sample=false"
    }

    public init(settings: Settings, logger: Logger = Logger(label: "hkid.camera")) throws(MediaError) {
        self.settings = settings
        self.logger = logger
        let origin = settings.source.input ?? "camera"
        let (parsed, bin) = try GStreamerRuntime.parseSourcePipeline(
            Self.description(for: settings), origin: origin, notABin: "the camera pipeline did not parse into a bin")
        func element(_ name: String) -> UnsafeMutablePointer<GstElement>? { gst_bin_get_by_name(bin, name) }
        guard let teeElement = element("camtee"), let analysis = element("analysis").flatMap(hk_as_app_sink),
              let preview = element("preview").flatMap(hk_as_app_sink) else {
            gst_object_unref(parsed)
            throw MediaError(.invalidPipeline, input: origin, reason: "the camera pipeline lacks its tee or sinks")
        }
        if let input = settings.source.input {
            guard let src = element("src") else {
                gst_object_unref(parsed)
                throw MediaError(.invalidPipeline, input: origin, reason: "an input was given but the source has no element named 'src'")
            }
            defer { gst_object_unref(src) }
            if hk_object_has_property(src, "location") != 0 {
                if let problem = InputFile.problem(with: input) {
                    gst_object_unref(parsed)
                    throw MediaError(.unreadableInput, input: input, reason: problem)
                }
                gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "location", input)
            } else if hk_object_has_property(src, "device") != 0 {
                gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(src)), "device", input)
            }
        }
        // Children's EOS messages come to the bus wrapped, so the recording
        // branch's own EOS can be seen while the camera keeps running.
        gst_util_set_object_arg(UnsafeMutablePointer(OpaquePointer(parsed)), "message-forward", "true")
        pipeline = parsed
        tee = teeElement
        analysisSink = analysis
        previewSink = preview
        bus = gst_element_get_bus(parsed)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(bus)
        gst_object_unref(analysisSink)
        gst_object_unref(previewSink)
        gst_object_unref(tee)
        gst_object_unref(pipeline)
    }

    public var isRecording: Bool { recorder != nil }

    /// Runs the camera until it ends, `control.stop()`, or an error. Frames
    /// go to `onFrame` (newest only: the analysis branch drops what `onFrame`
    /// is too slow for), preview JPEGs to `onPreview`.
    @discardableResult
    public func run(onFrame: (VideoFrame) -> Void, onPreview: (Data) -> Void) throws(MediaError) -> Ending {
        defer {
            if recorder != nil { finishRecording(.cutShort(path: recorder!.path, reason: "the camera stopped")) }
            gst_element_set_state(pipeline, GST_STATE_NULL)
        }
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            throw popError(waiting: 2_000_000_000) ?? MediaError(.invalidPipeline, input: inputName,
                                                                  reason: "the camera could not start")
        }
        while true {
            for request in control.take() { handle(request) }
            if let recorder, let started = recorder.detachStarted,
               ContinuousClock.now - started > settings.recordingDrainTimeout {
                finishRecording(.cutShort(path: recorder.path, reason: "the recording did not drain in time"))
            }
            if control.isStopped {
                if let recorder { recorder.beginDetach() } else { return .stopped }
            }
            try pollBus()
            if sourceEnded {
                // EOS reached every sink, the recording's muxer included.
                if let recorder { finishRecording(.finalised(path: recorder.path)) }
                return .endOfStream
            }
            if let sample = gst_app_sink_try_pull_sample(analysisSink, Self.pollInterval) {
                if settings.loops && !looping {
                    // The pipeline does not preroll (it reports NO_PREROLL),
                    // so the segment seek that makes the file loop is sent
                    // once it plays: at its first frame.
                    // This frame came before the flush: dropped, so the
                    // first frame handed on (and any recording) comes after it.
                    looping = true
                    seekToStart(flushing: true)
                    gst_sample_unref(sample)
                } else if let frame = VideoFrame(adopting: sample, inRunningTime: true) {
                    onFrame(frame)
                }
            }
            if let sample = gst_app_sink_try_pull_sample(previewSink, 0) {
                let size = Int(hk_sample_size(sample))
                if size > 0 {
                    var data = Data(count: size)
                    let copied = data.withUnsafeMutableBytes { raw in
                        hk_sample_copy(sample, raw.baseAddress!.assumingMemoryBound(to: guint8.self), gsize(size))
                    }
                    if copied == size { onPreview(data) }
                }
                gst_sample_unref(sample)
            }
        }
    }

    private var inputName: String { settings.source.input ?? "camera" }

    /// A segment seek to the start: flushing once at the first frame (a
    /// non-flushing one there can wait on the streaming thread), then
    /// non-flushing at each SEGMENT_DONE, so running time (and the
    /// recording's timestamps) keep going across the wrap.
    private func seekToStart(flushing: Bool) {
        let flags = GST_SEEK_FLAG_SEGMENT.rawValue | (flushing ? GST_SEEK_FLAG_FLUSH.rawValue : 0)
        // The flushing seek goes through the pipeline (which resets its
        // clock for it). A non-flushing one is sent up from one sink: the
        // pipeline would send it from each of its sinks, the copies after
        // the first are refused, and it reports a seek that was done as failed.
        let target = flushing ? pipeline : UnsafeMutablePointer<GstElement>(OpaquePointer(analysisSink))
        if gst_element_seek(target, 1.0, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags), GST_SEEK_TYPE_SET, 0,
                            GST_SEEK_TYPE_NONE, -1) == 0 {
            logger.warning("the file source cannot seek back to its start; it will end instead of looping")
        }
    }

    private func handle(_ request: Control.Request) {
        switch request {
        case .startRecording(let path, let done):
            if recorder != nil {
                done(.failure(MediaError(.writeFailed, input: path, reason: "a recording is already running")))
                return
            }
            if sourceEnded {
                done(.failure(MediaError(.writeFailed, input: path, reason: "the camera has ended")))
                return
            }
            failedRecording = nil
            do {
                recorder = try SessionRecorder(pipeline: pipeline, tee: tee, path: path,
                                               bitrate: settings.recordingBitrate,
                                               keyframeInterval: settings.keyframeInterval)
                logger.info("recording started", metadata: ["path": "\(path)"])
                done(.success(()))
            } catch {
                done(.failure(error))
            }
        case .stopRecording(let done):
            guard let recorder else {
                done(failedRecording ?? .notRecording)
                failedRecording = nil
                return
            }
            recorderStopped.append(done)
            recorder.beginDetach()
        }
    }

    private func finishRecording(_ ending: RecordingEnding) {
        guard let recorder else { return }
        recorder.remove(from: pipeline, tee: tee)
        self.recorder = nil
        logger.info("recording ended", metadata: ["ending": "\(ending)"])
        let waiting = recorderStopped
        recorderStopped = []
        for done in waiting { done(ending) }
    }

    /// Handles whatever the bus holds without waiting: the recording's EOS,
    /// the source's EOS, errors (a recording's own error only ends the recording).
    private func pollBus() throws(MediaError) {
        let types = GstMessageType(GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue
                                   | GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ELEMENT.rawValue
                                   | GST_MESSAGE_SEGMENT_DONE.rawValue)
        while let message = gst_bus_pop_filtered(bus, types) {
            defer { gst_message_unref(message) }
            switch hk_message_type(message) {
            case GST_MESSAGE_ELEMENT:
                if let recorder, recorder.isOwnEndOfStream(message) {
                    finishRecording(.finalised(path: recorder.path))
                }
            case GST_MESSAGE_EOS:
                sourceEnded = true
            case GST_MESSAGE_SEGMENT_DONE:
                seekToStart(flushing: false)
            case GST_MESSAGE_WARNING:
                if let noVideo = MediaError(warning: message, feeding: UnsafeMutablePointer(OpaquePointer(analysisSink)),
                                            input: inputName, logger: logger) {
                    throw noVideo
                }
            default:
                if let recorder, let source = hk_message_source(message),
                   gst_object_has_as_ancestor(source, hk_as_object(recorder.bin)) != 0 {
                    let error = MediaError(parsing: message, input: recorder.path)
                    logger.error("recording failed", metadata: ["reason": "\(error.reason)"])
                    let ending = RecordingEnding.cutShort(path: recorder.path, reason: error.reason)
                    let someoneWaits = !recorderStopped.isEmpty
                    finishRecording(ending)
                    if !someoneWaits { failedRecording = ending }
                    continue
                }
                throw MediaError(parsing: message, input: inputName)
            }
        }
    }

    private func popError(waiting nanoseconds: GstClockTime) -> MediaError? {
        guard let message = gst_bus_timed_pop_filtered(bus, nanoseconds, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_message_unref(message) }
        return MediaError(parsing: message, input: inputName)
    }
}
