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
