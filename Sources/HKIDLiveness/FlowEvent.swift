/// What the state machine decided, before the session dresses it up with
/// localised hints, stills and evidence.
public enum FlowEvent: Sendable, Hashable {
    case operation(OperationStatus, HintKey, at: MediaTime)
    case result(ResultCode, at: MediaTime)
}
