// HubBench.swift — `hkid-bench hub`: the check service against a plain replay.
//
//   - checks a minute with 1 and 2 hkid-worker processes, N uploads of FILE
//     queued first (time from the workers' start to the last result);
//   - the queue, storage and bundle per check, against `hkid-liveness replay
//     FILE --json`, interleaved: a check's claim-to-result time against the
//     replay's own (its end line), and CPU seconds a check (the workers' and,
//     with --postgres-pid, the database server's) against a replay process's;
//   - claims a second one PostgreSQL sustains: empty jobs claimed and
//     completed (two transactions each) by many concurrent claimers.
//
// Release builds only (`make bench-hub` builds them and starts a throwaway
// PostgreSQL): a debug build's figures are not the product's.
// Needs a database of its own: every run empties the hub's tables in it.
import ArgumentParser
import Foundation
import HKIDHub
import Logging
import NIOCore
import PostgresNIO
import Synchronization

struct HubBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Checks a minute with 1 and 2 workers, per-check overhead against a plain replay, claims a second.",
        discussion: "The database given is emptied of hub tables on every run: point it at one of its own.")

    @Argument(help: "The video every check runs (default samples/genuine-2018.mp4).")
    var file: String = "samples/genuine-2018.mp4"

    @Option(help: "postgres://USER@HOST:PORT/DATABASE, a database for the benchmark only.") var database: String
    @Option(help: "The hkid-worker binary.") var worker: String = ".build/release/hkid-worker"
    @Option(help: "The hkid-liveness binary.") var binary: String = Bench.defaultBinary
    @Option(help: "Checks queued per worker-count run.") var checks: Int = 12
    @Option(help: "Plain replays, interleaved with the runs.") var rounds: Int = 5
    @Option(help: "Empty jobs for the claim rate.") var emptyJobs: Int = 2000
    @Option(help: "Concurrent claimers for the claim rate.") var claimers: Int = 16
    @Option(help: "The PostgreSQL server's PID (postmaster), to count its and its backends' CPU seconds a check.")
    var postgresPid: Int32?

    func run() throws {
        Bench.quietLogging
        #if DEBUG
        throw BenchError("hkid-bench is a debug build; its claims a second would not be the product's: use `make bench-hub`")
        #endif
        print(Bench.machineLine)
        for path in [worker, binary] {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchError("\(path) is not built; run `make bench-hub` (release builds)")
            }
            let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard !resolved.contains("/debug/") else {
                throw BenchError("\(path) is a debug build; its figures would not be the product's: use the release build (`make bench-hub`)")
            }
        }
        print("builds: \(worker), \(binary)")
        let result = Mutex<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let bench = self
        Task {
            do { try await bench.measure(); result.withLock { $0 = .success(()) } } catch { result.withLock { $0 = .failure(error) } }
            done.signal()
        }
        done.wait()
        try result.withLock { $0 }!.get()
    }

    func measure() async throws {
        let logger = Logger(label: "hkid-bench")
        let url = try DatabaseURL(database)
        let store = PostgresJobStore(client: url.makeClient(logger: logger, maximumConnections: claimers + 4), logger: logger)
        let pool = Task { await store.run(listens: false) }
        defer { pool.cancel() }
        try await store.migrate()
        let key = try signingKey()
        let video = try Data(contentsOf: URL(fileURLWithPath: file))

        var replays: [Double] = [], replaysInside: [Double] = [], replaysCPU: [Double] = []
        let events = NSTemporaryDirectory() + "hkid-bench-hub-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: events) }
        func replay() throws {
            let run = try Bench.runChild(["/bin/sh", "-c", "exec \"$0\" replay \"$1\" --json > \"$2\"", binary, file, events])
            guard run.status == 0 else { throw BenchError("\(file): hkid-liveness replay exit \(run.status)") }
            replays.append(run.seconds)
            replaysCPU.append(run.cpuSeconds)
            // The end line's own seconds: the replay without process start-up.
            let last = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").last ?? ""
            if let match = last.firstMatch(of: /"seconds":([0-9.]+)/), let value = Double(match.1) { replaysInside.append(value) }
        }
        var claimToResult: [Double] = []
        print("\nchecks of \(file), \(checks) queued per run; plain replays interleaved")
        var perCheck: [Int: Double] = [:], cpuPerCheck: [Int: Double] = [:]
        for workers in [1, 2] {
            try replay()
            try await empty(store)
            for index in 0..<checks { _ = try await queue(store, key: "w\(workers)-\(index)", video: video) }
            let databaseBefore = postgresPid.map(Self.processTreeCPU)
            let started = ContinuousClock.now
            let processes = try (0..<workers).map { index in
                try spawn([worker, "--database", database, "--signing-key", key, "--name", "bench-\(index)", "--poll", "0.2",
                           "--log-level", "warning"])
            }
            while try await store.statistics(buckets: []).counts[.done, default: 0] < checks {
                try await Task.sleep(for: .milliseconds(50))
            }
            let wall = Bench.seconds(ContinuousClock.now - started)
            if workers == 1 {
                let rows = try await store.client.query(
                    "SELECT extract(epoch FROM finished_at - started_at)::double precision FROM hub_checks WHERE state = 'done'")
                for try await value in rows.decode(Double.self) { claimToResult.append(value) }
            }
            for pid in processes { kill(pid, SIGTERM) }
            var workerCPU = 0.0
            for pid in processes {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                workerCPU += Bench.cpuSeconds(usage)
            }
            var databaseCPU: Double?
            if let pid = postgresPid, let before = databaseBefore { databaseCPU = Self.processTreeCPU(pid) - before }
            let failed = try await store.statistics(buckets: []).counts[.failed, default: 0]
            perCheck[workers] = wall / Double(checks)
            cpuPerCheck[workers] = (workerCPU + (databaseCPU ?? 0)) / Double(checks)
            let cpu = "CPU a check: workers \(Bench.fmt(workerCPU / Double(checks)))"
                + (databaseCPU.map { " + database \(Bench.fmt($0 / Double(checks)))" } ?? "") + " s"
            print("\(workers) worker\(workers == 1 ? " " : "s"): \(checks) checks in \(Bench.fmt(wall, 2)) s, \(Bench.fmt(Double(checks) / wall * 60, 1)) checks/min, \(Bench.fmt(wall / Double(checks))) s a check; \(cpu)\(failed > 0 ? ", \(failed) failed" : "")")
        }
        for _ in 2..<max(rounds, 2) { try replay() }
        let plain = Bench.median(replays), plainCPU = Bench.median(replaysCPU)
        let hub = perCheck[1]!
        let inside = Bench.median(replaysInside), perClaim = Bench.median(claimToResult)
        print("plain replay process: median \(Bench.fmt(plain)) s wall, \(Bench.fmt(plainCPU)) s CPU, of \(replays.count); one worker, wall a check: \(Bench.fmt(hub)) s (\(Bench.fmt((hub / plain - 1) * 100, 1)) %)")
        print("replay alone (its end line): median \(Bench.fmt(inside)) s; a check from claim to result (video fetched, replayed, signed, written): median \(Bench.fmt(perClaim)) s: overhead \(Bench.fmt((perClaim / inside - 1) * 100, 1)) %")
        for workers in [1, 2] {
            print("CPU a check with \(workers) worker\(workers == 1 ? "" : "s")\(postgresPid == nil ? "" : " and the database"): \(Bench.fmt(cpuPerCheck[workers]!)) s against a replay process's \(Bench.fmt(plainCPU)) s: \(Bench.fmt((cpuPerCheck[workers]! / plainCPU - 1) * 100, 1)) %")
        }
        print("2 workers against 1: \(Bench.fmt(perCheck[1]! / perCheck[2]!, 2))x the checks a minute")

        try await empty(store)
        for index in 0..<emptyJobs { _ = try await queue(store, key: "e\(index)", video: Data([0])) }
        let outcome = CheckOutcome(resultCode: nil, verdict: nil, spoofScore: nil, result: nil, events: Data(), files: [:],
                                   manifest: Data("{}".utf8), signature: "")
        let started = ContinuousClock.now
        let claimed = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<claimers {
                group.addTask {
                    var count = 0
                    while let claim = try await store.claim(worker: "claimer-\(index)", lease: .seconds(60), backoff: RetryBackoff()) {
                        _ = try await store.complete(claim, outcome: outcome)
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        let wall = Bench.seconds(ContinuousClock.now - started)
        print("\nempty jobs: \(claimed) claimed and completed by \(claimers) claimers in \(Bench.fmt(wall, 2)) s: \(Bench.fmt(Double(claimed) / wall, 0)) jobs/s")
        try await empty(store)
    }

    /// CPU seconds (user + system) of a process and its children, living
    /// and reaped: for the postmaster, every backend's, past and present.
    static func processTreeCPU(_ pid: Int32) -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        /// utime, stime, cutime, cstime, and the parent's PID, of /proc/PID/stat.
        func stat(_ process: String) -> (cpu: Double, parent: Int32)? {
            guard let text = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { return nil }
            // Fields after the command: state (3), ppid (4), …, utime (14) to cstime (17).
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 15, let parent = Int32(fields[1]) else { return nil }
            let cpu = fields[11...14].compactMap { Double($0) }.reduce(0, +) / ticks
            return (cpu, parent)
        }
        var total = stat("\(pid)")?.cpu ?? 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(name) != nil {
            if let child = stat(name), child.parent == pid { total += child.cpu }
        }
        return total
    }

    private func queue(_ store: PostgresJobStore, key: String, video: Data) async throws -> Check {
        let body = [ByteBuffer(bytes: video)].async
        return try await store.create(CheckRequest(client: "bench", idempotencyKey: key, cardType: "2018", challenge: "fixed"),
                                      body: body, limit: 1 << 30, maxAttempts: 3).check
    }

    private func empty(_ store: PostgresJobStore) async throws {
        try await store.client.query("TRUNCATE hub_checks CASCADE")
    }

    /// A fresh Ed25519 key in a temporary file, as openssl writes it.
    private func signingKey() throws -> String {
        let path = NSTemporaryDirectory() + "hkid-bench-hub-\(getpid()).key"
        let run = try Bench.runChild(["openssl", "genpkey", "-algorithm", "ed25519", "-out", path])
        guard run.status == 0 else { throw BenchError("openssl genpkey failed") }
        return path
    }

    private func spawn(_ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        return pid
    }
}

private extension Array where Element: Sendable {
    /// The elements as an AsyncSequence (a request body of one part).
    var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
