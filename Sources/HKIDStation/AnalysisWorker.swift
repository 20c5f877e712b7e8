import Foundation
import HKIDLiveness
import HKIDMedia
import Logging
import Synchronization

/// Runs one session's frame analysis on the station's analysis thread,
/// always on the newest camera frame.
///
/// The camera thread `offer`s every frame and never waits; a frame still
/// waiting when the next arrives is replaced and counted as dropped. The
/// frame is the camera's own mapped buffer (`VideoFrame` is immutable and
/// Sendable), so nothing is copied; the worker calls `addFrame`, which it can
/// time for the analysis histogram (`offerFrame` would copy and hide the time).
final class AnalysisWorker: Sendable {
    struct Counters: Sendable, Equatable {
        var received = 0
        var analysed = 0
        var dropped = 0
    }

    private struct Slot {
        var frame: VideoFrame?
        var closed = false
        var counters = Counters()
    }

    private let slot = Mutex(Slot())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let session: LivenessSession
    private let metrics: StationMetrics
    private let logger: Logger

    /// Starts analysing on `thread`; the loop holds it until `stop`.
    init(session: LivenessSession, metrics: StationMetrics, logger: Logger, thread: AnalysisThread) {
        self.session = session
        self.metrics = metrics
        self.logger = logger
        thread.run { [self] in self.loop() }
    }

    var counters: Counters { slot.withLock { $0.counters } }

    /// Called on the camera thread for every analysis frame; never blocks for long.
    func offer(_ frame: VideoFrame) {
        let replaced = slot.withLock { slot -> Bool? in
            guard !slot.closed else { return nil }
            slot.counters.received += 1
            let replaced = slot.frame != nil
            if replaced { slot.counters.dropped += 1 }
            slot.frame = frame
            return replaced
        }
        guard let replaced else { return }
        if replaced { metrics.frameDropped() } else { wake.signal() }
    }

    /// Stops taking frames and waits for the frame in analysis (if any) to
    /// finish. Every worker must be stopped: until then its loop holds the
    /// shared analysis thread.
    func stop() {
        let first = slot.withLock { slot -> Bool in
            defer { slot.closed = true; slot.frame = nil }
            return !slot.closed
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private enum Next { case frame(VideoFrame), idle, closed }

    private func loop() {
        defer { finished.signal() }
        while true {
            wake.wait()
            drain: while true {
                let next = slot.withLock { slot -> Next in
                    if slot.closed { return .closed }
                    guard let frame = slot.frame else { return .idle }
                    slot.frame = nil
                    return .frame(frame)
                }
                switch next {
                case .closed: return
                case .idle: break drain
                case .frame(let frame): analyse(frame)
                }
            }
        }
    }

    private func analyse(_ frame: VideoFrame) {
        guard frame.format == .i420, frame.planes.count >= 3 else {
            logger.warning("analysis frame is not I420; skipped")
            return
        }
        let started = ContinuousClock.now
        do {
            try session.addFrame(planes: frame.planes, strides: frame.strides, width: frame.width,
                                 height: frame.height, format: .i420, pts: max(frame.pts, 0))
        } catch {
            logger.warning("frame not analysed", metadata: ["error": "\(error)"])
            return
        }
        metrics.frameAnalysed(taking: ContinuousClock.now - started)
        slot.withLock { $0.counters.analysed += 1 }
    }
}
