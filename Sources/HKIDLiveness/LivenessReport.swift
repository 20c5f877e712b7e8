/// The liveness decision as a final result carries it (`delta.liveness`, the
/// JSON line's `liveness`): the verdict with every check, and the raw
/// evidence it was judged on, so an integrator can audit the decision and
/// re-judge it with other thresholds.
public struct LivenessReport: Sendable, Hashable, Codable {
    /// `enforce` or `report`.
    public var mode: LivenessMode
    /// `genuine`, `spoof`, `pending` or `unmeasured` (see `LivenessVerdict.verdict`).
    public var verdict: String
    /// 0...1, 0.5 at the decision boundary.
    public var spoofScore: Double
    /// Each check: score, threshold, verdict and the frames it used.
    public var checks: [LivenessCheck]
    /// What the tracker measured; `nil` when no pixels were seen
    /// (measurements fed without frames).
    public var evidence: LivenessEvidence?

    public init(_ verdict: LivenessVerdict, evidence: LivenessEvidence?) {
        mode = verdict.mode
        self.verdict = verdict.verdict
        spoofScore = DetectionEvidence.rounded(verdict.spoofScore, 3)
        checks = verdict.checks.map { check in
            var check = check
            check.score = check.score.map { DetectionEvidence.rounded($0, 3) }
            check.threshold = DetectionEvidence.rounded(check.threshold, 3)
            return check
        }
        // Rounded like the rest of `delta`, so the same video always gives
        // the same bytes whatever the float noise of the last digits.
        self.evidence = evidence.map { e in
            func r(_ v: Double?) -> Double? { v.map { DetectionEvidence.rounded($0, 3) } }
            return LivenessEvidence(frames: e.frames, frontFrames: e.frontFrames, turnedFrames: e.turnedFrames,
                                    opticallyVariableShift: r(e.opticallyVariableShift),
                                    opticallyVariableArea: r(e.opticallyVariableArea),
                                    chroma: r(e.chroma), blackLevel: r(e.blackLevel), finePrint: r(e.finePrint))
        }
    }

    /// Judges `evidence` under `mode` and `thresholds`; `final` as in
    /// `LivenessVerdict`.
    public init(evidence: LivenessEvidence?, thresholds: LivenessThresholds, mode: LivenessMode, final: Bool = true) {
        self.init(LivenessVerdict(evidence: evidence, thresholds: thresholds, mode: mode, final: final),
                  evidence: evidence)
    }

    /// Whether this decision ends the session with result 5.
    public var endsSession: Bool { mode == .enforce && verdict == "spoof" }
}
