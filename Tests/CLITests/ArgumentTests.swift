import Foundation
import Testing

/// Enumerated flags are parsed by argument-parser: a bad value is refused
/// before anything starts (exit 64, one line naming the value and the good
/// ones), and the verbosity flags reach the logs they promise.
@Suite("arguments and logging")
struct ArgumentTests {
    /// `make test` points HKID_STATION_BIN at the build it tests.
    static func stationBinary() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["HKID_STATION_BIN"], !path.isEmpty { candidates.append(path) }
        candidates.append(CLI.repository.appendingPathComponent(".build/debug/hkid-station").path)
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "hkid-station binary not found (tried \(candidates.joined(separator: ", ")))")
    }

    @Test("hkid-station refuses a bad enumerated value before starting", arguments: [
        (["--log-level", "loud"],
         "The value 'loud' is invalid for '--log-level <log-level>'. Please provide one of the following: trace, debug, info, notice, warning, error, critical"),
        (["--source", "camera"],
         "The value 'camera' is invalid for '--source <source>'. Please provide one of 'webcam', 'file', 'test-pattern' or 'pipeline'."),
        (["--record-mode", "always"],
         "The value 'always' is invalid for '--record-mode <record-mode>'. Please provide one of 'whole-session', 'after-first' or 'none'."),
        (["--liveness", "maybe"],
         "The value 'maybe' is invalid for '--liveness <liveness>'. Please provide one of 'enforce' and 'report'."),
        (["--challenge", "sometimes"],
         "The value 'sometimes' is invalid for '--challenge <challenge>'. Please provide one of 'fixed' and 'random'."),
    ])
    func stationRefusesBadValues(arguments: [String], message: String) throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Port 0 and a fresh folder: if the value were taken, the station
        // would start and run until the time limit, which records an issue.
        let run = try CLI.run(tool: try Self.stationBinary(),
                              ["--port", "0", "--data-directory", directory] + arguments, timeout: .seconds(20))
        #expect(run.status == 64)
        #expect(run.stderrLine == "hkid-station: " + message)
    }

    @Test("run --source takes only live sources")
    func runRefusesReplayAsASource() throws {
        // "replay" was accepted (a key of the built-in descriptions) and ran
        // a live session on a pipeline that decodes as fast as it can.
        let run = try CLI.run(["run", "--source", "replay", "--input", CLI.sample("genuine-2018.mp4")], timeout: .seconds(60))
        #expect(run.status == 64)
        #expect(run.stderrLine == "hkid-liveness: The value 'replay' is invalid for '--source <source>'. Please provide one of 'webcam', 'videotestsrc' or 'realtime-file'.")
        #expect(run.stdout.isEmpty)
    }

    @Test("-v logs decisions, -vv every frame")
    func verbosity() throws {
        let sample = CLI.sample("genuine-2018.mp4")
        let once = try CLI.run(["replay", sample, "--json", "--trace", "-v"])
        let twice = try CLI.run(["replay", sample, "--json", "--trace", "-vv"])
        #expect(once.status == 0 && twice.status == 0)
        // The session logs a line (at .trace) for each frame it analysed with
        // the card in view: the --trace frame lines with a card up to the
        // result that ended it (--trace goes on following the card after it).
        func frameLogLines(_ run: CLI.Run) -> Int {
            run.stderr.split(separator: "\n").filter { $0.contains("yaw=") && $0.hasSuffix(" frame") }.count
        }
        let lines = twice.jsonLines
        let end = try #require(lines.last { $0["type"] as? String == "result" }?["t"] as? Double)
        let framesWithCard = lines.filter {
            $0["type"] as? String == "frame" && $0["card"] is [String: Any] && ($0["t"] as? Double ?? .infinity) <= end
        }.count
        #expect(framesWithCard > 100)
        #expect(frameLogLines(once) == 0)
        #expect(frameLogLines(twice) == framesWithCard, "stderr starts: \(twice.stderr.prefix(500))")
        // Logs go to stderr only (the end line differs by its wall time).
        #expect(once.lines.dropLast() == twice.lines.dropLast())
    }
}
