/// The pure decision logic of SPEC section 5: measurements and media time in,
/// flow events out. No tracker, no threads, no clocks; a value you can copy,
/// replay and test in isolation. `LivenessSession` owns one and feeds it.
///
/// The decisions the spec leaves open are listed in docs/session.md; the
/// comments below point at them rather than repeat them.
public struct LivenessStateMachine: Sendable {
    /// Thresholds and card type. The card type and thresholds are read when
    /// they are needed, except the card type, which is fixed by `start`.
    public var configuration: LivenessConfiguration
    public private(set) var phase: FlowPhase = .idle
    /// The card type of the running flow, fixed at `start`.
    public private(set) var cardType: CardType
    /// The rotations the running flow asks for, fixed at `start`.
    public private(set) var challenge: RotationChallenge
    public private(set) var evidence: DetectionEvidence
    /// The latest media time seen by `process` or `advance`.
    public private(set) var now: MediaTime?

    private enum OvertimeTimer: Sendable, Hashable {
        case stopped
        /// Started before any media time was known: starts at the next one.
        case armed
        case running(since: MediaTime)
    }

    private var overtime: OvertimeTimer = .stopped
    /// First frame of the current front-on run (awaitingFront, awaitingReturn).
    private var frontSince: MediaTime?
    /// Consecutive frames past the rotation threshold.
    private var rotationStreak = 0
    /// Consecutive frames past the rotation threshold the other way, while
    /// a drawn first rotation is awaited (`Challenge.random`).
    private var wrongStreak = 0
    /// Last frame the card was tracked on.
    private var lastSeen: MediaTime?
    /// First frame of the current run of frames over the glare limit.
    private var glareSince: MediaTime?
    /// Alerts announced since the last VALID. A condition that flickers
    /// (a corner grazing the border on alternate frames) is announced once
    /// per episode, not once per flicker; VALID closes the episode.
    private var announcedAlerts: Set<OperationStatus> = []
    /// An alert was emitted and VALID has not followed yet: the flow is paused.
    private var awaitingValid = false
    /// First frame of the current run of alert-free tracked frames.
    private var clearSince: MediaTime?
    /// Frames the card was tracked on since `start`: the interim liveness
    /// verdicts come every `livenessThresholds.minimumFrames` of them.
    private var trackedFrames = 0
    /// Under `report`, the first interim verdict that would have ended the
    /// session under `enforce`. The session runs on, and its final result
    /// carries this verdict: report mode records what enforce decides.
    private(set) var interimSpoof: LivenessReport?

    public init(configuration: LivenessConfiguration = LivenessConfiguration()) {
        self.configuration = configuration
        self.cardType = configuration.cardType
        self.challenge = .fixed(configuration.cardType)
        self.evidence = DetectionEvidence(cardType: configuration.cardType)
    }

    // MARK: Control

    /// `startDetect`: forgets everything about the previous attempt, emits
    /// BEGIN and starts the overtime timer. `time` is the current media time,
    /// or `nil` before the first frame (the timer then starts on the first frame).
    /// `challenge` is the rotations to ask for (the session draws it, see
    /// `RotationChallenge.draw`); `nil` is the SDK's flow for the card type.
    /// One for another card type is replaced by the SDK's flow.
    public mutating func start(at time: MediaTime?, challenge: RotationChallenge? = nil) -> [FlowEvent] {
        stop()
        cardType = configuration.cardType
        let sdk = RotationChallenge.fixed(cardType)
        if let challenge, challenge.first == sdk.first || challenge.first == sdk.second {
            self.challenge = challenge
        } else {
            self.challenge = sdk
        }
        evidence = DetectionEvidence(cardType: cardType)
        evidence.challenge = self.challenge
        phase = .awaitingFront
        startOverTime(at: time)
        return [.operation(.begin, .place, at: time ?? now ?? .zero)]
    }

    /// `resetStatus`: back to idle, silently, timers stopped.
    public mutating func stop() {
        phase = .idle
        overtime = .stopped
        frontSince = nil
        rotationStreak = 0
        wrongStreak = 0
        lastSeen = nil
        glareSince = nil
        announcedAlerts = []
        awaitingValid = false
        clearSince = nil
        trackedFrames = 0
        interimSpoof = nil
    }

    /// `startOverTime`: (re)starts the overtime timer from `time`.
    public mutating func startOverTime(at time: MediaTime?) {
        if let time = time ?? now {
            overtime = .running(since: time)
        } else {
            overtime = .armed
        }
    }

    /// `stopOverTimer`.
    public mutating func stopOverTimer() {
        overtime = .stopped
    }

    /// `setOverTimes`: also applies to a running timer, counted from when it started.
    public mutating func setOverTimes(_ seconds: Double) {
        configuration.overtimeSeconds = seconds
    }

