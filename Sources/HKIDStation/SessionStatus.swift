/// Where a session stands. Everything but `active` is final.
public enum SessionStatus: String, Codable, Sendable, CaseIterable {
    /// Running now; at most one at a time.
    case active
    /// Ended with result 0 (success).
    case completed
    /// Ended with result 2, 3 or 4 (exposure, lost, overtime).
    case failed
    /// Ended by `POST /v1/sessions/{id}/cancel`.
    case cancelled
    /// Ended by the station itself: shutdown, a crash (found at the next
    /// start), or the camera ending or failing mid-session.
    case interrupted
}
