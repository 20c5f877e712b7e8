import Crypto
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The job store on PostgreSQL: checks, their videos (bytea chunks) and
/// results in one database every hub and worker points at. Workers take
/// checks with `SELECT … FOR UPDATE SKIP LOCKED`, so two never claim the
/// same one, and hear of new ones by LISTEN/NOTIFY.
///
/// `client.run()` must be running (the hub and worker run it in their
/// service group; `PostgresJobStore.run` does so and listens too).
public final class PostgresJobStore: JobStore {
    public let client: PostgresClient
    public let doorbell = Doorbell()
    /// Set once the schema is migrated; the API answers 503 until then.
    private let migrated = Atomic(false)
    /// Set when `run` starts the pool, which must run before the first query.
    private let running = Atomic(false)
    let logger: Logger
    /// How long an API call waits for the database before 503.
    let deadline: Duration
    /// Video chunk size in bytes; a chunk is one bytea row.
    static let chunkSize = 1 << 20

    public init(client: PostgresClient, logger: Logger, deadline: Duration = .seconds(3)) {
        self.client = client
        self.logger = logger
        self.deadline = deadline
    }

    /// Runs the connection pool and, when `listens`, a LISTEN that rings the
    /// doorbell for every queued check, reconnecting with backoff; until cancelled.
    public func run(listens: Bool) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            running.store(true, ordering: .releasing)
            if listens { group.addTask { await self.listen() } }
            await group.next()
            group.cancelAll()
        }
    }

    private func listen() async {
        var delay = Duration.milliseconds(200)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: PostgresSchema.channel) { notifications in
                        delay = .milliseconds(200)
                        // Anything queued while nobody listened is found by the next claim.
                        self.doorbell.ring()
                        for try await _ in notifications { self.doorbell.ring() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listen: connection lost, reconnecting", metadata: ["error": "\(String(reflecting: error))", "in": "\(delay)"])
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    func timed<T: Sendable>(_ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        guard migrated.load(ordering: .acquiring) else {
            throw HubError(.unavailable, "the database schema is not ready yet (\(what))")
        }
        do {
            return try await withDeadline(deadline, doing: what, operation)
        } catch let error as PSQLError where Self.isConnectionFailure(error) {
            throw HubError(.unavailable, "the database cannot be reached (\(what))")
        } catch let error where String(reflecting: type(of: error)).contains("ConnectionPoolError") {
            throw HubError(.unavailable, "the database cannot be reached (\(what))")
        }
    }

    /// One statement on a connection a long transaction holds, under the
    /// deadline; whether it returned a row.
    @discardableResult
    func statement(_ query: PostgresQuery, on connection: PostgresConnection, doing what: String) async throws -> Bool {
        try await timed(what) {
            var any = false
            for try await _ in try await connection.query(query, logger: self.logger) { any = true }
            return any
        }
    }

    /// A transaction whose errors are the closure's own (PostgresNIO wraps them).
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.beginError ?? error.commitError ?? error
        }
    }

    static func isConnectionFailure(_ error: PSQLError) -> Bool {
        switch error.code {
        case .server: return error.serverInfo?[.sqlState]?.hasPrefix("57P") ?? false  // admin shutdown, crash shutdown
        default: return true
        }
    }

    public func migrate() async throws {
        // Asking the pool before it runs only works with a warning.
        while !running.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(20))
        // Longer than a statement's deadline: another hub may hold the lock while it migrates.
        try await withDeadline(.seconds(10), doing: "migrating the schema") {
            try await self.transaction { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))", logger: self.logger)
                for statement in PostgresSchema.statements {
                    try await connection.query(statement, logger: self.logger)
                }
            }
        }
        migrated.store(true, ordering: .releasing)
    }

    static let checkColumns = """
        id, seq, client, idempotency_key, card_type, challenge, first_rotation, state, attempts, max_attempts, reason,
        video_bytes, video_sha256, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms,
        (extract(epoch FROM finished_at) * 1000)::bigint AS finished_ms, result_code, verdict, spoof_score, result
        """

    static func decodeCheck(_ row: PostgresRow) throws -> (Check, Int64) {
        let r = row.makeRandomAccess()
        let check = Check(
            id: try r["id"].decode(String.self), client: try r["client"].decode(String.self),
            idempotencyKey: try r["idempotency_key"].decode(String.self), cardType: try r["card_type"].decode(String.self),
            challenge: try r["challenge"].decode(String.self), firstRotation: try r["first_rotation"].decode(String?.self),
            state: CheckState(rawValue: try r["state"].decode(String.self)) ?? .failed,
            attempts: Int(try r["attempts"].decode(Int32.self)), maxAttempts: Int(try r["max_attempts"].decode(Int32.self)),
            reason: try r["reason"].decode(String?.self), videoBytes: try r["video_bytes"].decode(Int64.self),
            videoSha256: try r["video_sha256"].decode(String.self), createdAt: try r["created_ms"].decode(Int64.self),
            finishedAt: try r["finished_ms"].decode(Int64?.self),
            resultCode: try r["result_code"].decode(Int32?.self).map(Int.init), verdict: try r["verdict"].decode(String?.self),
            spoofScore: try r["spoof_score"].decode(Double?.self), result: try r["result"].decode(String?.self))
        return (check, try r["seq"].decode(Int64.self))
    }

    private func find(client: String, key: String) async throws -> Check? {
        let rows = try await self.client.query(
            "SELECT \(unescaped: Self.checkColumns) FROM hub_checks WHERE client = \(client) AND idempotency_key = \(key)",
            logger: logger)
        for try await row in rows { return try Self.decodeCheck(row).0 }
        return nil
    }

    public func create<Body: AsyncSequence>(_ request: CheckRequest, body: Body, limit: Int64,
                                            maxAttempts: Int) async throws -> (check: Check, created: Bool)
        where Body.Element == ByteBuffer {
        if let existing = try await timed("looking up the idempotency key", {
            try await self.find(client: request.client, key: request.idempotencyKey)
        }) {
            return (existing, false)
        }
        let id = UUID().uuidString.lowercased()
        // The upload runs as long as the client sends; each statement in it
        // has the deadline of its own.
        let created: Bool = try await transaction { connection in
            let inserted = try await self.statement("""
                INSERT INTO hub_checks (id, client, idempotency_key, card_type, challenge, first_rotation, max_attempts, webhook_url)
                VALUES (\(id), \(request.client), \(request.idempotencyKey), \(request.cardType), \(request.challenge),
                        \(request.firstRotation), \(Int32(maxAttempts)), \(request.webhookURL))
                ON CONFLICT (client, idempotency_key) DO NOTHING RETURNING id
                """, on: connection, doing: "storing a check")
            // Another upload with the same key committed while this one waited.
            guard inserted else { return false }
            var total: Int64 = 0
            var hasher = SHA256()
            var pending = ByteBuffer()
            var chunk: Int32 = 0
            func flush() async throws {
                guard pending.readableBytes > 0 else { return }
                try await self.statement("INSERT INTO hub_video_chunks (check_id, seq, data) VALUES (\(id), \(chunk), \(pending))",
                                         on: connection, doing: "storing a video chunk")
                chunk += 1
                pending.clear()
            }
            for try await part in body {
                total += Int64(part.readableBytes)
                if total > limit { throw HubError(.tooLarge, "the video is larger than the limit of \(limit) bytes") }
                part.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                var part = part
                pending.writeBuffer(&part)
                if pending.readableBytes >= Self.chunkSize { try await flush() }
            }
            try await flush()
            guard total > 0 else { throw HubError(.badRequest, "the request body is empty: send the video as the body") }
            let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
            try await self.statement("UPDATE hub_checks SET video_bytes = \(total), video_sha256 = \(digest) WHERE id = \(id)",
                                     on: connection, doing: "storing a check")
            try await self.statement("SELECT pg_notify(\(PostgresSchema.channel), \(id))", on: connection, doing: "queueing a check")
            return true
        }
        guard let check = try await timed("reading the stored check", {
            try await self.find(client: request.client, key: request.idempotencyKey)
        }) else {
            throw HubError(.storage, "the check for key \(request.idempotencyKey) vanished after it was stored")
        }
        return (check, created)
    }

    public func check(id: String, client: String?) async throws -> Check? {
        try await timed("reading a check") {
            let rows = try await self.client.query(
                "SELECT \(unescaped: Self.checkColumns) FROM hub_checks WHERE id = \(id) AND (\(client)::text IS NULL OR client = \(client))",
                logger: self.logger)
            for try await row in rows { return try Self.decodeCheck(row).0 }
            return nil
        }
    }

    public func list(client: String?, after cursor: Int64?, limit: Int) async throws -> (checks: [Check], next: Int64?) {
        try await timed("listing checks") {
            let rows = try await self.client.query("""
                SELECT \(unescaped: Self.checkColumns) FROM hub_checks
                WHERE (\(client)::text IS NULL OR client = \(client)) AND seq > \(cursor ?? 0)
                ORDER BY seq LIMIT \(Int64(limit + 1))
                """, logger: self.logger)
            var checks: [(Check, Int64)] = []
            for try await row in rows { checks.append(try Self.decodeCheck(row)) }
            let more = checks.count > limit
            let page = Array(checks.prefix(limit))
            return (page.map(\.0), more ? page.last?.1 : nil)
        }
    }

    public func events(id: String) async throws -> Data? {
        try await bundleParts(id: id)?.files[HubBundle.events]
    }

    public func bundleParts(id: String) async throws -> BundleParts? {
        try await timed("reading a bundle") {
            let heads = try await self.client.query(
                "SELECT manifest, signature FROM hub_checks WHERE id = \(id) AND state = 'done'", logger: self.logger)
            var parts: BundleParts?
            for try await (manifest, signature) in heads.decode((Data?, String?).self) {
                guard let manifest, let signature else { return nil }
                parts = BundleParts(manifest: manifest, signature: signature, files: [:])
            }
            guard var parts else { return nil }
            let files = try await self.client.query("SELECT name, data FROM hub_check_files WHERE check_id = \(id)",
                                                    logger: self.logger)
            for try await (name, data) in files.decode((String, Data).self) { parts.files[name] = data }
            return parts
        }
    }

    public func copyVideo(id: String, to path: String) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw HubError(.storage, "\(path): cannot be created for the video of check \(id)")
        }
        defer { try? handle.close() }
        // One chunk at a time, so a long video is never held whole.
        var next: Int32 = 0
        while let chunk = try await videoChunk(id: id, seq: next) {
            try handle.write(contentsOf: chunk.readableBytesView)
            next += 1
        }
    }

    private func videoChunk(id: String, seq: Int32) async throws -> ByteBuffer? {
        try await timed("reading a video chunk") {
            let rows = try await self.client.query(
                "SELECT data FROM hub_video_chunks WHERE check_id = \(id) AND seq = \(seq)", logger: self.logger)
            var chunk: ByteBuffer?
            for try await data in rows.decode(ByteBuffer.self) { chunk = data }
            return chunk
        }
    }

    public func claim(worker: String, lease: Duration, backoff: RetryBackoff) async throws -> ClaimedCheck? {
        try await timed("claiming a check") {
            try await self.transaction { connection in
                // A check whose worker vanished on its last attempt will never finish: fail it.
                try await connection.query("""
                    UPDATE hub_checks SET state = 'failed', lease_until = NULL, finished_at = now(),
                        reason = 'the worker stopped answering on each of ' || attempts || ' attempts (lease expired)'
                    WHERE state = 'running' AND lease_until < now() AND attempts >= max_attempts
                    """, logger: self.logger)
                let rows = try await connection.query("""
                    UPDATE hub_checks SET state = 'running', attempts = attempts + 1, worker = \(worker),
                        started_at = now(), lease_until = now() + make_interval(secs => \(lease.seconds))
                    WHERE id = (
                        SELECT id FROM hub_checks
                        WHERE (state = 'queued' AND run_after <= now())
                           OR (state = 'running' AND lease_until + make_interval(secs =>
                                   least(\(backoff.baseSeconds) * power(2, greatest(attempts - 1, 0)), \(backoff.capSeconds))) < now())
                        ORDER BY seq
                        FOR UPDATE SKIP LOCKED
                        LIMIT 1)
                    RETURNING id, card_type, challenge, first_rotation, attempts, max_attempts, video_sha256
                    """, logger: self.logger)
                var claimed: ClaimedCheck?
                for try await (id, card, challenge, first, attempt, maximum, sha)
                    in rows.decode((String, String, String, String?, Int32, Int32, String).self) {
                    claimed = ClaimedCheck(id: id, cardType: card, challenge: challenge, firstRotation: first, attempt: Int(attempt),
                                           maxAttempts: Int(maximum), worker: worker, videoSha256: sha)
                }
                if let claimed {
                    try await connection.query("""
                        INSERT INTO hub_runs (check_id, attempt, worker) VALUES (\(claimed.id), \(Int32(claimed.attempt)), \(worker))
                        """, logger: self.logger)
                }
                return claimed
            }
        }
    }

    public func heartbeat(_ claim: ClaimedCheck, lease: Duration) async throws -> Bool {
        try await timed("extending a lease") {
            let rows = try await self.client.query("""
                UPDATE hub_checks SET lease_until = now() + make_interval(secs => \(lease.seconds))
                WHERE id = \(claim.id) AND state = 'running' AND worker = \(claim.worker) AND attempts = \(Int32(claim.attempt))
                RETURNING id
                """, logger: self.logger)
            for try await _ in rows { return true }
            return false
        }
    }

    public func complete(_ claim: ClaimedCheck, outcome: CheckOutcome) async throws -> Bool {
        try await timed("writing a result") {
            try await self.transaction { connection in
                let rows = try await connection.query("""
                    UPDATE hub_checks SET state = 'done', lease_until = NULL, finished_at = now(), reason = NULL,
                        result_code = \(outcome.resultCode.map(Int32.init)), verdict = \(outcome.verdict),
                        spoof_score = \(outcome.spoofScore), result = \(outcome.result),
                        manifest = \(outcome.manifest), signature = \(outcome.signature)
                    WHERE id = \(claim.id) AND state = 'running' AND worker = \(claim.worker) AND attempts = \(Int32(claim.attempt))
                    RETURNING id
                    """, logger: self.logger)
                var held = false
                for try await _ in rows { held = true }
                guard held else { return false }
                for (name, data) in outcome.files.sorted(by: { $0.key < $1.key }) {
                    try await connection.query("""
                        INSERT INTO hub_check_files (check_id, name, data) VALUES (\(claim.id), \(name), \(data))
                        ON CONFLICT (check_id, name) DO UPDATE SET data = EXCLUDED.data
                        """, logger: self.logger)
                }
                try await connection.query("""
                    UPDATE hub_runs SET ended_at = now(), outcome = 'done'
                    WHERE check_id = \(claim.id) AND attempt = \(Int32(claim.attempt))
                    """, logger: self.logger)
                return true
            }
        }
    }

    public func fail(_ claim: ClaimedCheck, reason: String, retryable: Bool, backoff: RetryBackoff) async throws -> CheckState? {
        try await timed("recording a failure") {
            try await self.transaction { connection in
                let final = !retryable || claim.attempt >= claim.maxAttempts
                let state: CheckState = final ? .failed : .queued
                let delay = backoff.delay(afterAttempt: claim.attempt).seconds
                let rows = try await connection.query("""
                    UPDATE hub_checks SET state = \(state.rawValue), lease_until = NULL, reason = \(reason),
                        run_after = now() + make_interval(secs => \(delay)),
                        finished_at = CASE WHEN \(final) THEN now() END
                    WHERE id = \(claim.id) AND state = 'running' AND worker = \(claim.worker) AND attempts = \(Int32(claim.attempt))
                    RETURNING id
                    """, logger: self.logger)
                var held = false
                for try await _ in rows { held = true }
                guard held else { return nil }
                try await connection.query("""
                    UPDATE hub_runs SET ended_at = now(), outcome = \("failed: " + reason)
                    WHERE check_id = \(claim.id) AND attempt = \(Int32(claim.attempt))
                    """, logger: self.logger)
                return state
            }
        }
    }

    public func statistics(buckets: [Double]) async throws -> QueueStatistics {
        try await timed("reading statistics") {
            var counts: [CheckState: Int] = [:]
            let rows = try await self.client.query("SELECT state, count(*) FROM hub_checks GROUP BY state", logger: self.logger)
            for try await (state, count) in rows.decode((String, Int64).self) {
                if let state = CheckState(rawValue: state) { counts[state] = Int(count) }
            }
            var oldest = 0.0
            let age = try await self.client.query(
                "SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::double precision FROM hub_checks WHERE state = 'queued'",
                logger: self.logger)
            for try await value in age.decode(Double.self) { oldest = value }
            let query = QueueStatistics.durationQuery(
                duration: "extract(epoch FROM finished_at - started_at)::double precision", buckets: buckets)
            var histogram: [(le: Double, count: Int)] = []
            var sum = 0.0, total = 0
            for try await row in try await self.client.query(PostgresQuery(unsafeSQL: query), logger: self.logger) {
                let cells = row.makeRandomAccess()
                total = Int(try cells[0].decode(Int64.self))
                sum = try cells[1].decode(Double.self)
                histogram = try buckets.indices.map { (buckets[$0], Int(try cells[2 + $0].decode(Int64.self))) }
            }
            return QueueStatistics(counts: counts, oldestQueuedSeconds: oldest, checkSecondsBuckets: histogram,
                                   checkSecondsSum: sum, checkSecondsCount: total)
        }
    }
}