    // MARK: Input

    /// Time passed without a frame (the live watchdog). Only the overtime
    /// timer is evaluated: a camera that stops is not a card that is lost.
    /// `liveness` is read only if a final result is given (see `process`).
    public mutating func advance(to time: MediaTime,
                                 liveness: () -> LivenessEvidence? = { nil }) -> [FlowEvent] {
        guard phase.isActive else { return [] }
        tick(time)
        return checkOvertime(time, liveness) ?? []
    }

    /// One analysed frame.
    ///
    /// `liveness` reads the tracker's liveness evidence (`nil`: no pixels
    /// were seen). It costs a few hundred microseconds, so it is called only
    /// when this frame may give a final result: once the second rotation is
    /// confirmed its verdict decides between COMPLETE + result 0 and result
    /// 5 (`LivenessMode.enforce`); every `minimumFrames` tracked frames for
    /// the interim verdict (`checkMaterial`); and any final result carries
    /// the verdict in `evidence.liveness`.
    public mutating func process(_ m: CardMeasurement, at t: MediaTime,
                                 liveness: () -> LivenessEvidence? = { nil }) -> [FlowEvent] {
        guard phase.isActive else { return [] }
        tick(t)
        evidence.framesAnalysed += 1
        // A frame that arrives at or after the deadline is too late to count.
        if let expired = checkOvertime(t, liveness) { return expired }

        guard m.found else { return cardMissing(at: t, liveness) }
        lastSeen = t
        evidence.peakGlare = max(evidence.peakGlare, DetectionEvidence.rounded(m.glare, 3))
        evidence.peakSpeed = max(evidence.peakSpeed, DetectionEvidence.rounded(m.speed, 1))

        if let exposed = checkExposure(m, at: t, liveness) { return exposed }
        if let spoofed = checkMaterial(at: t, liveness) { return spoofed }

        var events = checkAlerts(m, at: t)
        if awaitingValid {
            // Paused: no dwell or streak may build up behind an alert.
            frontSince = nil
            rotationStreak = 0
            return events
        }
        events += advanceFlow(m, at: t, liveness)
        return events
    }

    // MARK: Rules

    private mutating func tick(_ t: MediaTime) {
        if overtime == .armed { overtime = .running(since: t) }
        if now.map({ t > $0 }) ?? true { now = t }
    }

    private mutating func checkOvertime(_ t: MediaTime, _ liveness: () -> LivenessEvidence?) -> [FlowEvent]? {
        guard case .running(let since) = overtime,
              t - since >= MediaTime(seconds: configuration.overtimeSeconds)
        else { return nil }
        return end(.overtime, at: t, judging: liveness)
    }

    private mutating func cardMissing(at t: MediaTime, _ liveness: () -> LivenessEvidence?) -> [FlowEvent] {
        // Unknown is not clear: a missing frame breaks every run of evidence.
        frontSince = nil
        rotationStreak = 0
        glareSince = nil
        clearSince = nil
        if phase.isPastFirst, let lastSeen,
           t - lastSeen >= MediaTime(seconds: configuration.lostSeconds) {
            return end(.lost, at: t, judging: liveness)
        }
        return []
    }

    private mutating func checkExposure(_ m: CardMeasurement, at t: MediaTime,
                                        _ liveness: () -> LivenessEvidence?) -> [FlowEvent]? {
        guard configuration.checksGlare, m.glare > configuration.glareLimit else {
            glareSince = nil
            return nil
        }
        let since = glareSince ?? t
        glareSince = since
        guard t - since >= MediaTime(seconds: configuration.exposureSeconds) else { return nil }
        return end(.exposure, at: t, judging: liveness)
    }

    private func alerts(for m: CardMeasurement) -> [OperationStatus] {
        var holding: [OperationStatus] = []
        if m.widthRatio < configuration.farWidthRatio { holding.append(.far) }
        if m.widthRatio > configuration.nearWidthRatio || m.touchesBorder { holding.append(.near) }
        if configuration.checksOverspeed, m.speed > configuration.maxSpeedDegreesPerSecond {
            holding.append(.overspeed)
        }
        return holding
    }

    private mutating func checkAlerts(_ m: CardMeasurement, at t: MediaTime) -> [FlowEvent] {
        let holding = alerts(for: m)
        var events: [FlowEvent] = []
        for alert in holding where !announcedAlerts.contains(alert) {
            events.append(.operation(alert, HintKey.forStep(alert, cardType: cardType), at: t))
            evidence.alerts[alert.name, default: 0] += 1
            announcedAlerts.insert(alert)
        }
        if !holding.isEmpty {
            awaitingValid = true
            clearSince = nil
        } else if awaitingValid {
            let since = clearSince ?? t
            clearSince = since
            if t - since >= MediaTime(seconds: configuration.validDwellSeconds) {
                awaitingValid = false
                clearSince = nil
                announcedAlerts = []
                events.append(.operation(.valid, hint(for: phase.stepStatus), at: t))
            }
        }
        return events
    }

