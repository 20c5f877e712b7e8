import Foundation

/// A finished check's webhook that a sender has claimed: where to POST and
/// the fencing pair (sender, attempt) its outcome must present.
public struct WebhookDelivery: Sendable, Equatable {
    public var checkId: String
    public var url: String
    /// This attempt's number, from 1.
    public var attempt: Int
    public var sender: String
}

/// A check's webhook as `GET /v1/checks/{id}` shows it.
public struct WebhookStatus: Sendable, Equatable {
    /// waiting (the check has not ended), pending (to be sent or retried),
    /// delivered (a 2xx came back), failed (every attempt was refused).
    public var state: String
    public var url: String
    public var attempts: Int
    /// The HTTP status of the last attempt, nil when none answered.
    public var lastStatus: Int?
    /// Why the last attempt did not count (no answer, or a non-2xx status).
    public var lastError: String?
    /// Milliseconds since the Unix epoch.
    public var deliveredAt: Int64?

    var json: [String: Any] {
        var object: [String: Any] = ["state": state, "url": url, "attempts": attempts]
        if let lastStatus { object["lastStatus"] = lastStatus }
        if let lastError { object["lastError"] = lastError }
        if let deliveredAt { object["deliveredAt"] = deliveredAt }
        return object
    }
}

/// How a delivery attempt ended, as the sender records it.
public struct WebhookAttemptOutcome: Sendable {
    public var status: Int?
    public var error: String?
    /// Nil once delivered or given up; otherwise when to try again.
    public var retryAfter: Duration?
    public var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
}
