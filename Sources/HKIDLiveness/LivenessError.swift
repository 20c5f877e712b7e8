/// Why a session call failed.
public enum LivenessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `close()` was called; the session accepts nothing any more.
    case closed
    /// The vision shim refused: `status` is a `cv_status` value.
    case vision(operation: String, status: Int32, reason: String)
    /// The frame's plane pointers or strides do not fit its pixel format.
    case invalidFrame(String)

    public var description: String {
        switch self {
        case .closed: "the session is closed"
        case .vision(let operation, let status, let reason): "\(operation) failed: \(reason) (\(status))"
        case .invalidFrame(let why): "invalid frame: \(why)"
        }
    }
}
