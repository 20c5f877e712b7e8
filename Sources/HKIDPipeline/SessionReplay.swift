import Foundation
import HKIDLiveness
import HKIDMedia

/// Runs one liveness session over every frame of a source, synchronously,
/// in order: the deterministic path used by replay and regression.
public struct SessionReplay {
    public struct Outcome: Sendable {
        /// Every event, in order (BEGIN first).
        public var events: [LivenessEvent]
        /// What the tracker reported for each analysed frame.
        public var measurements: [(t: MediaTime, card: CardMeasurement?)]
        public var counters: FrameCounters
        /// Width and height of the frames, once one arrived.
        public var frameSize: (width: Int, height: Int)?
        /// Wall time of the whole run, seconds.
        public var seconds: Double
        /// Set when the source failed part-way; events before it still count.
        public var error: MediaError?

        /// The result that ended the session, if one did.
        public var finalResult: LivenessResult? {
            events.lazy.compactMap { if case .result(let r) = $0, r.code.endsSession { r } else { nil } }.last
        }
    }

    public let session: LivenessSession
    /// Keep decoding after the session has ended (for pictures of the whole video).
    public var continuesAfterEnd = false

    public init(session: LivenessSession) {
        self.session = session
    }

    /// Feeds every frame of `source` to the session. `onEvent` sees each
    /// event as soon as it is decided; `onFrame` sees each frame with its
    /// analysis (for overlays). Throws only for errors before the first frame
    /// could be analysed; later source errors end up in `Outcome.error`.
    public func run(_ source: FrameSource,
                    onEvent: (LivenessEvent) throws -> Void = { _ in },
                    onFrame: ((VideoFrame, FrameAnalysis) throws -> Void)? = nil) throws -> Outcome {
        let started = ContinuousClock.now
        var events: [LivenessEvent] = []
        var measurements: [(t: MediaTime, card: CardMeasurement?)] = []
        func emit(_ list: [LivenessEvent]) throws {
            for event in list {
                events.append(event)
                try onEvent(event)
            }
        }
        try emit(session.startDetect())
        var ended = false
        var failure: MediaError?
        var frameSize: (width: Int, height: Int)?
        do {
            try source.run { frame in
                if ended && !continuesAfterEnd { source.stopSignal.stop(); return }
                guard let view = FrameView(frame) else {
                    throw MediaError(.decodeFailed, input: source.inputName, reason: "frames arrive as \(frame.format), which the analysis cannot read")
                }
                frameSize = frameSize ?? (frame.width, frame.height)
                // The analysis refuses frames it cannot measure (e.g. a 1x1
                // or odd-sized I420 video); that is a property of the input,
                // so it is reported like any other input error (one line
                // naming the file, exit 2) rather than escaping as an
                // unexplained LivenessError.
                let analysis: FrameAnalysis
                do {
                    analysis = try session.addFrame(view)
                } catch let error as LivenessError {
                    switch error {
                    case .invalidFrame(let why), .vision(_, _, let why):
                        throw MediaError(.decodeFailed, input: source.inputName,
                                         reason: "frames of \(frame.width)x\(frame.height) pixels cannot be analysed (\(why))")
                    case .closed:
                        throw error
                    }
                }
                measurements.append((analysis.t, analysis.measurement))
                try emit(analysis.events)
                if analysis.events.contains(where: { if case .result(let r) = $0 { r.code.endsSession } else { false } }) {
                    ended = true
                }
                try onFrame?(frame, analysis)
            }
        } catch let error as MediaError {
            failure = error
        }
        let elapsed = (ContinuousClock.now - started).components
        return Outcome(events: events, measurements: measurements, counters: session.counters,
                       frameSize: frameSize, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, error: failure)
    }
}