    /// The hint a step carries: the challenge's directions for the three
    /// rotation steps, the SDK's table for the rest.
    private func hint(for status: OperationStatus) -> HintKey {
        switch status {
        case .orth: challenge.first.hint
        case .reset: challenge.first.doneHint
        case .leftDown: challenge.second.hint
        default: HintKey.forStep(status, cardType: cardType)
        }
    }

    private func isFrontOn(_ m: CardMeasurement) -> Bool {
        abs(m.yaw) < configuration.frontMaxDegrees && abs(m.pitch) < configuration.frontMaxDegrees
    }

    /// The interim verdict (docs/liveness.md): every `minimumFrames`
    /// tracked frames, the checks that need no rotation may end the session
    /// before the flow completes, so a screen replay is stopped within a
    /// second or two even when it never completes the flow. Before ORTH the
    /// black level counts only at twice its threshold
    /// (`blackLevelFactorBeforeOrth`): until the card first stands front-on
    /// in view the holder is bringing it there, and the frames may show a
    /// card too near to be in focus, or a box printed on a card that the
    /// frame cuts, followed as the card; both read a lifted black. The
    /// session restarts the material evidence at ORTH, so from there on the
    /// black level and the colour are judged on the frames since ORTH.
    /// Under `report` the first failed interim verdict is kept for the final
    /// result instead: the evidence of the frames after it (the whole
    /// session's median) could otherwise pass what enforce stopped.
    private mutating func checkMaterial(at t: MediaTime, _ liveness: () -> LivenessEvidence?) -> [FlowEvent]? {
        trackedFrames += 1
        let every = configuration.livenessThresholds.minimumFrames
        guard interimSpoof == nil, every > 0, trackedFrames % every == 0 else { return nil }
        let report: LivenessReport
        if phase == .awaitingFront {
            let floor = configuration.livenessThresholds.blackLevel * LivenessThresholds.blackLevelFactorBeforeOrth
            report = judge({ liveness()?.withBlackLevel(atLeast: floor) }, final: false)
        } else {
            report = judge(liveness, final: false)
        }
        guard report.verdict == .spoof else { return nil }
        if report.endsSession { return end(.spoof, at: t, report: report) }
        interimSpoof = report
        return nil
    }

    /// Under `Challenge.random` the first turn must be the drawn one: a
    /// turn the other way, past the rotation threshold on `rotationFrames`
    /// frames, is what a recording made for the other draw shows, and
    /// without this rule one that turns one way, then the other, then back
    /// would satisfy either draw. It ends the session with 5 under
    /// `enforce` (a `challenge` check in `delta.liveness`); `report` records
    /// nothing and waits, as the fixed flow does for a wrong direction.
    private mutating func checkChallenge(turnedAway angle: Double, at t: MediaTime,
                                         _ liveness: () -> LivenessEvidence?) -> [FlowEvent]? {
        guard configuration.challenge == .random, configuration.liveness == .enforce,
              Self.extendStreak(&wrongStreak, signedAngle: angle, configuration) else { return nil }
        let wrongTurn = LivenessReport.WrongTurn(degrees: angle, threshold: configuration.rotationDegrees,
                                                 frames: configuration.rotationFrames)
        return end(.spoof, at: t, report: judge(liveness, final: false, wrongTurn: wrongTurn))
    }

    private mutating func advanceFlow(_ m: CardMeasurement, at t: MediaTime,
                                      _ liveness: () -> LivenessEvidence?) -> [FlowEvent] {
        switch phase {
        case .awaitingFront:
            // Distance is covered by the alerts (no alert holds here).
            let glareOK = !configuration.checksGlare || m.glare <= configuration.glareLimit
            guard dwell(isFrontOn(m) && glareOK, at: t, for: configuration.frontDwellSeconds) else { return [] }
            evidence.frontOn = DetectionEvidence.step(t, m)
            phase = .awaitingFirstRotation
            return [.result(.first, at: t), step(.orth, at: t)]

        case .awaitingFirstRotation:
            let angle = challenge.first.sign * cardType.rotationAngle(of: m)
            if let failed = checkChallenge(turnedAway: -angle, at: t, liveness) { return failed }
            evidence.firstRotationPeak = max(evidence.firstRotationPeak ?? angle, DetectionEvidence.rounded(angle, 1))
            guard Self.extendStreak(&rotationStreak, signedAngle: angle, configuration) else { return [] }
            evidence.firstRotation = DetectionEvidence.step(t, m)
            phase = .awaitingReturn
            return [step(.reset, at: t)]

        case .awaitingReturn:
            guard dwell(isFrontOn(m), at: t, for: configuration.returnDwellSeconds) else { return [] }
            evidence.backToFront = DetectionEvidence.step(t, m)
            phase = .awaitingSecondRotation
            return [step(.leftDown, at: t)]

        case .awaitingSecondRotation:
            let angle = challenge.second.sign * cardType.rotationAngle(of: m)
            evidence.secondRotationPeak = max(evidence.secondRotationPeak ?? angle, DetectionEvidence.rounded(angle, 1))
            guard Self.extendStreak(&rotationStreak, signedAngle: angle, configuration) else { return [] }
            evidence.secondRotation = DetectionEvidence.step(t, m)
            // The flow is done; the card's material decides whether it was a card.
            let report = judge(liveness, final: true)
            if report.endsSession {
                return end(.spoof, at: t, report: report)
            }
            return [step(.complete, at: t)] + end(.success, at: t, report: report)

        case .idle, .ended:
            return []
        }
    }

