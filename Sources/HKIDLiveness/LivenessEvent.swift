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
