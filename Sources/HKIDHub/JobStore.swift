import Foundation
import NIOCore

/// Where checks, their videos and their results live, and how workers take
/// turns on them. Two implementations share every caller: `PostgresJobStore`
/// (many hubs and workers on many machines) and `SQLiteJobStore` (the
/// embedded hub: one process, no server).
///
/// Every write a worker makes after its claim presents the `ClaimedCheck`
/// (worker name and attempt number): a worker whose lease was taken over
/// writes nothing, so a check has exactly one result.
public protocol JobStore: WebhookQueue {
    /// Creates or upgrades the schema; safe to run from many processes at once.
    func migrate() async throws

    /// Stores the video streamed in `body` and queues a check, all or
    /// nothing. An earlier check with the same client and idempotency key is
    /// returned instead (`created` false) and the body is not read. A body
    /// over `limit` bytes throws `HubError(.tooLarge)` and leaves nothing.
    func create<Body: AsyncSequence>(_ request: CheckRequest, body: Body, limit: Int64,
                                     maxAttempts: Int) async throws -> (check: Check, created: Bool)
        where Body.Element == ByteBuffer

    /// The check with this id; when `client` is given, only if it is theirs.
    func check(id: String, client: String?) async throws -> Check?

    /// Checks in upload order after the cursor (exclusive), at most `limit`,
    /// and the cursor of the last one when more may follow.
    func list(client: String?, after cursor: Int64?, limit: Int) async throws -> (checks: [Check], next: Int64?)

    /// `events.jsonl` of a done check.
    func events(id: String) async throws -> Data?

    /// The signed parts of a done check's bundle (manifest, signature, the
    /// files besides the video).
    func bundleParts(id: String) async throws -> BundleParts?

    /// Writes the stored video of a check to `path`.
    func copyVideo(id: String, to path: String) async throws

    /// Takes the oldest runnable check: queued and due, or running with a
    /// lease that expired at least a backoff ago. A check whose lease expired
    /// on its last attempt is failed instead.
    func claim(worker: String, lease: Duration, backoff: RetryBackoff) async throws -> ClaimedCheck?

    /// Extends the lease; false when it was lost (taken over or finished).
    func heartbeat(_ claim: ClaimedCheck, lease: Duration) async throws -> Bool

    /// Writes the result, events and signed bundle parts, and marks the check
    /// done, in one transaction; false (nothing written) when the lease was lost.
    func complete(_ claim: ClaimedCheck, outcome: CheckOutcome) async throws -> Bool

    /// Records a failed attempt: queued again after the backoff when
    /// `retryable` and attempts remain, otherwise failed with `reason`. Nil
    /// when the lease was lost.
    func fail(_ claim: ClaimedCheck, reason: String, retryable: Bool, backoff: RetryBackoff) async throws -> CheckState?

    /// Counts by state, the oldest queued check's age, check-time histogram.
    func statistics(buckets: [Double]) async throws -> QueueStatistics

    /// Rung when a check is queued (NOTIFY, or in-process for SQLite).
    var doorbell: Doorbell { get }
}

/// The signed parts of a bundle as stored; the zip is assembled on request.
public struct BundleParts: Sendable {
    public var manifest: Data
    public var signature: String
    public var files: [String: Data]
}

/// Delay before attempt n+1: `base * 2^(n-1)`, at most `cap`.
public struct RetryBackoff: Sendable {
    public var base: Duration
    public var cap: Duration

    public init(base: Duration = .seconds(2), cap: Duration = .seconds(300)) {
        self.base = base
        self.cap = cap
    }

    public func delay(afterAttempt attempt: Int) -> Duration {
        let factor = 1 << min(max(attempt - 1, 0), 20)
        return min(base * factor, cap)
    }

    var baseSeconds: Double { base.seconds }
    var capSeconds: Double { cap.seconds }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
