import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The real `hkid-station` binary as a child process on a free loopback
/// port, with a throwaway data directory, and a small HTTP client for it.
final class StationProcess: @unchecked Sendable {
    // @unchecked: used from one test at a time; the log buffer is only
    // appended by the reader thread and read under `lock`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["HKID_STATION_BIN"], !path.isEmpty { return path }
        return repository.appendingPathComponent(".build/debug/hkid-station").path
    }

    static func sample(_ name: String) -> String { repository.appendingPathComponent("samples/\(name)").path }
    static func fixture(_ name: String) -> String { repository.appendingPathComponent("Tests/Fixtures/\(name)").path }

    /// A new directory for one test's files, under `scratchRoot`.
    static func temporaryDirectory() -> String {
        let path = scratchRoot + "/\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// One directory for this test process, removed when it exits: a run
    /// leaves nothing behind, whether a test cleans up after itself or
    /// fails half-way.
    static let scratchRoot: String = {
        let path = NSTemporaryDirectory() + "hkid-station-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: StationProcess.scratchRoot) }
        return path
    }()

    let dataDirectory: String
    let arguments: [String]
    /// Added to the daemon's environment (e.g. HKID_STATION_HOLD_AT).
    let environment: [String: String]
    /// Run the daemon through this wrapper (e.g. `unshare` to give it its own mounts).
    let wrapper: [String]
    private(set) var process: Process?
    private(set) var port = 0
    private let lock = NSLock()
    private var log = ""

    init(dataDirectory: String = StationProcess.temporaryDirectory(), arguments: [String],
         environment: [String: String] = [:], wrapper: [String] = []) {
        self.dataDirectory = dataDirectory
        self.arguments = arguments
        self.environment = environment
        self.wrapper = wrapper
    }

    var output: String { lock.withLock { log } }

    /// Starts the daemon and waits for its "listening" line (port 0 picks a
    /// free port) and, unless told not to, for its camera's first pictures.
    func start(timeout: Duration = .seconds(20), waitingForCamera: Bool = true) throws {
        let process = Process()
        let command = wrapper + [Self.binary, "--port", "0", "--data-directory", dataDirectory] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = Self.repository
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        self.process = process
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.withLock { log += String(decoding: data, as: UTF8.self) }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let range = output.range(of: #"address=http://[0-9.]+:(\d+)"#, options: .regularExpression) {
                port = Int(output[range].split(separator: ":").last!)!
                // Listening comes before the first camera frame; on a loaded
                // machine a session started in between is (rightly) refused.
                if startsCamera && waitingForCamera { try waitForCamera(until: deadline) }
                return
            }
            if !process.isRunning { break }
            usleep(50_000)
        }
        // Do not leave a half-started daemon behind a failed test.
        if process.isRunning {
            process.terminate()
            _ = waitForExit(timeout: .seconds(10))
        }
        throw StationTestError("hkid-station did not start listening:\n\(output)")
    }

    /// Whether this daemon runs a camera (tests of start-up refusals do not).
    private var startsCamera: Bool { arguments.contains("--source") }

    /// Polls /healthz until the camera delivers pictures.
    private func waitForCamera(until deadline: ContinuousClock.Instant) throws {
        let url = URL(string: "http://127.0.0.1:\(port)/healthz")!
        while ContinuousClock.now < deadline {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var running = false
            URLSession.shared.dataTask(with: url) { data, _, _ in
                // Written before signal() and read after wait(): ordered by the semaphore.
                let health = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                running = (health?["camera"] as? [String: Any])?["running"] as? Bool == true
                done.signal()
            }.resume()
            done.wait()
            if running { return }
            usleep(100_000)
        }
        throw StationTestError("hkid-station's camera did not start:\n\(output)")
    }

    /// Waits until the daemon's log contains `text`.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(60)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if output.contains(text) { return }
            usleep(50_000)
        }
        throw StationTestError("hkid-station never logged \"\(text)\":\n\(output)")
    }

    /// Waits for the process to exit on its own; returns its status.
    func waitForExit(timeout: Duration = .seconds(20)) -> Int32? {
        guard let process else { return nil }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func signal(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, signal)
    }

    /// SIGTERM and wait; SIGKILL if it does not go.
    func stop() {
        signal(SIGTERM)
        if waitForExit(timeout: .seconds(15)) == nil {
            signal(SIGKILL)
            _ = waitForExit()
        }
    }

    deinit { if process?.isRunning == true { process?.terminate() } }

    // MARK: HTTP

    struct Reply {
        var status: Int
        var body: Data
        var headers: [String: String]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(_ method: String, _ path: String, body: Data? = nil, token: String? = nil,
                 timeout: TimeInterval = 30) async throws -> Reply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = timeout
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers["\(key)".lowercased()] = "\(value)" }
        return Reply(status: http.statusCode, body: data, headers: headers)
    }

    func get(_ path: String, token: String? = nil) async throws -> Reply { try await request("GET", path, token: token) }

    func post(_ path: String, json: String? = nil, token: String? = nil) async throws -> Reply {
        try await request("POST", path, body: json.map { Data($0.utf8) }, token: token)
    }

    /// Polls the session until ORTH has been issued (the video timestamp's
    /// second moment is set), so the first still and result 1 are in.
    func waitUntilORTH(_ id: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let moments = (try await get("/v1/sessions/\(id)").json["videoTimestamp"] as? String ?? "").split(separator: "|")
            if moments.count == 4 && moments[1] != "0" { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw StationTestError("session \(id) did not reach ORTH within \(timeout)")
    }

    /// Polls the session until it is no longer active.
    func waitUntilEnded(_ id: String, timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let session = try await get("/v1/sessions/\(id)").json
            if session["status"] as? String != "active", session["bundleReady"] as? Bool == true { return session }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw StationTestError("session \(id) did not end within \(timeout)")
    }
}

struct StationTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
