import Foundation
import GRDB

/// One row of the session index: what the API reports about a session.
public struct SessionRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "session"

    /// Insertion order; the paging cursor.
    public var seq: Int64?
    public var id: String
    public var status: SessionStatus
    public var cardType: String
    public var language: String
    public var overtimeSeconds: Double
    public var recordMode: RecordMode
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    public var endedAt: Int64?
    public var resultCode: Int?
    public var resultMessage: String?
    /// Why a session that did not end by its result ended, in words ("storage
    /// full: …" when the disk ran out under it).
    public var reason: String?
    public var timestamps: VideoTimestamps
    public var framesReceived: Int
    public var framesAnalysed: Int
    public var framesDropped: Int
    /// Wall-clock seconds from start to end.
    public var wallSeconds: Double?
    public var hasVideo: Bool
    /// The signed bundle is complete on disk; only then is it served.
    public var bundleReady: Bool
    /// `enforce` or `report`, as configured when the session started.
    public var livenessMode: String?
    /// `fixed` or `random`.
    public var challenge: String?
    /// The first rotation asked for (`right`, `left`, `up`, `down`).
    public var firstRotation: String?
    /// The liveness verdict of the result that ended the session
    /// (`genuine`, `spoof`, `pending`, `unmeasured`); nil when no result ended it.
    public var livenessVerdict: String?
    /// Its spoof score, 0...1 (0.5 at the decision boundary).
    public var spoofScore: Double?

    public init(id: String, cardType: String, language: String, overtimeSeconds: Double, recordMode: RecordMode,
                createdAt: Int64) {
        self.id = id
        status = .active
        self.cardType = cardType
        self.language = language
        self.overtimeSeconds = overtimeSeconds
        self.recordMode = recordMode
        self.createdAt = createdAt
        timestamps = VideoTimestamps()
        framesReceived = 0
        framesAnalysed = 0
        framesDropped = 0
        hasVideo = false
        bundleReady = false
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }
}

extension SessionRecord {
    /// The frame counters, copied in this one place wherever a record is
    /// brought up to date with its analysis.
    mutating func copyCounters(_ counters: AnalysisWorker.Counters) {
        framesReceived = counters.received
        framesAnalysed = counters.analysed
        framesDropped = counters.dropped
    }
}

extension SessionStatus: DatabaseValueConvertible {}
extension RecordMode: DatabaseValueConvertible {}
