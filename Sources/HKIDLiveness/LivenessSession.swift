import CCardVision
import Foundation
import Logging
import Synchronization

/// One card holder's liveness check: feed it frames (or measurements), get
/// operation commands and results back.
///
/// An instance, not the SDK's global singleton: a process can run as many
/// sessions as it has cameras. A final class rather than an actor because
/// frames arrive synchronously on a GStreamer streaming thread with buffers
/// that are only valid during the call; an actor would force a copy and an
/// async hop per frame. Instead the session is `Sendable` through its
/// analysis lock and a serial delivery queue; see
/// docs/session.md for the full concurrency model.
public final class LivenessSession: Sendable {
    /// This library's version (the SDK's `getVersion`).
    public static let version = "1.0.0"

    let logger: Logger
    let state: Mutex<SessionState>
    let dispatcher: EventDispatcher

    public convenience init(configuration: LivenessConfiguration = LivenessConfiguration(),
                            logger: Logger = Logger(label: "hkid.liveness")) {
        self.init(configuration: configuration, logger: logger, stills: nil)
    }

    /// `stills` stands in for the tracker's stills when measurements are fed
    /// without frames (replay of a trace, tests); `liveness` likewise for the
    /// tracker's liveness evidence.
    init(configuration: LivenessConfiguration, logger: Logger, stills: sending (any StillProvider)?,
         liveness: (@Sendable () -> LivenessEvidence?)? = nil) {
        self.logger = logger
        state = Mutex(SessionState(configuration: configuration,
                                   machine: LivenessStateMachine(configuration: configuration),
                                   standInStills: stills, standInLiveness: liveness,
                                   challengeDraws: configuration.challengeSeed.map(SeededGenerator.init(seed:))))
        dispatcher = EventDispatcher(label: "hkid.liveness.delivery")
        if let seconds = configuration.watchdogSeconds {
            startWatchdog(after: seconds)
        }
    }

    deinit {
        state.withLock { $0.watchdog?.cancel() }
        dispatcher.finish()
    }

    // MARK: State

    public var configuration: LivenessConfiguration {
        state.withLock { $0.configuration }
    }

    public var phase: FlowPhase {
        state.withLock { $0.machine.phase }
    }

    /// Frames received, analysed and dropped so far: the `end` line's counters.
    public var counters: FrameCounters {
        state.withLock { $0.counters }
    }

    /// The evidence collected by the current (or last) attempt.
    public var evidence: DetectionEvidence {
        state.withLock { $0.machine.evidence }
    }

    /// The liveness decision of the current (or last) attempt: the one its
    /// final result carried, or, while no result has ended it (or it ended
    /// without one, as a recording that stops mid-flow does), the interim
    /// verdict that failed under `report`, else one on what has been
    /// measured so far (docs/liveness.md). `nil`
    /// when no frame was seen. Reading it judges the tracker's evidence, a
    /// few hundred microseconds: not for every frame.
    public var liveness: LivenessReport? {
        state.withLock { state in
            if let decided = state.machine.evidence.liveness ?? state.machine.interimSpoof { return decided }
            guard let evidence = state.livenessReader(), evidence.frames > 0 else { return nil }
            let configuration = state.configuration
            return LivenessReport(evidence: evidence, thresholds: configuration.livenessThresholds,
                                  mode: configuration.liveness, final: false)
        }
    }

    // MARK: Control (the SDK's class methods)

    /// Starts (or restarts) detection: forgets the previous attempt and the
    /// kept still, applies the card type, emits BEGIN, starts the overtime timer.
    @discardableResult
    public func startDetect() -> [LivenessEvent] {
        state.withLock { state -> [QueuedEvent] in
            guard !state.closed else { return [] }
            state.stills?.reset()
            state.tracker?.setCardType(state.configuration.cardType)
            state.machine.configuration = state.configuration
            let challenge = state.drawChallenge()
            let flow = state.machine.start(at: state.lastTime, challenge: challenge)
            state.watchdogBase = (ContinuousClock.now, state.lastTime ?? .zero)
            return deliver(flow, state: &state)
        }.map(\.resolved)
    }

    /// Stops detection silently (no event) and returns to idle; frames are
    /// ignored until `startDetect`.
    public func resetStatus() {
        state.withLock { state in
            state.machine.stop()
            state.stills?.reset()
        }
    }

