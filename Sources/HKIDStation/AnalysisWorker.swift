import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import Logging

/// Runs one session's frame analysis on the station's analysis thread,
/// always on the newest camera frame, through the `LiveDriver` that
/// `hkid-liveness run` uses too: the camera thread `offer`s every frame (its
/// own mapped buffer, not copied) and never waits; a frame still waiting when
/// the next arrives is replaced and counted as dropped. The driver's timings
/// feed the analysis histogram.
final class AnalysisWorker: Sendable {
    struct Counters: Sendable, Equatable {
        var received = 0
        var analysed = 0
        var dropped = 0
    }

    private let driver: LiveDriver

    /// Starts analysing on `thread`; the loop holds it until `stop`.
    init(session: LivenessSession, metrics: StationMetrics, logger: Logger, thread: AnalysisThread) {
        let driver = LiveDriver(session: session, logger: logger,
                                onAnalysed: { metrics.frameAnalysed(taking: $0) },
                                onDropped: { metrics.frameDropped() })
        self.driver = driver
        thread.run { driver.run() }
    }

    var counters: Counters {
        let counters = driver.counters
        return Counters(received: counters.received, analysed: counters.analysed, dropped: counters.dropped)
    }

    /// Called on the camera thread for every analysis frame; never blocks for long.
    func offer(_ frame: VideoFrame) { driver.offer(frame) }

    /// Stops taking frames and waits for the frame in analysis (if any) to
    /// finish. Every worker must be stopped: until then its loop holds the
    /// shared analysis thread.
    func stop() { driver.stop() }
}
