/// The SDK's `retCode` values (SPEC section 4).
public enum ResultCode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case success = 0
    case first = 1
    case exposure = 2
    case lost = 3
    case overtime = 4

    /// The SDK's `message` for this code.
    public var message: String {
        switch self {
        case .success: ""
        case .first: "first"
        case .exposure: "exposure"
        case .lost: "lost"
        case .overtime: "overtime"
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
        case .exposure, .lost: []
        }
    }

    public var description: String { "\(rawValue)" + (message.isEmpty ? "" : " \(message)") }
}
