import Crypto
import Foundation
import HKIDSignature
import Testing

/// A child process of the tests (the real hkid-hub or hkid-worker binary)
/// with its output collected.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `log` is appended by the reader thread under `lock`.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func binary(_ name: String) -> String {
        repository.appendingPathComponent(".build/debug/\(name)").path
    }

    /// The CLI the Makefile built (release), else the debug one.
    static var cli: String {
        if let path = ProcessInfo.processInfo.environment["HKID_LIVENESS_BIN"], !path.isEmpty { return path }
        return binary("hkid-liveness")
    }

    static func sample(_ name: String) -> String { repository.appendingPathComponent("samples/\(name)").path }

    let process = Process()
    private let lock = NSLock()
    private var log = ""

    init(_ command: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.withLock { log += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    var output: String { lock.withLock { log } }
    var pid: Int32 { process.processIdentifier }

    /// Waits for `pattern` in the output; its first capture group.
    func waitFor(_ pattern: String, timeout: Duration = .seconds(30)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        let regex = try Regex(pattern)
        while ContinuousClock.now < deadline {
            if let match = output.firstMatch(of: regex) {
                return match.output.count > 1 ? (match.output[1].substring.map(String.init) ?? "") : String(match.output[0].substring ?? "")
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ShellError("no /\(pattern)/ in the output of \(process.executableURL!.lastPathComponent):\n\(output)")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// SIGTERM, then waits for the exit; SIGKILL if it takes longer than `grace`.
    func stop(grace: Duration = .seconds(20)) {
        guard process.isRunning else { return }
        signal(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { signal(SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// A signing key pair in files, and a client token file, for one test;
/// the folder (the workers' scratch directory too) goes with it.
final class HubFixture: @unchecked Sendable {
    // @unchecked: every property is a constant; the public key type is not marked Sendable on Linux.
    let directory: String
    let privateKeyPath: String
    let publicKeyPath: String
    let tokenPath: String
    let publicKey: Curve25519.Signing.PublicKey
    static let token = "test-token-0123456789abcdef"
    static let otherToken = "other-token-0123456789abcdef"
    /// A client whose token line ends in `all`: it sees every client's checks.
    static let auditorToken = "auditor-token-0123456789abcdef"

    init() throws {
        directory = NSTemporaryDirectory() + "hkid-hub-test-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = Curve25519.Signing.PrivateKey()
        publicKey = key.publicKey
        privateKeyPath = directory + "/hub.key"
        publicKeyPath = directory + "/hub.pub"
        tokenPath = directory + "/tokens"
        try KeyFile.pem(privateKey: key).write(toFile: privateKeyPath, atomically: true, encoding: .utf8)
        try KeyFile.pem(publicKey: key.publicKey).write(toFile: publicKeyPath, atomically: true, encoding: .utf8)
        try "bank \(Self.token)\nother \(Self.otherToken)\nauditor \(Self.auditorToken) all\n"
            .write(toFile: tokenPath, atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func startHub(database: String, port: Int = 0, arguments: [String] = [], wrapper: [String] = []) throws -> (ChildProcess, Int) {
        let hub = try ChildProcess(wrapper + [ChildProcess.binary("hkid-hub"), "--database", database, "--tokens", tokenPath,
                                              "--port", "\(port)"] + arguments)
        let port = Int(try hub.waitFor(#"address=http://[0-9.]+:(\d+)"#))!
        return (hub, port)
    }

    /// A worker with a short lease and backoff, for tests.
    func startWorker(database: String, name: String, lease: Double = 3, arguments: [String] = [],
                     environment: [String: String] = [:], wrapper: [String] = []) throws -> ChildProcess {
        let worker = try ChildProcess(wrapper + [ChildProcess.binary("hkid-worker"), "--database", database,
                                                 "--signing-key", privateKeyPath, "--name", name, "--lease", "\(lease)",
                                                 "--poll", "1", "--backoff", "0.3", "--scratch-directory", directory] + arguments,
                                      environment: environment)
        _ = try worker.waitFor("worker started")
        return worker
    }

    /// A second of a test pattern (320x240, H.264): a check of it takes a
    /// fraction of a second, so a hundred fit in a test.
    func tinyVideo() throws -> String {
        let path = directory + "/tiny.mp4"
        let result = Shell.run(["/usr/bin/gst-launch-1.0", "-q", "videotestsrc", "num-buffers=10", "pattern=ball", "!",
                                "video/x-raw,width=320,height=240,framerate=10/1", "!", "x264enc", "!", "mp4mux", "!",
                                "filesink", "location=\(path)"])
        try #require(result.code == 0, "\(result.output)")
        return path
    }
}

/// The hub's HTTP API through curl, as a user would call it.
struct HubClient {
    let base: String
    var token = HubFixture.token
    /// Run curl through this (e.g. `ip netns exec NAME`).
    var wrapper: [String] = []

    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func request(_ method: String, _ path: String, headers: [String: String] = [:], uploadFile: String? = nil,
                 chunked: Bool = false) throws -> Reply {
        let headerFile = NSTemporaryDirectory() + "hkid-curl-\(UUID().uuidString)"
        let bodyFile = headerFile + ".body"
        defer {
            try? FileManager.default.removeItem(atPath: headerFile)
            try? FileManager.default.removeItem(atPath: bodyFile)
        }
        var command = wrapper + ["/usr/bin/curl", "-sS", "-X", method, "-D", headerFile, "-o", bodyFile,
                                 "-H", "Authorization: Bearer \(token)", "--max-time", "60"]
        for (name, value) in headers { command += ["-H", "\(name): \(value)"] }
        if let uploadFile {
            command += ["--data-binary", "@\(uploadFile)", "-H", "Content-Type: application/octet-stream"]
            if chunked { command += ["-H", "Transfer-Encoding: chunked"] }
        }
        command.append(base + path)
        let result = Shell.run(command)
        guard result.code == 0 || FileManager.default.fileExists(atPath: headerFile) else {
            throw ShellError("curl \(method) \(path): \(result.output)")
        }
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        // The last response block (after any 100 Continue).
        let block = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
        let lines = block.components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = FileManager.default.contents(atPath: bodyFile) ?? Data()
        return Reply(status: status, headers: headers, body: body)
    }

    func upload(_ file: String, key: String, card: String = "2018", chunked: Bool = false) throws -> Reply {
        try request("POST", "/v1/checks?card=\(card)", headers: ["Idempotency-Key": key], uploadFile: file, chunked: chunked)
    }

    /// Polls until the check is done or failed.
    func waitUntilFinished(_ id: String, timeout: Duration = .seconds(90)) throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let reply = try request("GET", "/v1/checks/\(id)")
            last = reply.json
            if reply.status == 200, let state = last["state"] as? String, state == "done" || state == "failed" { return last }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw ShellError("check \(id) did not finish in \(timeout); last seen \(last)")
    }
}
