import Foundation
import Testing

/// Runs the real `hkid-liveness` binary as a user would and captures what
/// it says. `make test` points HKID_LIVENESS_BIN at the release build;
/// a plain `swift test` finds the debug build beside the tests.
enum CLI {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["HKID_LIVENESS_BIN"], !path.isEmpty { return path }
        return repository.appendingPathComponent(".build/debug/hkid-liveness").path
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// stdout parsed as JSON lines; fails the test on a line that is not JSON.
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

    /// Runs with a time limit: a hang is a failure, not a stuck test run.
    static func run(_ arguments: [String], timeout: Duration = .seconds(120)) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record("hkid-liveness is not built at \(binary); run `make test` or `swift build` first")
            return Run(status: -1, stdout: "", stderr: "")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs so a full pipe cannot block it.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("hkid-liveness \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        process.waitUntilExit()
        readers.wait()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "hkid-cli-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
