/// Where the flow is (SPEC section 5).
public enum FlowPhase: Sendable, Hashable {
    /// Not started, or stopped by `resetStatus`; measurements are ignored.
    case idle
    /// After BEGIN: waiting for the card to be front-on long enough.
    case awaitingFront
    /// After ORTH: waiting for the first rotation.
    case awaitingFirstRotation
    /// After RESET: waiting for the card to be front-on again.
    case awaitingReturn
    /// After LEFTDOWN: waiting for the second rotation.
    case awaitingSecondRotation
    /// A result that ends the session was given; only `startDetect` leaves this.
    case ended(ResultCode)

    /// Result 1 has been given and the session has not ended.
    var isPastFirst: Bool {
        switch self {
        case .awaitingFirstRotation, .awaitingReturn, .awaitingSecondRotation: true
        default: false
        }
    }

    var isActive: Bool {
        switch self {
        case .idle, .ended: false
        default: true
        }
    }

    /// The step status whose hint VALID repeats.
    var stepStatus: OperationStatus {
        switch self {
        case .idle, .awaitingFront: .begin
        case .awaitingFirstRotation: .orth
        case .awaitingReturn: .reset
        case .awaitingSecondRotation: .leftDown
        case .ended: .complete
        }
    }
}
