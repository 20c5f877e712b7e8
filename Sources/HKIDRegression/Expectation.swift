import Foundation

/// What a recorded session must produce, stored next to the video as
/// `NAME.expect.json`. The generator writes it from the scenario it rendered;
/// for a real recording a person writes it (see docs/regression.md), with or
/// without ground truth.
public struct Expectation: Codable, Sendable, Equatable {
    /// Card type the session runs with: "2018" or "2003".
    public var cardType: String
    /// Overtime limit in seconds the session runs with.
    public var overtime: Double
    /// The final result code (0 success, 2 exposure, 3 lost, 4 overtime).
    public var retCode: Int
    /// Operation statuses that must occur in this order (others may come between).
    public var statuses: [String]
    /// The exact sequence of alert statuses (FAR, NEAR, OVERSPEED, VALID).
    public var alerts: [String]
    /// What the video shows, in a sentence.
    public var description: String?
    /// Per-frame ground truth, when the video was rendered.
    public var truth: [FrameTruth]?

    public init(cardType: String, overtime: Double, retCode: Int, statuses: [String], alerts: [String],
                description: String? = nil, truth: [FrameTruth]? = nil) {
        self.cardType = cardType
        self.overtime = overtime
        self.retCode = retCode
        self.statuses = statuses
        self.alerts = alerts
        self.description = description
        self.truth = truth
    }

    public static func load(from path: String) throws -> Expectation {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(Expectation.self, from: data)
    }

    /// Stable, diff-friendly JSON: sorted keys, one frame of truth per line.
    public func encoded() throws -> Data {
        var copy = self
        copy.truth = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var text = String(decoding: try encoder.encode(copy), as: UTF8.self)
        if let truth {
            let compact = JSONEncoder()
            compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let lines = try truth.map { String(decoding: try compact.encode($0), as: UTF8.self) }
            text.removeLast()  // the closing brace
            while text.last == "\n" { text.removeLast() }
            text += ",\n  \"truth\" : [\n    " + lines.joined(separator: ",\n    ") + "\n  ]\n}"
        }
        return Data((text + "\n").utf8)
    }

    /// `samples/x.mp4` → `samples/x.expect.json`
    public static func path(forVideo video: String) -> String {
        let url = URL(fileURLWithPath: video)
        return url.deletingPathExtension().path + ".expect.json"
    }
}

/// What one frame shows, exactly as rendered.
public struct FrameTruth: Codable, Sendable, Equatable {
    /// Media time in seconds from the first frame.
    public var t: Double
    public var visible: Bool
    /// TL, TR, BR, BL in pixels; empty when the card is not visible.
    public var corners: [[Double]]
    public var yaw: Double
    public var pitch: Double
    public var roll: Double

    public init(t: Double, visible: Bool, corners: [[Double]], yaw: Double, pitch: Double, roll: Double) {
        self.t = t
        self.visible = visible
        self.corners = corners
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}