    /// The SDK's `destroyOCR`: releases the tracker, stops the watchdog and
    /// ends the event streams once queued events are delivered. Every later
    /// frame call throws `LivenessError.closed`.
    public func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            state.machine.stop()
            state.tracker = nil
            state.standInStills = nil
            state.watchdog?.cancel()
            state.watchdog = nil
        }
        dispatcher.finish()
    }

    /// The SDK's `setIDCardType`. Takes effect at the next `startDetect`: the
    /// rotation axis never changes under a running attempt.
    public func setCardType(_ cardType: CardType) {
        state.withLock { $0.configuration.cardType = cardType }
    }

    /// The SDK's `setOverTimes`, in seconds. Applies to a running timer too
    /// (counted from when it started).
    public func setOverTimes(_ seconds: Double) {
        state.withLock { state in
            state.configuration.overtimeSeconds = seconds
            state.machine.setOverTimes(seconds)
        }
    }

    /// Restarts the overtime timer from the current media time (`startDetect` does this).
    public func startOverTime() {
        state.withLock { $0.machine.startOverTime(at: $0.lastTime) }
    }

    /// Stops the overtime timer: result 4 will not come until `startOverTime`.
    public func stopOverTimer() {
        state.withLock { $0.machine.stopOverTimer() }
    }

    // MARK: Turning decisions into events

    /// Dresses the machine's decisions (hints, stills, evidence), logs them
    /// and queues them for delivery. Called under the analysis lock, so
    /// events of concurrent callers (frames, watchdog) keep one order. A
    /// result's stills are only taken here; they are encoded by whoever
    /// resolves the event first (see `ResultStills`), outside the lock.
    @discardableResult
    func deliver(_ flow: [FlowEvent], trace: FrameTrace? = nil, state: inout SessionState) -> [QueuedEvent] {
        var events: [QueuedEvent] = []
        if let trace, state.configuration.emitsFrameTrace {
            events.append(QueuedEvent(event: .frame(trace)))
        }
        for decision in flow {
            switch decision {
            case .operation(let status, let hint, let t):
                let command = OperationCommand(currentStatus: status, hintKey: hint,
                                               nextOperationHint: hint.text(in: state.configuration.language), t: t)
                logger.info("operation", metadata: ["status": "\(status)", "t": "\(t.seconds)"])
                events.append(QueuedEvent(event: .operation(command)))
            case .result(let code, let t):
                let result = LivenessResult(code: code, t: t, delta: state.machine.evidence.jsonString(), images: [],
                                            liveness: code.endsSession ? state.machine.evidence.liveness : nil)
                let stills = state.configuration.encodesResultStills ? stills(for: code, from: state.stills) : nil
                var metadata: Logger.Metadata = ["retCode": "\(code.rawValue)", "message": "\(code.message)",
                                                 "t": "\(t.seconds)", "stills": "\(stills?.kinds.count ?? 0)"]
                if let liveness = result.liveness {
                    metadata["liveness"] = "\(liveness.verdict.rawValue)"
                    metadata["spoofScore"] = "\(liveness.spoofScore)"
                }
                logger.info("result", metadata: metadata)
                events.append(QueuedEvent(event: .result(result), stills: stills))
            }
        }
        dispatcher.deliver(events)
        return events
    }

    private func stills(for code: ResultCode, from provider: (any StillProvider)?) -> ResultStills? {
        guard let provider, !code.stillKinds.isEmpty else { return nil }
        guard let still = provider.takeStill() else {
            if code != .overtime {
                logger.warning("no still kept for result", metadata: ["retCode": "\(code.rawValue)"])
            }
            return nil
        }
        return ResultStills(still, kinds: code.stillKinds)
    }
}

/// Everything the analysis lock protects: the state machine, the tracker and
/// the media clock. One frame is analysed at a time, so the tracker (which
/// must not be used from two threads) and the state machine always see
/// frames in one order.
struct SessionState {
    var configuration: LivenessConfiguration
    var machine: LivenessStateMachine
    /// Created on the first `addFrame`, so measurement-only sessions never need the vision shim.
    var tracker: CardTracker?
    /// A stand-in for the tracker's stills in measurement-only sessions.
    var standInStills: (any StillProvider)?
    /// A stand-in for the tracker's liveness evidence in measurement-only sessions.
    var standInLiveness: (@Sendable () -> LivenessEvidence?)?
    /// Where `.random` challenges are drawn from with a `challengeSeed`;
    /// `nil` draws from the system's random source.
    var challengeDraws: SeededGenerator?
    /// pts of the first frame ever received: `t` is measured from it.
    var origin: Int64?
    /// Media time of the latest frame or measurement, analysed or not: where
    /// `startDetect` and `startOverTime` start the clock from.
    var lastTime: MediaTime?
    var counters = FrameCounters()
    var closed = false
    /// Where the watchdog extrapolates media time from: the last frame (or
    /// `startDetect`), on both clocks.
    var watchdogBase: (wall: ContinuousClock.Instant, media: MediaTime)?
    var watchdog: Task<Void, Never>?

    var stills: (any StillProvider)? {
        standInStills ?? tracker
    }

