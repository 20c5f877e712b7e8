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
