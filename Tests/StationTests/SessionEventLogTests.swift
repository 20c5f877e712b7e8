import Foundation
@testable import HKIDStation
import Testing

/// The event log's subscribers read the file, not a bounded in-memory
/// replay: before, a subscriber of a long traced session got only the
/// newest 4,096 lines and missed BEGIN although every line was promised.
@Suite struct SessionEventLogTests {
    static func paths() -> (String, String) {
        let folder = StationProcess.temporaryDirectory()
        return (folder + "/.events.jsonl.partial", folder + "/events.jsonl")
    }

    @Test func aLateSubscriberGetsEveryLineFromTheFirst() async throws {
        let (partial, final) = Self.paths()
        let log = try SessionEventLog(partialPath: partial, finalPath: final)
        for index in 0..<10_000 { log.append(#"{"n":\#(index)}"#) }
        let late = log.subscribe()
        let reader = Task {
            var lines: [String] = []
            for await line in late { lines.append(line) }
            return lines
        }
        for index in 10_000..<10_100 { log.append(#"{"n":\#(index)}"#) }
        try log.close()
        let lines = await reader.value
        #expect(lines.count == 10_100)
        #expect(lines.first == #"{"n":0}"#)
        #expect(lines.last == #"{"n":10099}"#)
        // After the close, the final file is read.
        var again = 0
        for await _ in log.subscribe() { again += 1 }
        #expect(again == 10_100)
        #expect(FileManager.default.fileExists(atPath: final) && !FileManager.default.fileExists(atPath: partial))
    }

    /// A write that fails (here /dev/full: ENOSPC) marks the log failed, calls
    /// back once, and writes nothing after the hole.
    @Test func aFailedWriteIsReportedOnce() throws {
        let failures = FailureBox()
        let log = try SessionEventLog(partialPath: "/dev/full", finalPath: "/dev/null") { failures.add($0) }
        log.append(#"{"type":"operation"}"#)
        log.append(#"{"type":"frame"}"#)
        #expect(failures.all == ["storage full: the event log could not be written (No space left on device)"])
        #expect(log.failure == failures.all.first)
    }
}

final class FailureBox: @unchecked Sendable {
    // @unchecked: the lock guards `all`.
    private let lock = NSLock()
    private var reasons: [String] = []
    func add(_ reason: String) { lock.withLock { reasons.append(reason) } }
    var all: [String] { lock.withLock { reasons } }
}
