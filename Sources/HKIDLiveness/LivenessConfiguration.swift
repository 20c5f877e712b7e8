import CCardVision

/// Everything a session can be tuned with. The defaults are SPEC section 5's;
/// times are in seconds of media time unless they say otherwise.
public struct LivenessConfiguration: Sendable, Hashable {
    // MARK: Card and camera

    /// Which card the holder presents; decides the rotation axis (SPEC section 2).
    public var cardType: CardType = .hkid2018
    /// Camera horizontal field of view, used for the pose.
    public var hfovDegrees: Double = 62
    /// Let the tracker refine the focal length from the card's own perspective.
    public var estimatesFocalLength: Bool = true
    /// OpenCV face cascade (Haar or LBP) for the head crop. `nil` uses
    /// opencv-data's LBP frontal-face cascade, then its Haar one when that
    /// finds no face; an empty string disables face detection (layout crop only).
    public var faceCascadePath: String? = nil
    /// Long side of the downscaled search image.
    public var detectLongSide: Int = 640
    /// Width of the rectified card still; its height is width / 1.586.
    public var stillWidth: Int = 856
    public var jpegQuality: Int = 90

    // MARK: Flow

    /// |yaw| and |pitch| below this count as front-on.
    public var frontMaxDegrees: Double = 10
    /// How long the card must stay front-on before result 1.
    public var frontDwellSeconds: Double = 0.3
    /// Signed angle that counts as a rotation, for both rotations.
    public var rotationDegrees: Double = 20
    /// Consecutive analysed frames the rotation must be seen on.
    public var rotationFrames: Int = 2
    /// How long the card must be front-on again after the first rotation.
    public var returnDwellSeconds: Double = 0.2

    // MARK: Alerts

    /// FAR when the card is narrower than this fraction of the frame width.
    public var farWidthRatio: Double = 0.25
    /// NEAR when the card is wider than this fraction of the frame width.
    public var nearWidthRatio: Double = 0.90
    /// NEAR when a corner is within this fraction of the frame border.
    public var borderMarginRatio: Double = 0.01
    /// OVERSPEED above this angular speed (degrees per second).
    public var maxSpeedDegreesPerSecond: Double = 120
    /// The SDK's "轉速檢測" setting: whether OVERSPEED is checked at all.
    public var checksOverspeed: Bool = true
    /// VALID once no alert has held for this long.
    public var validDwellSeconds: Double = 0.2

    // MARK: Exposure, loss, time limit

    /// The SDK's "光亮檢測" setting: whether glare is checked at all (both
    /// for the front-on still and for result 2).
    public var checksGlare: Bool = true
    /// Luma at or above this is saturated.
    public var glareLuma: Int = 250
    /// Result 2 when saturated pixels cover more than this fraction of the card...
    public var glareLimit: Double = 0.25
    /// ...for at least this long.
    public var exposureSeconds: Double = 1.0
    /// After result 1, result 3 when no card has been seen for this long.
    public var lostSeconds: Double = 1.5
    /// The overtime timer's length (`setOverTimes`).
    public var overtimeSeconds: Double = 30

    // MARK: Liveness (docs/liveness.md)

    /// `.enforce`: a session whose card the liveness checks judge a copy, a
    /// print or a screen ends with result 5 `spoof` instead of success.
    /// `.report`: the verdict is only reported (`delta.liveness`).
    public var liveness: LivenessMode = .enforce
    /// Where each liveness check draws its line.
    public var livenessThresholds: LivenessThresholds = .init()
    /// `.fixed` (the SDK's rotations) or `.random` (the first rotation's
    /// direction drawn at every `startDetect`, against replayed recordings).
    public var challenge: Challenge = .fixed
    /// Seeds the `.random` draws so that they are reproducible (tests, a
    /// replay of a logged session). `nil`, the default, draws from the
    /// system's random source: use that for real counters.
    public var challengeSeed: UInt64? = nil
    /// With `.random`: ask for this first rotation at every `startDetect`
    /// instead of drawing it. For replaying a recorded random-challenge
    /// session with the direction it was asked for (its manifest's
    /// `liveness.firstRotation`): a fresh draw could not have been followed
    /// by a video recorded before it. Must be one of
    /// `cardType.rotationDirections` (any other falls back to the SDK's
    /// flow); ignored with `.fixed`. `nil`, the default, draws.
    public var firstRotation: RotationDirection? = nil

    // MARK: Delivery

    /// Language of the hint texts.
    public var language: HintLanguage = .zhHK
    /// Results carry the card (and head) stills as JPEG
    /// (`LivenessResult.images`). A program that keeps no pictures (the
    /// CLI's replay without `--images`) turns it off: taking and encoding
    /// them (the face search with its cascade, the warps, the JPEGs) was a
    /// twentieth of a replay of a short video.
    public var encodesResultStills: Bool = true
    /// Emit a `.frame` event for every analysed frame (the CLI's `--trace`).
    public var emitsFrameTrace: Bool = false
    /// With `emitsFrameTrace`: once a result has ended the session, go on
    /// measuring every frame and emitting its `.frame` event (no more
    /// operations or results), so a trace covers the whole recording. Off by
    /// default: an ended session then costs nothing per frame.
    public var tracesAfterEnd: Bool = false
    /// For live sources: when frames stop arriving for this many wall-clock
    /// seconds, media time is extrapolated from the wall clock so that the
    /// overtime timer still fires. `nil` (the default, right for replay)
    /// disables the watchdog.
    public var watchdogSeconds: Double? = nil

    public init() {}

    /// The defaults for a card type.
    public init(cardType: CardType) {
        self.cardType = cardType
    }
}

/// The two generations of smart HKID (SPEC section 2). They differ in which
/// way the card is turned and where the large portrait sits.
public enum CardType: String, Sendable, Hashable, CaseIterable {
    /// New smart HKID (2018-11): rotate right, then left; portrait on the left.
    case hkid2018 = "2018"
    /// Smart HKID (2003): tilt up, then down; portrait on the right.
    case hkid2003 = "2003"

    /// The angle that the flow's rotations are measured on, signed so that the
    /// first rotation (ORTH) is positive and the second (LEFTDOWN) negative.
    func rotationAngle(of measurement: CardMeasurement) -> Double {
        switch self {
        case .hkid2018: measurement.yaw
        case .hkid2003: measurement.pitch
        }
    }

    var rotationAxisName: String {
        switch self {
        case .hkid2018: "yaw"
        case .hkid2003: "pitch"
        }
    }

    var cValue: hkcv_card_type {
        switch self {
        case .hkid2018: HKCV_CARD_2018
        case .hkid2003: HKCV_CARD_2003
        }
    }
}
