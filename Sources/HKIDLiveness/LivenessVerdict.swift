import CCardVision

/// What the tracked frames said about the card's material (the shim's
/// `hkcv_liveness`): the raw scores the liveness checks judge. `nil` scores
/// were not measurable (too few frames, or no frame at all).
public struct LivenessEvidence: Sendable, Hashable, Codable {
    /// Tracked frames measured.
    public var frames: Int
    /// Frames front-on (|yaw| and |pitch| < 6°).
    public var frontFrames: Int
    /// Frames turned at least 15° on either axis.
    public var turnedFrames: Int
    /// Largest pose-dependent colour change of a card area (levels at a white of 200).
    public var opticallyVariableShift: Double?
    /// Fraction of the card whose colour moves with the pose.
    public var opticallyVariableArea: Double?
    /// 99th-percentile colour saturation of the card (levels).
    public var chroma: Double?
    /// The card's darkest print over its white (2nd over 98th percentile luma).
    public var blackLevel: Double?
    /// Fine-print contrast on front-on frames.
    public var finePrint: Double?

    public init(frames: Int = 0, frontFrames: Int = 0, turnedFrames: Int = 0,
                opticallyVariableShift: Double? = nil, opticallyVariableArea: Double? = nil,
                chroma: Double? = nil, blackLevel: Double? = nil, finePrint: Double? = nil) {
        self.frames = frames
        self.frontFrames = frontFrames
        self.turnedFrames = turnedFrames
        self.opticallyVariableShift = opticallyVariableShift
        self.opticallyVariableArea = opticallyVariableArea
        self.chroma = chroma
        self.blackLevel = blackLevel
        self.finePrint = finePrint
    }

    init(_ l: hkcv_liveness) {
        func measured(_ v: Float) -> Double? { v < 0 ? nil : Double(v) }
        let bins = withUnsafeBytes(of: l.pose_frames) { Array($0.bindMemory(to: Int32.self)) }
        self.init(frames: Int(l.frames),
                  frontFrames: Int(bins[Int(HKCV_POSE_FRONT.rawValue)]),
                  turnedFrames: bins.dropFirst().reduce(0) { $0 + Int($1) },
                  opticallyVariableShift: measured(l.ovi_shift),
                  opticallyVariableArea: measured(l.ovi_area),
                  chroma: measured(l.chroma),
                  blackLevel: measured(l.black_level),
                  finePrint: measured(l.fine_print))
    }
}

/// Whether the liveness checks may end a session (retCode 5) or only report.
public enum LivenessMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// A failed check ends the session with retCode 5 `spoof` instead of success.
    case enforce
    /// The verdict is in every final result's `delta.liveness`, never ends a session.
    case report
}

/// The thresholds of the liveness checks (docs/liveness.md says why each is
/// where it is).
public struct LivenessThresholds: Sendable, Hashable, Codable {
    /// A genuine card has optically variable print: some area's colour moves
    /// at least this much (levels at a white of 200) between poses.
    public var opticallyVariableShift: Double = 6
    /// A card whose darkest print is lifted above this fraction of its white
    /// is a screen (or a print) re-filmed.
    public var blackLevel: Double = 0.22
    /// A card with less colour saturation than this is a grey copy.
    public var chroma: Double = 6
    /// Tracked frames before the checks that need no rotation (black level,
    /// colour) may end a session early: one second at 30 fps, so a moment
    /// of a finger or a reflection over the card is outvoted.
    public var minimumFrames: Int = 30

    public init() {}
}

/// One check's decision, as an integrator audits it in `delta.liveness`.
public struct LivenessCheck: Sendable, Hashable, Codable {
    /// `opticallyVariable`, `blackLevel`, `chroma`.
    public var name: String
    /// The measured score; `nil` when it could not be measured.
    public var score: Double?
    public var threshold: Double
    /// `"pass"`, `"fail"`, `"pending"` (interim: not measured yet), or
    /// `"unmeasured"` (final: never measured, which fails).
    public var verdict: String
    /// The tracked frames the score was computed from.
    public var frames: Int
}