    /// Reads the liveness evidence when the machine asks for it (at a final
    /// result, and for the interim verdict every `minimumFrames` tracked
    /// frames: it costs a few hundred microseconds). The tracker is a
    /// class, so the closure holds the reference, not `self`, and does not
    /// overlap the machine's mutation of the state.
    var livenessReader: () -> LivenessEvidence? {
        if let standInLiveness { return standInLiveness }
        let tracker = self.tracker
        return { tracker?.liveness() }
    }

    /// This attempt's rotations, under the configuration's challenge: a
    /// random one's given first rotation, else a draw.
    mutating func drawChallenge() -> RotationChallenge {
        let (challenge, cardType) = (configuration.challenge, configuration.cardType)
        if challenge == .random, let first = configuration.firstRotation {
            return RotationChallenge(kind: .random, first: first, second: first.opposite)
        }
        if var seeded = challengeDraws {
            defer { challengeDraws = seeded }
            return RotationChallenge.draw(challenge, cardType: cardType, using: &seeded)
        }
        var system = SystemRandomNumberGenerator()
        return RotationChallenge.draw(challenge, cardType: cardType, using: &system)
    }

    /// An ended session whose configuration asks for frames to be traced
    /// to the end of the recording.
    var tracesAfterEnd: Bool {
        guard configuration.emitsFrameTrace && configuration.tracesAfterEnd else { return false }
        if case .ended = machine.phase { return true }
        return false
    }

    /// Media time of a pts, from the first frame.
    mutating func mediaTime(ofPTS pts: Int64) -> MediaTime {
        let origin = self.origin ?? pts
        self.origin = origin
        let t = MediaTime(nanoseconds: pts &- origin)
        if lastTime.map({ t > $0 }) ?? true { lastTime = t }
        return t
    }
}

extension LivenessSession {
    /// The SDK's `registerObserver`. Held weakly; registering twice is harmless.
    public func registerObserver(_ observer: any LivenessObserver) {
        dispatcher.register(observer)
    }

    /// The SDK's `unregisterObserver`. Once it returns, no callback that has
    /// not already started reaches the observer.
    public func unregisterObserver(_ observer: any LivenessObserver) {
        dispatcher.unregister(observer)
    }

    /// Calls `handler` with every event, on the delivery queue, in order.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (LivenessEvent) -> Void) -> EventHandlerToken {
        dispatcher.addHandler(handler)
    }

    /// Calls `handler` with every operation command.
    @discardableResult
    public func onOperationCommand(_ handler: @escaping @Sendable (OperationCommand) -> Void) -> EventHandlerToken {
        dispatcher.addHandler { event in
            if case .operation(let command) = event { handler(command) }
        }
    }

    /// Calls `handler` with every result.
    @discardableResult
    public func onResult(_ handler: @escaping @Sendable (LivenessResult) -> Void) -> EventHandlerToken {
        dispatcher.addHandler { event in
            if case .result(let result) = event { handler(result) }
        }
    }

    public func removeHandler(_ token: EventHandlerToken) {
        dispatcher.removeHandler(token)
    }

    /// A stream of every event from now on; it finishes when the session is
    /// closed. Each call makes an independent stream.
    public func events(
        bufferingPolicy: AsyncStream<LivenessEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<LivenessEvent> {
        dispatcher.makeStream(bufferingPolicy: bufferingPolicy)
    }
}

extension LivenessSession {
    /// For live sources: when no frame has arrived for `stall` wall-clock
    /// seconds, media time is extrapolated from the last frame by the wall
    /// clock, so that the overtime timer fires even if the camera stops.
    func startWatchdog(after stall: Double) {
        let period = max(0.02, min(stall, 1.0) / 4)
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(period))
                guard let self, self.watchdogTick(stall: stall) else { return }
            }
        }
        state.withLock { $0.watchdog = task }
    }

    /// Returns false once the session is closed.
    private func watchdogTick(stall: Double) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            guard state.machine.phase.isActive, let base = state.watchdogBase else { return true }
            let elapsed = ContinuousClock.now - base.wall
            guard elapsed >= .seconds(stall) else { return true }
            let (seconds, attoseconds) = elapsed.components
            let estimate = base.media + MediaTime(nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let reader = state.livenessReader
            let flow = state.machine.advance(to: estimate, liveness: reader)
            if !flow.isEmpty {
                logger.notice("watchdog: no frame for \(elapsed), media time extrapolated")
            }
            deliver(flow, state: &state)
            return true
        }
    }
}

/// Why a session call failed.
public enum LivenessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `close()` was called; the session accepts nothing any more.
    case closed
    /// The vision shim refused: `status` is a `hkcv_status` value.
    case vision(operation: String, status: Int32, reason: String)
    /// The frame's plane pointers or strides do not fit its pixel format.
    case invalidFrame(String)

    public var description: String {
        switch self {
        case .closed: "the session is closed"
        case .vision(let operation, let status, let reason): "\(operation) failed: \(reason) (\(status))"
        case .invalidFrame(let why): "invalid frame: \(why)"
        }
    }
}
