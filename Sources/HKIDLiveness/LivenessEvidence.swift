import CCardVision

/// What the tracked frames said about the card's material (the shim's
/// `hkcv_liveness`): the raw scores the liveness checks judge. `nil` scores
/// were not measurable (too few frames, or no frame at all).
public struct LivenessEvidence: Sendable, Hashable, Codable {
    /// Tracked frames measured.
    public var frames: Int
    /// Of those, the frames that show the card's material and feed `chroma`
    /// and `blackLevel`: the whole card in view, neither FAR nor NEAR, no
    /// glare over the exposure limit.
    public var materialFrames: Int
    /// Frames front-on (|yaw| and |pitch| < 6°).
    public var frontFrames: Int
    /// Frames turned at least 15° on either axis.
    public var turnedFrames: Int
    /// Largest pose-dependent colour change of a card area (levels at a white of 200).
    public var opticallyVariableShift: Double?
    /// Fraction of the card whose colour moves with the pose.
    public var opticallyVariableArea: Double?
    /// 99th-percentile colour saturation of the card (levels), on frames without glare.
    public var chroma: Double?
    /// How far the card's darkest print (1st percentile luma) lies above the darkest level in view,
    /// over the way from there to its white (98th percentile), on frames without glare.
    public var blackLevel: Double?
    /// Fine-print contrast on front-on frames.
    public var finePrint: Double?
    /// A screen's pixel grid: the strongest isolated peak of the spectrum of the card's middle over the
    /// spectrum around it (a ratio of powers), median over `gridFrames`.
    public var screenGrid: Double?
    /// Tracked frames the screen grid was measured on (one in three for the first 30, then one in twelve; the
    /// card's middle large enough and in view).
    public var gridFrames: Int

    public init(frames: Int = 0, frontFrames: Int = 0, turnedFrames: Int = 0,
                opticallyVariableShift: Double? = nil, opticallyVariableArea: Double? = nil,
                chroma: Double? = nil, blackLevel: Double? = nil, finePrint: Double? = nil,
                materialFrames: Int? = nil, screenGrid: Double? = nil, gridFrames: Int = 0) {
        self.frames = frames
        self.materialFrames = materialFrames ?? frames
        self.frontFrames = frontFrames
        self.turnedFrames = turnedFrames
        self.opticallyVariableShift = opticallyVariableShift
        self.opticallyVariableArea = opticallyVariableArea
        self.chroma = chroma
        self.blackLevel = blackLevel
        self.finePrint = finePrint
        self.screenGrid = screenGrid
        self.gridFrames = gridFrames
    }

    /// The same evidence with a black level under `floor` left unmeasured: what may end a session
    /// before the card first stands front-on (ORTH), where a near card out of focus, or a box printed on
    /// a card the frame cuts, reads a lifted black, and only a black lifted well beyond the threshold is
    /// taken as a screen's.
    func withBlackLevel(atLeast floor: Double) -> LivenessEvidence {
        var early = self
        if let black = blackLevel, black < floor { early.blackLevel = nil }
        return early
    }

    private enum CodingKeys: String, CodingKey {
        case frames, materialFrames, frontFrames, turnedFrames, opticallyVariableShift, opticallyVariableArea
        case chroma, blackLevel, finePrint, screenGrid, gridFrames
    }

    /// Evidence recorded before `materialFrames` existed reads it as `frames`; before `screenGrid`, as unmeasured.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(frames: try c.decode(Int.self, forKey: .frames),
                  frontFrames: try c.decode(Int.self, forKey: .frontFrames),
                  turnedFrames: try c.decode(Int.self, forKey: .turnedFrames),
                  opticallyVariableShift: try c.decodeIfPresent(Double.self, forKey: .opticallyVariableShift),
                  opticallyVariableArea: try c.decodeIfPresent(Double.self, forKey: .opticallyVariableArea),
                  chroma: try c.decodeIfPresent(Double.self, forKey: .chroma),
                  blackLevel: try c.decodeIfPresent(Double.self, forKey: .blackLevel),
                  finePrint: try c.decodeIfPresent(Double.self, forKey: .finePrint),
                  materialFrames: try c.decodeIfPresent(Int.self, forKey: .materialFrames),
                  screenGrid: try c.decodeIfPresent(Double.self, forKey: .screenGrid),
                  gridFrames: try c.decodeIfPresent(Int.self, forKey: .gridFrames) ?? 0)
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
                  finePrint: measured(l.fine_print),
                  materialFrames: Int(l.material_frames),
                  screenGrid: measured(l.screen_grid), gridFrames: Int(l.grid_frames))
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
    public var opticallyVariableShift: Double = 10
    /// A card whose darkest print is lifted above the darkest level in view
    /// by more than this share of the way to its white is a screen (or a
    /// print) re-filmed.
    public var blackLevel: Double = 0.14
    /// A card with less colour saturation than this is a grey copy.
    public var chroma: Double = 6
    /// A card whose middle shows a spectral peak this many times above the spectrum around it (median over
    /// the measured frames) is a screen re-filmed: its pixel grid left as moire.
    public var screenGrid: Double = 20
    /// Tracked frames before the checks that need no rotation (black level,
    /// colour) may end a session early, counted over the frames that show
    /// the card's material (`LivenessEvidence.materialFrames`): one second
    /// at 30 fps, so a moment of a finger or a reflection over the card is
    /// outvoted.
    public var minimumFrames: Int = 30
    /// Measurements of the screen grid before it may end a session early:
    /// it is read on one tracked frame in three at first, so 10 are a
    /// second at 30 fps, as `minimumFrames` is for the other checks.
    public var minimumGridFrames: Int = 10

    public init() {}

    /// Before ORTH the black level may end a session early only at this multiple of `blackLevel`: genuine
    /// cards first held near read 0.21-0.25 there (a soft card, or a box printed on a card the frame cuts,
    /// followed as the card), screens with something darker in view 0.3-0.6.
    public static let blackLevelFactorBeforeOrth = 2.0
}
