import Foundation

/// Everything a session reports, in the order it happened.
public enum LivenessEvent: Sendable, Hashable {
    case operation(OperationCommand)
    case result(LivenessResult)
    /// Only when `LivenessConfiguration.emitsFrameTrace` is on.
    case frame(FrameTrace)

    /// Media time since the session's first frame.
    public var t: MediaTime {
        switch self {
        case .operation(let command): command.t
        case .result(let result): result.t
        case .frame(let trace): trace.t
        }
    }
}

/// An instruction for the card holder: the SDK's `DSLHKIDCardNextOperation`.
public struct OperationCommand: Sendable, Hashable {
    public var currentStatus: OperationStatus
    /// Which hint text goes with the status (see docs/session.md for the table).
    public var hintKey: HintKey
    /// The hint, localised to the session's language.
    public var nextOperationHint: String
    /// Media time since the session's first frame.
    public var t: MediaTime

    public init(currentStatus: OperationStatus, hintKey: HintKey, nextOperationHint: String, t: MediaTime) {
        self.currentStatus = currentStatus
        self.hintKey = hintKey
        self.nextOperationHint = nextOperationHint
        self.t = t
    }
}

/// What the card holder should do now, with the SDK's numbering
/// (`DSLHKIDCardOperationStatus`, SPEC section 3).
///
/// FAR, NEAR, OVERSPEED and VALID are alerts layered over the flow; the other
/// five are the flow's steps.
public enum OperationStatus: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case begin = 0
    case orth = 1
    case leftDown = 2
    case complete = 3
    case reset = 4
    case far = 5
    case near = 6
    case overspeed = 7
    case valid = 8

    /// The SDK constant's suffix, as the JSON event stream spells it.
    public var name: String {
        switch self {
        case .begin: "BEGIN"
        case .orth: "ORTH"
        case .leftDown: "LEFTDOWN"
        case .complete: "COMPLETE"
        case .reset: "RESET"
        case .far: "FAR"
        case .near: "NEAR"
        case .overspeed: "OVERSPEED"
        case .valid: "VALID"
        }
    }

    /// FAR, NEAR and OVERSPEED: the flow pauses while one holds.
    public var isAlert: Bool {
        self == .far || self == .near || self == .overspeed
    }

    public var description: String { name }
}

/// A detection result: the SDK's `DSLHKIDCardResult`.
public struct LivenessResult: Sendable, Hashable {
    public var code: ResultCode
    /// Media time since the session's first frame.
    public var t: MediaTime
    /// JSON with the detection evidence (see `DetectionEvidence`).
    public var delta: String
    /// Stills in SDK order: card first, head last (SPEC section 4).
    public var images: [ResultImage]
    /// The liveness decision, on every result that ends the session (also
    /// in `delta`); `nil` on result 1.
    public var liveness: LivenessReport?

    public init(code: ResultCode, t: MediaTime, delta: String, images: [ResultImage],
                liveness: LivenessReport? = nil) {
        self.code = code
        self.t = t
        self.delta = delta
        self.images = images
        self.liveness = liveness
    }

    public var success: Bool { code == .success }
    public var retCode: Int { code.rawValue }
    public var message: String { code.message }
    /// The SDK's flat image list.
    public var imageDataArray: [Data] { images.map(\.data) }
}

/// The SDK's `retCode` values (SPEC section 4).
public enum ResultCode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case success = 0
    case first = 1
    case exposure = 2
    case lost = 3
    case overtime = 4
    /// Our extension (SPEC section 4): the liveness checks judged the card a
    /// copy, a print or a screen replay. Given instead of COMPLETE and
    /// success, only with `LivenessMode.enforce`; the evidence is in
    /// `delta.liveness`.
    case spoof = 5

    /// The SDK's `message` for this code.
    public var message: String {
        switch self {
        case .success: ""
        case .first: "first"
        case .exposure: "exposure"
        case .lost: "lost"
        case .overtime: "overtime"
        case .spoof: "spoof"
        }
    }

    /// Every code but "first" ends the session until `startDetect` is called again.
    public var endsSession: Bool { self != .first }

    /// Which stills the result carries, in `imageDataArray` order. For
    /// overtime the still is included only when one has been kept.
    public var stillKinds: [StillKind] {
        switch self {
        case .success: [.card, .head]
        case .first, .overtime: [.card]
        case .exposure, .lost, .spoof: []
        }
    }

    public var description: String { "\(rawValue)" + (message.isEmpty ? "" : " \(message)") }
}

/// One JPEG still attached to a result.
public struct ResultImage: Sendable, Hashable {
    public var kind: StillKind
    /// JPEG bytes, as `hkcv_still_encode` produced them.
    public var data: Data

    public init(kind: StillKind, data: Data) {
        self.kind = kind
        self.data = data
    }
}

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
    /// The rotations this attempt asked for (`fixed`, or the `random` draw).
    public var challenge: RotationChallenge?
    /// On every result that ends the session: the liveness verdict, each
    /// check and the raw evidence.
    public var liveness: LivenessReport?

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
