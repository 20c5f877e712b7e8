import Foundation

/// One check as the API shows it (`GET /v1/checks/{id}` and the list).
public struct Check: Sendable, Codable, Equatable {
    public var id: String
    /// The client (bearer token owner) that uploaded it.
    public var client: String
    public var idempotencyKey: String
    /// "2018" or "2003".
    public var cardType: String
    /// "fixed" or "random".
    public var challenge: String
    /// For a random challenge: the direction the holder was asked to turn
    /// first (right, left, up, down), which the replay asks for.
    public var firstRotation: String?
    public var state: CheckState
    /// Claims so far; a check fails for good after `maxAttempts`.
    public var attempts: Int
    public var maxAttempts: Int
    /// Why it failed (or why the last attempt did, while it is retried).
    public var reason: String?
    public var videoBytes: Int64
    public var videoSha256: String
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    public var finishedAt: Int64?
    /// The final result code (SPEC section 4), nil when no result ended the session.
    public var resultCode: Int?
    /// The liveness verdict of that result: genuine, spoof, pending, unmeasured.
    public var verdict: String?
    public var spoofScore: Double?
    /// The final result's JSON line (SPEC section 6), when done.
    public var result: String?

    public init(id: String, client: String, idempotencyKey: String, cardType: String, challenge: String,
                firstRotation: String? = nil, state: CheckState, attempts: Int, maxAttempts: Int, reason: String?, videoBytes: Int64,
                videoSha256: String, createdAt: Int64, finishedAt: Int64?, resultCode: Int?, verdict: String?,
                spoofScore: Double?, result: String?) {
        self.id = id
        self.client = client
        self.idempotencyKey = idempotencyKey
        self.cardType = cardType
        self.challenge = challenge
        self.firstRotation = firstRotation
        self.state = state
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.reason = reason
        self.videoBytes = videoBytes
        self.videoSha256 = videoSha256
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.resultCode = resultCode
        self.verdict = verdict
        self.spoofScore = spoofScore
        self.result = result
    }
}

/// What an upload asks for, before it has an id.
public struct CheckRequest: Sendable, Equatable {
    public var client: String
    public var idempotencyKey: String
    public var cardType: String
    public var challenge: String
    /// The first rotation a random challenge asked for (`firstRotation`).
    public var firstRotation: String?
    /// Where to POST the signed outcome when the check ends (`Webhook-URL`).
    public var webhookURL: String?

    public init(client: String, idempotencyKey: String, cardType: String, challenge: String, firstRotation: String? = nil,
                webhookURL: String? = nil) {
        self.client = client
        self.idempotencyKey = idempotencyKey
        self.cardType = cardType
        self.challenge = challenge
        self.firstRotation = firstRotation
        self.webhookURL = webhookURL
    }
}

/// A check a worker has claimed: what it needs to run it, and the fencing
/// pair (worker, attempt) every later write must present.
public struct ClaimedCheck: Sendable, Equatable {
    public var id: String
    public var cardType: String
    public var challenge: String
    public var firstRotation: String?
    public var attempt: Int
    public var maxAttempts: Int
    public var worker: String
    public var videoSha256: String
}

/// What a worker writes for a finished check, in one transaction: the
/// result, the event stream and the signed parts of the bundle.
public struct CheckOutcome: Sendable {
    public var resultCode: Int?
    public var verdict: String?
    public var spoofScore: Double?
    /// The final result's JSON line.
    public var result: String?
    /// `events.jsonl`: the JSON lines the CLI prints, end line included.
    public var events: Data
    /// Files of the bundle besides the video, by their bundle name (events.jsonl, card.jpg, head.jpg).
    public var files: [String: Data]
    /// The canonical manifest bytes, exactly as signed, and the base64 signature.
    public var manifest: Data
    public var signature: String

    public init(resultCode: Int?, verdict: String?, spoofScore: Double?, result: String?, events: Data,
                files: [String: Data], manifest: Data, signature: String) {
        self.resultCode = resultCode
        self.verdict = verdict
        self.spoofScore = spoofScore
        self.result = result
        self.events = events
        self.files = files
        self.manifest = manifest
        self.signature = signature
    }
}

/// How many checks are in each state, the age of the oldest queued one,
/// and how long done checks took.
public struct QueueStatistics: Sendable {
    public var counts: [CheckState: Int]
    public var oldestQueuedSeconds: Double
    /// Durations (claim to finish, seconds) of done checks, for the histogram: bucket upper bound → count at or below.
    public var checkSecondsBuckets: [(le: Double, count: Int)]
    public var checkSecondsSum: Double
    public var checkSecondsCount: Int

    /// The query that sums done checks' durations in the database, one row:
    /// their count, their sum, then the count at or below each bound.
    /// `duration` is the store's SQL for a check's seconds from claim to
    /// result. A scrape then reads one row however many checks are done.
    static func durationQuery(duration: String, buckets: [Double]) -> String {
        // No buckets (a caller that wants only the counts) is no trailing comma.
        let columns = ["count(*)", "coalesce(sum(d), 0)"]
            + buckets.map { "coalesce(sum(CASE WHEN d <= \($0) THEN 1 ELSE 0 END), 0)" }
        return """
            SELECT \(columns.joined(separator: ", "))
            FROM (SELECT \(duration) AS d FROM hub_checks WHERE state = 'done' AND started_at IS NOT NULL) AS done
            """
    }
}
