/// One check's decision, as an integrator audits it in `delta.liveness`.
public struct LivenessCheck: Sendable, Hashable, Codable {
    public enum Verdict: String, Sendable, Hashable, Codable {
        case pass, fail
        /// Interim: not measured yet, or not judged before the flow completes.
        case pending
        /// Final: never measured on video, which fails (`screenGrid` excepted: a card too small to show
        /// a screen's grid is no evidence of a screen).
        case unmeasured
    }

    /// `opticallyVariable`, `blackLevel`, `chroma`, `screenGrid`, and `challenge` when a
    /// random challenge was answered the other way.
    public var name: String
    /// The measured score; `nil` when it could not be measured.
    public var score: Double?
    public var threshold: Double
    public var verdict: Verdict
    /// The tracked frames the score was computed from.
    public var frames: Int
}

/// The liveness decision of a session as a final result carries it
/// (`delta.liveness`, the JSON line's `liveness`): the verdict with every
/// check, and the raw evidence it was judged on, so an integrator can audit
/// the decision and re-judge it with other thresholds.
public struct LivenessReport: Sendable, Hashable, Codable {
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// Every check passed.
        case genuine
        /// A check failed, or, in a final verdict, one could not be measured on video.
        case spoof
        /// An interim verdict: nothing failed, something is not judged yet.
        case pending
        /// No pixels were seen (measurements fed without frames), which no check can judge.
        case unmeasured
    }

    /// A random challenge's first turn made the other way (past the rotation
    /// threshold on enough frames): a failed `challenge` check.
    public struct WrongTurn: Sendable, Hashable {
        public var degrees: Double
        public var threshold: Double
        public var frames: Int
    }

    public var mode: LivenessMode
    public var verdict: Verdict
    /// How strongly the evidence says "attack", 0...1; 0.5 is the decision
    /// boundary (every check at its threshold). For ROC curves.
    public var spoofScore: Double
    public var checks: [LivenessCheck]
    /// What the tracker measured; `nil` when no pixels were seen.
    public var evidence: LivenessEvidence?

    /// Whether this decision ends the session with retCode 5.
    public var endsSession: Bool { mode == .enforce && verdict == .spoof }

    /// Judges `evidence` (nil: no pixels were seen) against `thresholds`.
    ///
    /// A `final` verdict (the flow completed) fails a check that could not be
    /// measured on video: a card that never showed the evidence does not
    /// pass. An interim one judges only the checks that need no rotation,
    /// and only from `thresholds.minimumFrames` tracked frames on. A
    /// `wrongTurn` is one more check, judged like the others.
    ///
    /// Values are rounded like the rest of `delta`, so the same video always
    /// gives the same bytes whatever the float noise of the last digits.
    public init(evidence: LivenessEvidence?, thresholds: LivenessThresholds, mode: LivenessMode,
                final: Bool = true, wrongTurn: WrongTurn? = nil) {
        self.mode = mode
        self.evidence = evidence.map(Self.rounded)
        var checks: [LivenessCheck] = []
        // Each score becomes an "attack ratio" r: r > 1 fails. The verdict
        // takes the judged checks' ratios; the spoof score the largest ratio
        // of every measured score (judged or still pending), r / (1 + r), so
        // a session that ended early is still ranked by what it showed.
        var judged: [Double] = [], measured: [Double] = []
        var pending = false
        func check(_ name: String, _ score: Double?, _ threshold: Double, higherIsGenuine: Bool, frames: Int,
                   judgedNow: Bool, failsUnmeasured: Bool = true) {
            let ratio = score.map { higherIsGenuine ? threshold / max($0, 1e-6) : $0 / max(threshold, 1e-6) }
            if let ratio { measured.append(ratio) }
            let verdict: LivenessCheck.Verdict
            if let ratio, judgedNow {
                judged.append(ratio)
                verdict = ratio > 1 ? .fail : .pass
            } else if final {
                if failsUnmeasured {
                    judged.append(2)  // what cannot be measured on video fails closed
                    measured.append(2)
                }
                verdict = .unmeasured
            } else {
                pending = true
                verdict = .pending
            }
            checks.append(LivenessCheck(name: name, score: score.map { DetectionEvidence.rounded($0, 3) },
                                        threshold: DetectionEvidence.rounded(threshold, 3), verdict: verdict,
                                        frames: frames))
        }
        let pixels = evidence.flatMap { $0.frames > 0 ? $0 : nil }
        guard pixels != nil || wrongTurn != nil else {
            verdict = .unmeasured
            spoofScore = 0.5
            self.checks = []
            return
        }
        if let pixels {
            // Interim: the colour moving with the pose waits for the flow's
            // rotations; the rest waits for enough frames to outvote a moment.
            // Black level and colour are read only on the frames that show the
            // material (the whole card in view, neither far nor near, no glare).
            let enoughFrames = final || pixels.materialFrames >= thresholds.minimumFrames
            check("opticallyVariable", pixels.opticallyVariableShift, thresholds.opticallyVariableShift,
                  higherIsGenuine: true, frames: pixels.frontFrames + pixels.turnedFrames, judgedNow: final)
            check("blackLevel", pixels.blackLevel, thresholds.blackLevel, higherIsGenuine: false,
                  frames: pixels.materialFrames, judgedNow: enoughFrames)
            check("chroma", pixels.chroma, thresholds.chroma, higherIsGenuine: true, frames: pixels.materialFrames,
                  judgedNow: enoughFrames)
            // The screen's grid is read on some tracked frames, cut by the frame or not; a card too small
            // for it (far, or a small frame) is no evidence of a screen, so unmeasured it does not fail.
            check("screenGrid", pixels.screenGrid, thresholds.screenGrid, higherIsGenuine: false,
                  frames: pixels.gridFrames,
                  judgedNow: final || pixels.gridFrames >= thresholds.minimumGridFrames, failsUnmeasured: false)
        }
        if let wrongTurn {
            check("challenge", wrongTurn.degrees, wrongTurn.threshold, higherIsGenuine: false,
                  frames: wrongTurn.frames, judgedNow: true)
        }
        self.checks = checks
        verdict = (judged.max() ?? 0) > 1 ? .spoof : pending ? .pending : .genuine
        let worst = measured.max() ?? 0
        spoofScore = DetectionEvidence.rounded(worst / (1 + worst), 3)
    }

    private static func rounded(_ e: LivenessEvidence) -> LivenessEvidence {
        func r(_ v: Double?) -> Double? { v.map { DetectionEvidence.rounded($0, 3) } }
        return LivenessEvidence(frames: e.frames, frontFrames: e.frontFrames, turnedFrames: e.turnedFrames,
                                opticallyVariableShift: r(e.opticallyVariableShift),
                                opticallyVariableArea: r(e.opticallyVariableArea),
                                chroma: r(e.chroma), blackLevel: r(e.blackLevel), finePrint: r(e.finePrint),
                                materialFrames: e.materialFrames, screenGrid: r(e.screenGrid),
                                gridFrames: e.gridFrames)
    }
}
