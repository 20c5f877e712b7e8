// StationMemory.swift — peak RSS of a daemon session: the real hkid-station on
// loopback, sessions started over HTTP (curl, as an operator's client would),
// VmHWM read from /proc after each one has ended.
import Foundation

struct StationMemory {
    let station: String
    let sample: String
    let port = 18_700 + Int(getpid() % 100)

    /// VmHWM (kB) after each of `sessions` genuine-sample sessions.
    func peaks(sessions: Int) throws -> [Int] {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("hkid-bench-station-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: station)
        daemon.arguments = ["--source", "file", "--file", sample, "--restart-file-on-session",
                            "--port", "\(port)", "--data-directory", data]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try waitUntil(seconds: 20, "the station did not answer /healthz") { (try? curl(["-sf", url("/healthz")])) != nil }
        var peaks: [Int] = []
        for _ in 0..<sessions {
            // 409 while the previous session's recording is still being
            // finalised (as scripts/station-soak.sh retries it).
            var reply = Data()
            try waitUntil(seconds: 20, "POST /v1/sessions was refused for 20 s") {
                guard let accepted = try? curl(["-sf", "-XPOST", url("/v1/sessions"), "-H", "content-type: application/json",
                                                "-d", #"{"cardType":"2018","language":"en"}"#]) else { return false }
                reply = accepted
                return true
            }
            guard let id = (try JSONSerialization.jsonObject(with: reply) as? [String: Any])?["id"] as? String else {
                throw BenchError("POST /v1/sessions answered \(String(decoding: reply, as: UTF8.self))")
            }
            try waitUntil(seconds: 60, "session \(id) did not end") {
                let view = try? JSONSerialization.jsonObject(with: curl(["-sf", url("/v1/sessions/\(id)")])) as? [String: Any]
                return (view?["status"] as? String).map { $0 != "active" } ?? false
            }
            peaks.append(Bench.statusKB("VmHWM", of: "\(daemon.processIdentifier)"))
        }
        return peaks
    }

    private func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    private func curl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("curl \(arguments.joined(separator: " ")) failed") }
        return data
    }

    private func waitUntil(seconds: Double, _ failure: String, _ done: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try !done() {
            guard ContinuousClock.now < deadline else { throw BenchError(failure) }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }
}
