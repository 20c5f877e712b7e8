import CCardVision

/// What one frame shows about the card: the Swift face of `hkcv_measurement`.
///
/// This is the only input the state machine needs, so a recorded trace of
/// measurements replays a session without video. Angles in degrees
/// (SPEC section 1), ratios in 0...1.
public struct CardMeasurement: Sendable, Hashable {
    public var found: Bool
    public var confidence: Double
    /// Top-left, top-right, bottom-right, bottom-left of the card face; empty when not found.
    public var corners: [CardPoint]
    public var yaw: Double
    public var pitch: Double
    public var roll: Double
    /// Angular speed in degrees per second.
    public var speed: Double
    /// Card width (mean of top and bottom edge) over frame width.
    public var widthRatio: Double
    /// A corner lies within the border margin of the frame edge.
    public var touchesBorder: Bool
    /// Fraction of the card with saturated luma.
    public var glare: Double
    /// Largest connected saturated area, as a fraction of the card.
    public var glareBlob: Double
    public var sharpness: Double

    public init(
        found: Bool = true,
        confidence: Double = 1,
        corners: [CardPoint] = [],
        yaw: Double = 0,
        pitch: Double = 0,
        roll: Double = 0,
        speed: Double = 0,
        widthRatio: Double = 0.5,
        touchesBorder: Bool = false,
        glare: Double = 0,
        glareBlob: Double = 0,
        sharpness: Double = 1
    ) {
        self.found = found
        self.confidence = confidence
        self.corners = corners
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
        self.speed = speed
        self.widthRatio = widthRatio
        self.touchesBorder = touchesBorder
        self.glare = glare
        self.glareBlob = glareBlob
        self.sharpness = sharpness
    }

    /// A frame in which no card was tracked.
    public static let notFound = CardMeasurement(
        found: false, confidence: 0, widthRatio: 0, sharpness: 0)

    init(_ m: hkcv_measurement) {
        guard m.found != 0 else {
            self = .notFound
            return
        }
        let c = m.corners
        self.init(
            found: true,
            confidence: Double(m.confidence),
            corners: [
                CardPoint(x: Double(c.0), y: Double(c.1)),
                CardPoint(x: Double(c.2), y: Double(c.3)),
                CardPoint(x: Double(c.4), y: Double(c.5)),
                CardPoint(x: Double(c.6), y: Double(c.7)),
            ],
            yaw: Double(m.yaw),
            pitch: Double(m.pitch),
            roll: Double(m.roll),
            speed: Double(m.speed_dps),
            widthRatio: Double(m.width_ratio),
            touchesBorder: m.touches_border != 0,
            glare: Double(m.glare),
            glareBlob: Double(m.glare_blob),
            sharpness: Double(m.sharpness))
    }
}

/// A point in full-resolution frame pixels (x right, y down).
public struct CardPoint: Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
