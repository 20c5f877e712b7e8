import Foundation

/// What the session saw, as proof of the decision: the result's `delta`.
///
/// The SDK called `delta` "reserved"; we fill it with the evidence an auditor
/// would ask for. Values are rounded (times to the millisecond, angles to
/// 0.1 degree, ratios to 0.001) and keys sorted, so the same input always gives
/// byte-identical JSON.
public struct DetectionEvidence: Sendable, Hashable, Codable {
    /// The pose at the moment a step of the flow was reached.
    public struct Step: Sendable, Hashable, Codable {
        /// Media time since the session's first frame, in seconds.
        public var t: Double
        public var yaw: Double
        public var pitch: Double
    }

    public var cardType: String
    public var framesAnalysed: Int = 0
    /// When result 1 was given.
    public var frontOn: Step?
    /// When the first rotation was confirmed (RESET).
    public var firstRotation: Step?
    /// Largest signed angle in the first rotation's direction while it was awaited.
    public var firstRotationPeak: Double?
    /// When the card was front-on again (LEFTDOWN).
    public var backToFront: Step?
    /// When the second rotation was confirmed (COMPLETE).
    public var secondRotation: Step?
    /// Largest angle in the second rotation's direction (reported positive).
    public var secondRotationPeak: Double?
    /// Largest glare fraction on any tracked frame.
    public var peakGlare: Double = 0
    /// Largest angular speed on any tracked frame, degrees per second.
    public var peakSpeed: Double = 0
    /// Alerts emitted, by status name.
    public var alerts: [String: Int] = [:]

    init(cardType: CardType) {
        self.cardType = cardType.rawValue
    }

    static func step(_ t: MediaTime, _ m: CardMeasurement) -> Step {
        Step(t: rounded(t.seconds, 3), yaw: rounded(m.yaw, 1), pitch: rounded(m.pitch, 1))
    }

    static func rounded(_ value: Double, _ decimals: Int) -> Double {
        guard value.isFinite else { return 0 }
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    /// The compact, key-sorted JSON that goes into `LivenessResult.delta`.
    public func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
