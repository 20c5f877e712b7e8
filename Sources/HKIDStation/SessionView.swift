import Foundation

/// A session as the API shows it (`GET /v1/sessions/{id}` and list items).
struct SessionView: Encodable, Sendable {
    struct Result: Encodable, Sendable {
        var retCode: Int
        var message: String
        var success: Bool
    }
    /// The liveness decision: mode, challenge, verdict.
    struct Liveness: Encodable, Sendable {
        var mode: String?
        var challenge: String?
        var firstRotation: String?
        var verdict: String?
        var spoofScore: Double?
    }
    struct Frames: Encodable, Sendable {
        var received: Int
        var analysed: Int
        var dropped: Int
    }
    struct Links: Encodable, Sendable {
        var events: String
        var bundle: String?
        var video: String?
        var images: [String: String]
    }

    var id: String
    var status: SessionStatus
    var cardType: String
    var language: String
    var overtimeSeconds: Double
    var recordMode: RecordMode
    var createdAt: Int64
    var endedAt: Int64?
    var result: Result?
    var liveness: Liveness
    var reason: String?
    /// The SDK's `start|first motion|second motion|stop` string.
    var videoTimestamp: String
    var frames: Frames
    var wallSeconds: Double?
    var bundleReady: Bool
    var links: Links

    init(_ record: SessionRecord, directory: DataDirectory) {
        id = record.id
        status = record.status
        cardType = record.cardType
        language = record.language
        overtimeSeconds = record.overtimeSeconds
        recordMode = record.recordMode
        createdAt = record.createdAt
        endedAt = record.endedAt
        result = record.resultCode.map { Result(retCode: $0, message: record.resultMessage ?? "", success: $0 == 0) }
        liveness = Liveness(mode: record.livenessMode, challenge: record.challenge, firstRotation: record.firstRotation,
                            verdict: record.livenessVerdict, spoofScore: record.spoofScore)
        reason = record.reason
        videoTimestamp = record.timestamps.sdkString
        frames = Frames(received: record.framesReceived, analysed: record.framesAnalysed, dropped: record.framesDropped)
        wallSeconds = record.wallSeconds
        bundleReady = record.bundleReady
        let base = "/v1/sessions/\(record.id)"
        var images: [String: String] = [:]
        if let id = SessionID(record.id) {
            for image in SessionImage.allCases
            where FileManager.default.fileExists(atPath: directory.file(image.fileName, of: id)) {
                images[image.rawValue] = "\(base)/images/\(image.rawValue)"
            }
        }
        links = Links(events: "\(base)/events", bundle: record.bundleReady ? "\(base)/bundle" : nil,
                      video: record.hasVideo && record.status != .active ? "\(base)/video" : nil, images: images)
    }
}

/// The stills a session can have, by the name used in URLs.
enum SessionImage: String, CaseIterable, Sendable {
    case firstCard = "first-card", card, head

    var fileName: String { "\(rawValue).jpg" }
}
