import Foundation
import Testing

/// Runs the real `hkid-liveness` binary (or another tool) as a user would and
/// captures what it says. `make test` points HKID_LIVENESS_BIN at the release
/// build; a plain `swift test` finds the debug build in .build/debug.
enum CLI {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary under test; a test that needs it fails (not skips) when it is missing.
    static func binary() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["HKID_LIVENESS_BIN"], !path.isEmpty { candidates.append(path) }
        candidates.append(repository.appendingPathComponent(".build/debug/hkid-liveness").path)
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, """
            hkid-liveness binary not found (tried \(candidates.joined(separator: ", "))): \
            build it with `swift build --product hkid-liveness` or set HKID_LIVENESS_BIN
            """)
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// The one line on stderr that an error must be; records an issue
        /// when there are more or none.
        var stderrLine: String {
            let lines = stderr.split(separator: "\n")
            #expect(lines.count == 1, "expected exactly one line on stderr, got: \(stderr)")
            return lines.first.map(String.init) ?? ""
        }
        /// stdout parsed as JSON lines; records an issue for a line that is not JSON.
        var jsonLines: [[String: Any]] {
            lines.compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    Issue.record("stdout line is not a JSON object: \(line)")
                    return nil
                }
                return object
            }
        }
    }

    static func sample(_ name: String) -> String {
        repository.appendingPathComponent("samples/\(name)").path
    }

    static func fixture(_ name: String) -> String {
        repository.appendingPathComponent("Tests/Fixtures/\(name)").path
    }

    /// `hkid-liveness ARGUMENTS…`
    static func run(_ arguments: [String], timeout: Duration = .seconds(180)) throws -> Run {
        try run(tool: try binary(), arguments, timeout: timeout)
    }

    /// Runs any tool to completion with a time limit (a hang is a failure,
    /// not a stuck test run). Output goes to files so a chatty process cannot
    /// block on a full pipe.
    static func run(tool executable: String, _ arguments: [String], timeout: Duration = .seconds(180)) throws -> Run {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/stdout", errPath = folder + "/stderr"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            // SIGKILL: the child may have SIGTERM blocked (inherited from the
            // spawning thread), and a hang must end as a failure, not a hang.
            kill(process.processIdentifier, SIGKILL)
            Issue.record("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus,
                   stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                   stderr: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    /// A new directory for one test's files, under `scratchRoot`.
    static func temporaryDirectory() throws -> String {
        let path = scratchRoot + "/\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// One directory for this test process, removed when it exits: a run
    /// leaves nothing behind, whether a test cleans up after itself or
    /// fails half-way.
    static let scratchRoot: String = {
        let path = NSTemporaryDirectory() + "hkid-cli-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLI.scratchRoot) }
        return path
    }()
}
