import Dispatch
import Logging

extension LivenessSession {
    /// Analyses one frame now, on the calling thread (the SDK's
    /// `addDetectBufferData`). The frame's memory is only read during the call.
    /// Use this for replay, where every frame must count; live sources go
    /// through HKIDPipeline's `LiveDriver` (newest frame, older ones dropped).
    @discardableResult
    public func addFrame(_ frame: FrameView) throws(LivenessError) -> FrameAnalysis {
        try frame.validate()
        return try analyse(frame, counted: true).resolved()
    }

    /// `addFrame` with the frame's parts spelled out, e.g. from a mapped GstBuffer.
    @discardableResult
    public func addFrame(planes: [UnsafePointer<UInt8>], strides: [Int], width: Int, height: Int,
                         format: FramePixelFormat, pts: Int64) throws(LivenessError) -> FrameAnalysis {
        try addFrame(FrameView(format: format, width: width, height: height,
                               planes: planes, strides: strides, pts: pts))
    }

    /// `addFrame` for a live driver (HKIDPipeline's `LiveDriver`): analysed
    /// now, on the calling thread, but a result's stills are left to the
    /// delivery queue, so the next frame does not wait for their JPEGs.
    package func addLiveFrame(_ frame: FrameView) throws(LivenessError) {
        try frame.validate()
        _ = try analyse(frame, counted: true)
    }

    /// Waits until every event so far has been delivered.
    public func flush() async {
        await dispatcher.flush()
    }

    /// Blocking `flush`, for code that is not async (a CLI's main thread).
    /// Must not be called from an observer or handler: that traps instead of
    /// deadlocking.
    public func waitUntilIdle() {
        dispatcher.waitUntilDelivered()
    }

    /// The frame's analysis with its events as queued: a result's stills are
    /// not encoded yet (`QueuedAnalysis.resolved()` does that, if wanted).
    private func analyse(_ borrowed: FrameView, counted: Bool) throws(LivenessError) -> QueuedAnalysis {
        let frame = BorrowedFrame(view: borrowed)
        return try state.withLock { state throws(LivenessError) -> QueuedAnalysis in
            guard !state.closed else { throw .closed }
            if counted { state.counters.received += 1 }
            let t = state.mediaTime(ofPTS: frame.view.pts)
            guard state.machine.phase.isActive || state.tracesAfterEnd else {
                return QueuedAnalysis(t: t, measurement: nil, events: [])
            }
            let tracker: CardTracker
            if let existing = state.tracker {
                tracker = existing
            } else {
                // The card type of the running attempt, fixed at startDetect:
                // a setCardType since then waits for the next startDetect, in
                // the tracker as in the state machine.
                var configuration = state.configuration
                configuration.cardType = state.machine.cardType
                tracker = try CardTracker(configuration: configuration, logger: logger)
                state.tracker = tracker
            }
            let measurement = try tracker.process(frame.view)
            return decide(measurement, at: t, state: &state)
        }
    }

    /// Feeds one measurement as if a frame with timestamp `pts` had shown it.
    /// This is how a recorded measurement trace is replayed, and how the
    /// tests drive the flow without video. Timestamps share `addFrame`'s
    /// origin: `t` is measured from the first frame or measurement received.
    @discardableResult
    public func process(_ measurement: CardMeasurement, at pts: MediaTime) -> FrameAnalysis {
        state.withLock { state in
            guard !state.closed else {
                return QueuedAnalysis(t: .zero, measurement: nil, events: [])
            }
            state.counters.received += 1
            let t = state.mediaTime(ofPTS: pts.nanoseconds)
            guard state.machine.phase.isActive else {
                return QueuedAnalysis(t: t, measurement: nil, events: [])
            }
            return decide(measurement, at: t, state: &state)
        }.resolved()
    }

    /// Media time passed without a frame (the same clock as `pts`). Only the
    /// overtime timer can fire. The live watchdog calls this; replay normally
    /// does not need it.
    @discardableResult
    public func advance(to pts: MediaTime) -> [LivenessEvent] {
        state.withLock { state -> [QueuedEvent] in
            guard !state.closed else { return [] }
            let t = state.mediaTime(ofPTS: pts.nanoseconds)
            let reader = state.livenessReader
            return deliver(state.machine.advance(to: t, liveness: reader), state: &state)
        }.map(\.resolved)
    }

    private static func isOrth(_ event: FlowEvent) -> Bool {
        if case .operation(.orth, _, _) = event { return true }
        return false
    }

    private func decide(_ measurement: CardMeasurement, at t: MediaTime, state: inout SessionState) -> QueuedAnalysis {
        state.counters.analysed += 1
        if !state.machine.phase.isActive {
            // Traced after the end: the frame's line and nothing else.
            let trace = FrameTrace(t: t, card: measurement.found ? measurement : nil)
            return QueuedAnalysis(t: t, measurement: measurement, events: deliver([], trace: trace, state: &state))
        }
        state.watchdogBase = (ContinuousClock.now, t)
        state.standInStills?.consider(measurement, at: t)
        let reader = state.livenessReader
        let flow = state.machine.process(measurement, at: t, liveness: reader)
        if flow.contains(where: Self.isOrth) {
            // The material is judged on the frames from here on (hkcv_tracker_restart_material).
            state.tracker?.restartMaterial()
        }
        let events = deliver(flow, trace: FrameTrace(t: t, card: measurement.found ? measurement : nil), state: &state)
        if measurement.found {
            logger.trace("frame", metadata: ["t": "\(t.seconds)", "yaw": "\(measurement.yaw)", "pitch": "\(measurement.pitch)"])
        }
        return QueuedAnalysis(t: t, measurement: measurement, events: events)
    }
}

/// Lets a caller's frame into the analysis lock without tying the tracker to
/// the caller's concurrency region.
///
/// `@unchecked Sendable` is safe here because a `BorrowedFrame` never leaves
/// `analyse`: it is created there, read synchronously under the analysis lock
/// while the caller is blocked in the same call, and dropped before the call
/// returns. The pixels are only read, never written, and no pointer is stored.
private struct BorrowedFrame: @unchecked Sendable {
    let view: FrameView
}
