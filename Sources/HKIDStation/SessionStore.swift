import Foundation
import GRDB

/// The session index in SQLite. WAL mode (a `DatabasePool`: the API's reads
/// never wait for the session's writes, nor the writes for a slow reader)
/// with synchronous=FULL: a row written before a crash is there after it,
/// which is what recovery needs.
public final class SessionStore: Sendable {
    private let database: DatabasePool

    public init(path: String) throws(StationError) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            // The database holds personal data too.
            chmod(path, 0o600)
            try Self.migrator.migrate(database)
        } catch {
            throw StationError(.storage, "\(path): cannot open the session index (\(error))")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: SessionRecord.databaseTableName) { t in
                t.autoIncrementedPrimaryKey("seq")
                t.column("id", .text).notNull().unique()
                t.column("status", .text).notNull().indexed()
                t.column("cardType", .text).notNull()
                t.column("language", .text).notNull()
                t.column("overtimeSeconds", .double).notNull()
                t.column("recordMode", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("endedAt", .integer)
                t.column("resultCode", .integer)
                t.column("resultMessage", .text)
                t.column("reason", .text)
                t.column("timestamps", .text).notNull()
                t.column("framesReceived", .integer).notNull()
                t.column("framesAnalysed", .integer).notNull()
                t.column("framesDropped", .integer).notNull()
                t.column("wallSeconds", .double)
                t.column("hasVideo", .boolean).notNull()
                t.column("bundleReady", .boolean).notNull()
            }
        }
        // Issue 13: the liveness decision and the challenge asked for.
        migrator.registerMigration("v2-liveness") { db in
            try db.alter(table: SessionRecord.databaseTableName) { t in
                t.add(column: "livenessMode", .text)
                t.add(column: "challenge", .text)
                t.add(column: "firstRotation", .text)
                t.add(column: "livenessVerdict", .text)
                t.add(column: "spoofScore", .double)
            }
        }
        return migrator
    }

    public func insert(_ record: SessionRecord) throws -> SessionRecord {
        try database.write { db in
            var record = record
            try record.insert(db)
            return record
        }
    }

    public func update(_ record: SessionRecord) throws {
        try database.write { db in try record.update(db) }
    }

    public func find(_ id: SessionID) throws -> SessionRecord? {
        try database.read { db in
            try SessionRecord.filter(Column("id") == id.rawValue).fetchOne(db)
        }
    }

    /// Newest first. `after` is the `seq` of the last row of the previous page.
    public func list(status: SessionStatus?, limit: Int, after cursor: Int64?) throws -> [SessionRecord] {
        try database.read { db in
            var request = SessionRecord.all()
            if let status { request = request.filter(Column("status") == status.rawValue) }
            if let cursor { request = request.filter(Column("seq") < cursor) }
            return try request.order(Column("seq").desc).limit(limit).fetchAll(db)
        }
    }

    public func sessions(withStatus status: SessionStatus) throws -> [SessionRecord] {
        try database.read { db in
            try SessionRecord.filter(Column("status") == status.rawValue).fetchAll(db)
        }
    }

    /// Every session whose bundle is not sealed yet, whatever its status:
    /// after a crash these are the ones recovery must finish.
    public func unsealedSessions() throws -> [SessionRecord] {
        try database.read { db in
            try SessionRecord.filter(Column("bundleReady") == false).order(Column("seq")).fetchAll(db)
        }
    }

    /// SQLite's journal mode, as the database reports it ("wal").
    public func journalMode() throws -> String {
        try database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    public func countByStatus() throws -> [SessionStatus: Int] {
        try database.read { db in
            var counts: [SessionStatus: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM session GROUP BY status") {
                if let status = SessionStatus(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }
}