/// The liveness decision of a session: every check, and the one verdict.
public struct LivenessVerdict: Sendable, Hashable, Codable {
    public var mode: LivenessMode
    /// `"genuine"` (every check passed), `"spoof"` (a check failed, or, in a
    /// final verdict, one could not be measured on video), `"pending"` (an
    /// interim verdict: nothing failed, something is not measured yet), or
    /// `"unmeasured"` (no pixels were seen: measurements fed without frames,
    /// which no check can judge).
    public var verdict: String
    /// How strongly the evidence says "attack", 0...1; 0.5 is the decision
    /// boundary (every check at its threshold). For ROC curves.
    public var spoofScore: Double
    public var checks: [LivenessCheck]

    /// Whether this verdict ends the session with retCode 5.
    public var endsSession: Bool { mode == .enforce && verdict == "spoof" }

    /// Judges `evidence` (nil: no pixels were seen) against `thresholds`.
    ///
    /// A `final` verdict (the flow completed, or the session ended) fails a
    /// check that could not be measured on video: a card that never showed
    /// the evidence does not pass. An interim one (the session goes on)
    /// judges only the checks that need no rotation, and only from
    /// `thresholds.minimumFrames` tracked frames on.
    public init(evidence: LivenessEvidence?, thresholds: LivenessThresholds, mode: LivenessMode, final: Bool = true) {
        self.mode = mode
        guard let evidence, evidence.frames > 0 else {
            verdict = "unmeasured"
            spoofScore = 0.5
            checks = []
            return
        }
        // Each check's score becomes an "attack ratio" r: r > 1 fails. The
        // verdict takes the judged checks' ratios; the spoof score, the
        // largest ratio of every measured score (judged or still pending)
        // squashed into 0...1, so a session that ended early is still ranked
        // by what it showed.
        var ratios: [Double] = []
        var measuredRatios: [Double] = []
        var pending = false
        // Interim: the colour moving with the pose waits for the flow's
        // rotations; the rest waits for enough frames to outvote a moment.
        func judgedNow(_ name: String) -> Bool {
            final || (name != "opticallyVariable" && evidence.frames >= thresholds.minimumFrames)
        }
        func check(_ name: String, _ measured: Double?, _ threshold: Double, higherIsGenuine: Bool,
                   frames: Int) -> LivenessCheck {
            func ratio(_ score: Double) -> Double {
                higherIsGenuine ? threshold / max(score, 1e-6) : score / max(threshold, 1e-6)
            }
            guard let score = measured, judgedNow(name) else {
                if let measured { measuredRatios.append(ratio(measured)) }
                if final {
                    ratios.append(2)  // what cannot be measured on video fails closed
                    measuredRatios.append(2)
                } else {
                    pending = true
                }
                return LivenessCheck(name: name, score: measured.map { ($0 * 1000).rounded() / 1000 },
                                     threshold: threshold, verdict: final ? "unmeasured" : "pending", frames: frames)
            }
            let r = ratio(score)
            ratios.append(r)
            measuredRatios.append(r)
            return LivenessCheck(name: name, score: (score * 1000).rounded() / 1000, threshold: threshold,
                                 verdict: r > 1 ? "fail" : "pass", frames: frames)
        }
        checks = [
            check("opticallyVariable", evidence.opticallyVariableShift, thresholds.opticallyVariableShift,
                  higherIsGenuine: true, frames: evidence.frontFrames + evidence.turnedFrames),
            check("blackLevel", evidence.blackLevel, thresholds.blackLevel, higherIsGenuine: false,
                  frames: evidence.frames),
            check("chroma", evidence.chroma, thresholds.chroma, higherIsGenuine: true, frames: evidence.frames),
        ]
        verdict = (ratios.max() ?? 0) > 1 ? "spoof" : pending ? "pending" : "genuine"
        let worst = measuredRatios.max() ?? 0
        // r / (1 + r): 0.5 at the threshold, monotonic, so AUC is unaffected.
        spoofScore = ((worst / (1 + worst)) * 1000).rounded() / 1000
    }
}
