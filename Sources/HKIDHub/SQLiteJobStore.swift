import Crypto
import Foundation
import GRDB
import NIOCore

/// The job store of `hkid-hub --embedded`: the same tables and rules as
/// `PostgresJobStore` in one SQLite file, for one machine with in-process
/// workers. SQLite has one writer at a time, so a claim (one write
/// transaction) can never be taken twice; the doorbell is rung in-process.
public final class SQLiteJobStore: JobStore {
    public let doorbell = Doorbell()
    let database: DatabaseQueue
    let folder: String
    static let chunkSize = 1 << 20

    public init(folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            database = try DatabaseQueue(path: (folder as NSString).appendingPathComponent("hub.sqlite"),
                                         configuration: configuration)
        } catch {
            throw HubError(.configuration, "\(folder): cannot open the embedded database (\(error))")
        }
        self.folder = folder
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    public func migrate() async throws {
        try await database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS hub_checks (
                    id TEXT PRIMARY KEY, seq INTEGER UNIQUE NOT NULL, client TEXT NOT NULL, idempotency_key TEXT NOT NULL,
                    card_type TEXT NOT NULL, challenge TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'queued',
                    attempts INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL, run_after INTEGER NOT NULL,
                    lease_until INTEGER, worker TEXT, reason TEXT, video_bytes INTEGER NOT NULL, video_sha256 TEXT NOT NULL,
                    created_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER, result_code INTEGER, verdict TEXT,
                    spoof_score REAL, result TEXT, manifest BLOB, signature TEXT,
                    UNIQUE (client, idempotency_key));
                CREATE TABLE IF NOT EXISTS hub_video_chunks (
                    check_id TEXT NOT NULL REFERENCES hub_checks (id) ON DELETE CASCADE, seq INTEGER NOT NULL,
                    data BLOB NOT NULL, PRIMARY KEY (check_id, seq));
                CREATE TABLE IF NOT EXISTS hub_check_files (
                    check_id TEXT NOT NULL REFERENCES hub_checks (id) ON DELETE CASCADE, name TEXT NOT NULL,
                    data BLOB NOT NULL, PRIMARY KEY (check_id, name));
                CREATE TABLE IF NOT EXISTS hub_runs (
                    check_id TEXT NOT NULL, attempt INTEGER NOT NULL, worker TEXT NOT NULL, started_at INTEGER NOT NULL,
                    ended_at INTEGER, outcome TEXT, PRIMARY KEY (check_id, attempt));
                """)
            if try !db.columns(in: "hub_checks").contains(where: { $0.name == "first_rotation" }) {
                try db.execute(sql: "ALTER TABLE hub_checks ADD COLUMN first_rotation TEXT")
            }
            try Self.migrateWebhooks(db)
        }
    }

    static let checkColumns = """
        id, seq, client, idempotency_key, card_type, challenge, first_rotation, state, attempts, max_attempts, reason, video_bytes,
        video_sha256, created_at, finished_at, result_code, verdict, spoof_score, result
        """

    static func decodeCheck(_ row: Row) -> (Check, Int64) {
        (Check(id: row["id"], client: row["client"], idempotencyKey: row["idempotency_key"], cardType: row["card_type"],
               challenge: row["challenge"], firstRotation: row["first_rotation"], state: CheckState(rawValue: row["state"]) ?? .failed, attempts: row["attempts"],
               maxAttempts: row["max_attempts"], reason: row["reason"], videoBytes: row["video_bytes"],
               videoSha256: row["video_sha256"], createdAt: row["created_at"], finishedAt: row["finished_at"],
               resultCode: row["result_code"], verdict: row["verdict"], spoofScore: row["spoof_score"], result: row["result"]),
         row["seq"])
    }

    private func find(client: String, key: String) async throws -> Check? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.checkColumns) FROM hub_checks WHERE client = ? AND idempotency_key = ?",
                             arguments: [client, key]).map { Self.decodeCheck($0).0 }
        }
    }

    public func create<Body: AsyncSequence>(_ request: CheckRequest, body: Body, limit: Int64,
                                            maxAttempts: Int) async throws -> (check: Check, created: Bool)
        where Body.Element == ByteBuffer {
        if let existing = try await find(client: request.client, key: request.idempotencyKey) { return (existing, false) }
        // The body goes to a file first (SQLite cannot hold a write open
        // across the upload's waits); the check and its chunks are then
        // written in one transaction.
        let spool = (folder as NSString).appendingPathComponent(".upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: spool) }
        guard FileManager.default.createFile(atPath: spool, contents: nil), let handle = FileHandle(forWritingAtPath: spool) else {
            throw HubError(.storage, "\(spool): cannot be created for an upload")
        }
        var total: Int64 = 0
        var hasher = SHA256()
        do {
            defer { try? handle.close() }
            for try await part in body {
                total += Int64(part.readableBytes)
                if total > limit { throw HubError(.tooLarge, "the video is larger than the limit of \(limit) bytes") }
                part.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try handle.write(contentsOf: part.readableBytesView)
            }
        }
        guard total > 0 else { throw HubError(.badRequest, "the request body is empty: send the video as the body") }
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let id = UUID().uuidString.lowercased()
        let size = total
        let created = try await database.write { db -> Bool in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM hub_checks WHERE client = ? AND idempotency_key = ?",
                                arguments: [request.client, request.idempotencyKey]) != nil { return false }
            let now = Self.now()
            let seq = (try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) + 1 FROM hub_checks")) ?? 1
            try db.execute(sql: """
                INSERT INTO hub_checks (id, seq, client, idempotency_key, card_type, challenge, first_rotation, max_attempts,
                    run_after, video_bytes, video_sha256, created_at, webhook_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, seq, request.client, request.idempotencyKey, request.cardType, request.challenge,
                                 request.firstRotation, maxAttempts, now, size, digest, now, request.webhookURL])
            guard let reader = FileHandle(forReadingAtPath: spool) else { throw HubError(.storage, "\(spool): vanished") }
            defer { try? reader.close() }
            var chunk = 0
            while let data = try reader.read(upToCount: Self.chunkSize), !data.isEmpty {
                try db.execute(sql: "INSERT INTO hub_video_chunks (check_id, seq, data) VALUES (?, ?, ?)",
                               arguments: [id, chunk, data])
                chunk += 1
            }
            return true
        }
        if created { doorbell.ring() }
        guard let check = try await find(client: request.client, key: request.idempotencyKey) else {
            throw HubError(.storage, "the check for key \(request.idempotencyKey) vanished after it was stored")
        }
        return (check, created)
    }

    public func check(id: String, client: String?) async throws -> Check? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.checkColumns) FROM hub_checks WHERE id = ? AND (? IS NULL OR client = ?)",
                             arguments: [id, client, client]).map { Self.decodeCheck($0).0 }
        }
    }

    public func list(client: String?, after cursor: Int64?, limit: Int) async throws -> (checks: [Check], next: Int64?) {
        try await database.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(Self.checkColumns) FROM hub_checks WHERE (? IS NULL OR client = ?) AND seq > ? ORDER BY seq LIMIT ?
                """, arguments: [client, client, cursor ?? 0, limit + 1]).map(Self.decodeCheck)
            let page = Array(rows.prefix(limit))
            return (page.map(\.0), rows.count > limit ? page.last?.1 : nil)
        }
    }

    public func events(id: String) async throws -> Data? {
        try await bundleParts(id: id)?.files[HubBundle.events]
    }

    public func bundleParts(id: String) async throws -> BundleParts? {
        try await database.read { db in
            guard let head = try Row.fetchOne(db, sql: "SELECT manifest, signature FROM hub_checks WHERE id = ? AND state = 'done'",
                                              arguments: [id]),
                  let manifest: Data = head["manifest"], let signature: String = head["signature"] else { return nil }
            var parts = BundleParts(manifest: manifest, signature: signature, files: [:])
            for row in try Row.fetchAll(db, sql: "SELECT name, data FROM hub_check_files WHERE check_id = ?", arguments: [id]) {
                parts.files[row["name"]] = row["data"]
            }
            return parts
        }
    }

    public func copyVideo(id: String, to path: String) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw HubError(.storage, "\(path): cannot be created for the video of check \(id)")
        }
        defer { try? handle.close() }
        var next = 0
        while true {
            let seq = next
            guard let data = try await database.read({ db in
                try Data.fetchOne(db, sql: "SELECT data FROM hub_video_chunks WHERE check_id = ? AND seq = ?", arguments: [id, seq])
            }) else { return }
            try handle.write(contentsOf: data)
            next += 1
        }
    }

    public func claim(worker: String, lease: Duration, backoff: RetryBackoff) async throws -> ClaimedCheck? {
        try await database.write { db in
            let now = Self.now()
            try db.execute(sql: """
                UPDATE hub_checks SET state = 'failed', lease_until = NULL, finished_at = ?,
                    reason = 'the worker stopped answering on each of ' || attempts || ' attempts (lease expired)'
                WHERE state = 'running' AND lease_until < ? AND attempts >= max_attempts
                """, arguments: [now, now])
            let candidates = try Row.fetchAll(db, sql: """
                SELECT id, attempts, lease_until FROM hub_checks
                WHERE (state = 'queued' AND run_after <= ?) OR (state = 'running' AND lease_until < ?) ORDER BY seq
                """, arguments: [now, now])
            // The running ones are due only a backoff after their lease expired.
            guard let chosen = candidates.first(where: { row in
                guard let until: Int64 = row["lease_until"] else { return true }
                let delay = backoff.delay(afterAttempt: row["attempts"]).seconds
                return Double(until) + delay * 1000 < Double(now)
            }) else { return nil }
            let id: String = chosen["id"]
            guard let row = try Row.fetchOne(db, sql: """
                UPDATE hub_checks SET state = 'running', attempts = attempts + 1, worker = ?, started_at = ?, lease_until = ?
                WHERE id = ? RETURNING id, card_type, challenge, first_rotation, attempts, max_attempts, video_sha256
                """, arguments: [worker, now, now + Int64(lease.seconds * 1000), id]) else { return nil }
            let claim = ClaimedCheck(id: row["id"], cardType: row["card_type"], challenge: row["challenge"],
                                     firstRotation: row["first_rotation"],
                                     attempt: row["attempts"], maxAttempts: row["max_attempts"], worker: worker,
                                     videoSha256: row["video_sha256"])
            try db.execute(sql: "INSERT INTO hub_runs (check_id, attempt, worker, started_at) VALUES (?, ?, ?, ?)",
                           arguments: [claim.id, claim.attempt, worker, now])
            return claim
        }
    }

    private static let holds = "id = ? AND state = 'running' AND worker = ? AND attempts = ?"

    public func heartbeat(_ claim: ClaimedCheck, lease: Duration) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "UPDATE hub_checks SET lease_until = ? WHERE \(Self.holds)",
                           arguments: [Self.now() + Int64(lease.seconds * 1000), claim.id, claim.worker, claim.attempt])
            return db.changesCount == 1
        }
    }

    public func complete(_ claim: ClaimedCheck, outcome: CheckOutcome) async throws -> Bool {
        try await database.write { db in
            let now = Self.now()
            try db.execute(sql: """
                UPDATE hub_checks SET state = 'done', lease_until = NULL, finished_at = ?, reason = NULL, result_code = ?,
                    verdict = ?, spoof_score = ?, result = ?, manifest = ?, signature = ? WHERE \(Self.holds)
                """, arguments: [now, outcome.resultCode, outcome.verdict, outcome.spoofScore, outcome.result, outcome.manifest,
                                 outcome.signature, claim.id, claim.worker, claim.attempt])
            guard db.changesCount == 1 else { return false }
            for (name, data) in outcome.files {
                try db.execute(sql: "INSERT OR REPLACE INTO hub_check_files (check_id, name, data) VALUES (?, ?, ?)",
                               arguments: [claim.id, name, data])
            }
            try db.execute(sql: "UPDATE hub_runs SET ended_at = ?, outcome = 'done' WHERE check_id = ? AND attempt = ?",
                           arguments: [now, claim.id, claim.attempt])
            return true
        }
    }

    public func fail(_ claim: ClaimedCheck, reason: String, retryable: Bool, backoff: RetryBackoff) async throws -> CheckState? {
        let state: CheckState = !retryable || claim.attempt >= claim.maxAttempts ? .failed : .queued
        let delay = Int64(backoff.delay(afterAttempt: claim.attempt).seconds * 1000)
        let result = try await database.write { db -> CheckState? in
            let now = Self.now()
            try db.execute(sql: """
                UPDATE hub_checks SET state = ?, lease_until = NULL, reason = ?, run_after = ?, finished_at = ? WHERE \(Self.holds)
                """, arguments: [state.rawValue, reason, now + delay, state == .failed ? now : nil,
                                 claim.id, claim.worker, claim.attempt])
            guard db.changesCount == 1 else { return nil }
            try db.execute(sql: "UPDATE hub_runs SET ended_at = ?, outcome = ? WHERE check_id = ? AND attempt = ?",
                           arguments: [now, "failed: " + reason, claim.id, claim.attempt])
            return state
        }
        if result == .queued {
            // No NOTIFY in-process: ring once the backoff has passed.
            let doorbell = self.doorbell
            Task { try? await Task.sleep(for: .milliseconds(delay)); doorbell.ring() }
        }
        return result
    }

    public func statistics(buckets: [Double]) async throws -> QueueStatistics {
        try await database.read { db in
            var counts: [CheckState: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM hub_checks GROUP BY state") {
                if let state = CheckState(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            let oldest = try Int64.fetchOne(db, sql: "SELECT min(created_at) FROM hub_checks WHERE state = 'queued'")
            let query = QueueStatistics.durationQuery(duration: "(finished_at - started_at) / 1000.0", buckets: buckets)
            let row = try Row.fetchOne(db, sql: query)
            let perBucket: [Int] = buckets.indices.map { row?[2 + $0] ?? 0 }
            return QueueStatistics(counts: counts, oldestQueuedSeconds: oldest.map { Double(Self.now() - $0) / 1000 } ?? 0,
                                   checkSecondsBuckets: Array(zip(buckets, perBucket)).map { (le: $0.0, count: $0.1) },
                                   checkSecondsSum: row?[1] ?? 0, checkSecondsCount: row?[0] ?? 0)
        }
    }
}
