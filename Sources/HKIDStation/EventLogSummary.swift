import Foundation

/// What a session's `events.jsonl` says happened, read back when the process
/// that wrote it is gone (crash recovery): the frames analysed (one `frame`
/// line each, the station always traces), when ORTH and RESET were issued,
/// and the result that ended the session, if one did.
struct EventLogSummary {
    var frameLines = 0
    /// Media time (seconds from the first frame) of the first ORTH / RESET.
    var orthTime: Double?
    var resetTime: Double?
    /// The last result that ends a session (0, 2, 3, 4, 5).
    var finalResult: (retCode: Int, message: String)?
    /// That result's liveness verdict and spoof score.
    var liveness: (verdict: String, spoofScore: Double?)?
    /// Whether the log already has its closing `end` line.
    var hasEndLine = false

    init() {}

    /// Reads the log at `path`; a line that does not parse (the one a crash
    /// cut in half) is skipped.
    init(contentsOf path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        for line in data.split(separator: UInt8(ascii: "\n")) {
            // A line that does not parse is the one a crash cut: skipped, as said above.
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let type = object["type"] as? String else { continue }
            switch type {
            case "frame":
                frameLines += 1
            case "operation":
                let t = object["t"] as? Double
                if object["status"] as? String == "ORTH", orthTime == nil { orthTime = t }
                if object["status"] as? String == "RESET", resetTime == nil { resetTime = t }
            case "result":
                if let code = object["retCode"] as? Int, [0, 2, 3, 4, 5].contains(code) {
                    finalResult = (code, object["message"] as? String ?? "")
                    if let liveness = object["liveness"] as? [String: Any], let verdict = liveness["verdict"] as? String {
                        self.liveness = (verdict, liveness["spoofScore"] as? Double)
                    }
                }
            case "end":
                hasEndLine = true
            default:
                break
            }
        }
    }

    /// Cuts a log back to its last complete line (a crash or a full disk can
    /// leave half of one), so what is sealed is valid JSON lines. False when
    /// the file cannot be read or cut (errno says why).
    static func truncateToLastLine(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        guard let last = data.last, last != UInt8(ascii: "\n") else { return true }
        let keep = data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return truncate(path, off_t(keep)) == 0
    }
}