    /// Extends or breaks the current front-on run; true once it has lasted `seconds`.
    private mutating func dwell(_ holds: Bool, at t: MediaTime, for seconds: Double) -> Bool {
        guard holds else {
            frontSince = nil
            return false
        }
        let since = frontSince ?? t
        frontSince = since
        guard t - since >= MediaTime(seconds: seconds) else { return false }
        frontSince = nil
        return true
    }

    /// Extends or breaks a streak of frames past the rotation threshold
    /// (signed, so the wrong sign and the wrong axis never count); true once
    /// it is `rotationFrames` long.
    private static func extendStreak(_ streak: inout Int, signedAngle: Double,
                                     _ configuration: LivenessConfiguration) -> Bool {
        guard signedAngle >= configuration.rotationDegrees else {
            streak = 0
            return false
        }
        streak += 1
        guard streak >= configuration.rotationFrames else { return false }
        streak = 0
        return true
    }

    private func step(_ status: OperationStatus, at t: MediaTime) -> FlowEvent {
        .operation(status, hint(for: status), at: t)
    }

    /// `final` only when the flow completed: a session that ends otherwise
    /// (lost, exposure, overtime) never showed all its evidence, and what it
    /// did not show must not count against it.
    private func judge(_ liveness: () -> LivenessEvidence?, final: Bool,
                       wrongTurn: LivenessReport.WrongTurn? = nil) -> LivenessReport {
        LivenessReport(evidence: liveness(), thresholds: configuration.livenessThresholds,
                       mode: configuration.liveness, final: final, wrongTurn: wrongTurn)
    }

    /// Every result that ends the session carries the liveness verdict, so
    /// an auditor sees it whatever ended the session (`report` for the one
    /// already judged).
    private mutating func end(_ code: ResultCode, at t: MediaTime, judging liveness: () -> LivenessEvidence?) -> [FlowEvent] {
        end(code, at: t, report: judge(liveness, final: false))
    }

    private mutating func end(_ code: ResultCode, at t: MediaTime, report: LivenessReport) -> [FlowEvent] {
        let decided = interimSpoof ?? report
        stop()
        evidence.liveness = decided
        phase = .ended(code)
        return [.result(code, at: t)]
    }
}

/// Where the flow is (SPEC section 5).
public enum FlowPhase: Sendable, Hashable {
    /// Not started, or stopped by `resetStatus`; measurements are ignored.
    case idle
    /// After BEGIN: waiting for the card to be front-on long enough.
    case awaitingFront
    /// After ORTH: waiting for the first rotation.
    case awaitingFirstRotation
    /// After RESET: waiting for the card to be front-on again.
    case awaitingReturn
    /// After LEFTDOWN: waiting for the second rotation.
    case awaitingSecondRotation
    /// A result that ends the session was given; only `startDetect` leaves this.
    case ended(ResultCode)

    /// Result 1 has been given and the session has not ended.
    var isPastFirst: Bool {
        switch self {
        case .awaitingFirstRotation, .awaitingReturn, .awaitingSecondRotation: true
        default: false
        }
    }

    var isActive: Bool {
        switch self {
        case .idle, .ended: false
        default: true
        }
    }

    /// The step status whose hint VALID repeats.
    var stepStatus: OperationStatus {
        switch self {
        case .idle, .awaitingFront: .begin
        case .awaitingFirstRotation: .orth
        case .awaitingReturn: .reset
        case .awaitingSecondRotation: .leftDown
        case .ended: .complete
        }
    }
}

/// What the state machine decided, before the session dresses it up with
/// localised hints, stills and evidence.
public enum FlowEvent: Sendable, Hashable {
    case operation(OperationStatus, HintKey, at: MediaTime)
    case result(ResultCode, at: MediaTime)
}
