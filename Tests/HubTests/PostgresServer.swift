import Foundation
import Testing

/// A real PostgreSQL 15 (Debian's) in a temporary directory on a loopback
/// port, run as an unprivileged user: `initdb` refuses root, and CI runs as
/// root, so then the server runs as `nobody` (through `runuser`).
final class PostgresServer: @unchecked Sendable {
    static let bin = "/usr/lib/postgresql/15/bin"
    /// One server for the tests that do not stop it; each test takes its own database.
    static let shared: PostgresServer = {
        let server = try! PostgresServer()
        atexit { PostgresServer.shared.stopQuietly() }
        return server
    }()

    let directory: String
    let port: Int
    /// Extra addresses to listen on besides 127.0.0.1 (a test host's veth).
    let extraAddresses: [String]
    /// Wraps every server command (e.g. `ip netns exec NAME` to run it on another host).
    let wrapper: [String]
    private var databases = 0
    private let lock = NSLock()

    init(extraAddresses: [String] = [], wrapper: [String] = []) throws {
        directory = NSTemporaryDirectory() + "hkid-pg-\(UUID().uuidString.prefix(8))"
        port = try FreePort.pick()
        self.extraAddresses = extraAddresses
        self.wrapper = wrapper
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.chownToServerUser(directory)
        try run(["\(Self.bin)/initdb", "-D", "\(directory)/data", "-U", "hub", "--auth=trust", "-E", "UTF8",
                 "--no-sync", "--locale=C"])
        // Trust on the test network too (the workers in their own namespaces).
        let hba = "\(directory)/data/pg_hba.conf"
        let extra = "host all all 10.0.0.0/8 trust\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: hba))
        handle.seekToEndOfFile()
        handle.write(Data(extra.utf8))
        try handle.close()
        try start()
    }

    static var runsAsRoot: Bool { getuid() == 0 }

    private static func chownToServerUser(_ path: String) throws {
        guard runsAsRoot else { return }
        let status = Shell.run(["/bin/chown", "-R", "nobody:nogroup", path])
        guard status.code == 0 else { throw ShellError("chown \(path): \(status.output)") }
    }

    /// Runs a server command as the unprivileged user; throws with its output on failure.
    @discardableResult
    private func run(_ command: [String]) throws -> String {
        let user = Self.runsAsRoot ? ["/usr/sbin/runuser", "-u", "nobody", "--"] : []
        let result = Shell.run(wrapper + user + command, directory: directory)
        guard result.code == 0 else { throw ShellError("\(command.joined(separator: " ")): \(result.output)") }
        return result.output
    }

    func start() throws {
        let listen = (["127.0.0.1"] + extraAddresses).joined(separator: ",")
        try run(["\(Self.bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-t", "30", "start",
                 "-o", "-p \(port) -k \(directory) -c listen_addresses=\(listen) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"])
    }

    /// `fast`: disconnects every client and stops; `immediate`: as a crash.
    func stop(mode: String = "fast") throws {
        try run(["\(Self.bin)/pg_ctl", "-D", "\(directory)/data", "-w", "-t", "30", "stop", "-m", mode])
    }

    func stopQuietly() {
        try? stop(mode: "immediate")
        try? FileManager.default.removeItem(atPath: directory)
    }

    var log: String { (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? "" }

    /// A fresh, empty database; its URL for `--database`.
    func createDatabase(host: String = "127.0.0.1") throws -> String {
        let name = lock.withLock { databases += 1; return "t\(databases)_\(UUID().uuidString.prefix(6).lowercased())" }
        try run(["\(Self.bin)/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "hub", name])
        return "postgres://hub@\(host):\(port)/\(name)"
    }

    /// Runs SQL through psql and returns the unaligned, tuples-only output.
    func sql(_ statement: String, database url: String) throws -> String {
        let name = String(url.split(separator: "/").last!)
        return try run(["/usr/bin/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "hub", "-d", name, "-v", "ON_ERROR_STOP=1",
                        "-At", "-c", statement]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct ShellError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Shell {
    /// Runs a command to its end; its exit code and stdout+stderr. The
    /// output goes through a file, not a pipe: a daemon the command starts
    /// (pg_ctl's postgres) keeps its descriptors, and a pipe would never end.
    static func run(_ command: [String], directory: String? = nil) -> (code: Int32, output: String) {
        let outputPath = NSTemporaryDirectory() + "hkid-shell-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        // posix_spawn and waitpid rather than Foundation's Process, whose
        // waitUntilExit never returned for `runuser` here (left a zombie).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { return (-1, "\(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, text)
    }
}

enum FreePort {
    /// A TCP port free on 127.0.0.1 at the moment of asking.
    static func pick() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ShellError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ShellError("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
