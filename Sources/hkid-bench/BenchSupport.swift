// BenchSupport.swift — what the replay, latency, startup, memory and soak
// benchmarks share: the machine line, medians and percentiles, timing a
// subprocess (with its own peak RSS), this process's RSS, and the sample list.
//
// The machine is shared and noisy, so every benchmark reports medians of
// interleaved runs and ratios between things measured in the same run; none
// asserts a timing.
import Foundation
import HKIDLiveness
import HKIDRegression
import Logging
#if canImport(Glibc)
import Glibc
#endif

enum Bench {
    /// The library logs each event at info level to stdout by default; a
    /// benchmark's stdout is its table, so only warnings, on stderr.
    static let quietLogging: Void = {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
    }()

    /// "machine: AMD EPYC, 2 cores, Linux 6.1.0, load 0.52" — printed first by every benchmark.
    static var machineLine: String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
        return "machine: \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, Linux \(release), load \(load)"
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    /// Nearest-rank percentile; NaN for an empty list.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    static func seconds(_ duration: Duration) -> Double {
        let c = duration.components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    static func fmt(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

    /// Every samples/*.mp4 under the current folder, sorted.
    static func defaultSamples() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "samples")) ?? []
        return names.filter { $0.hasSuffix(".mp4") }.sorted().map { "samples/\($0)" }
    }

    /// The card type a sample's expectation names: samples are replayed as
    /// the regression replays them (a 2003 card replayed as 2018 is never
    /// completed, so every frame would be decoded and analysed).
    static func cardType(of file: String) -> CardType? {
        (try? Expectation.load(from: Expectation.path(forVideo: file))).flatMap { CardType(rawValue: $0.cardType) }
    }

    /// The session configuration a sample is replayed with in process.
    static func configuration(for file: String) -> LivenessConfiguration {
        var configuration = LivenessConfiguration()
        if let type = cardType(of: file) { configuration.cardType = type }
        return configuration
    }

    /// The release CLI, as `make bench` builds it.
    static let defaultBinary = ".build/release/hkid-liveness"

    struct ChildRun {
        var status: Int32
        var seconds: Double
        /// Peak resident set of the child, kB (wait4's ru_maxrss).
        var maxRSSKB: Int
        /// The child's CPU seconds, user + system (wait4's rusage).
        var cpuSeconds: Double = 0
    }

    /// User + system seconds of a wait4 rusage.
    static func cpuSeconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Runs `arguments` (argv[0] looked up in PATH) with stdout and stderr
    /// sent to /dev/null unless `keepStderr`, waits for it with wait4, and
    /// returns its wall time and its own peak RSS. posix_spawn rather than
    /// Foundation.Process: less overhead of our own inside the measurement.
    static func runChild(_ arguments: [String], keepStderr: Bool = false) throws -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if !keepStderr { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = seconds(ContinuousClock.now - started)
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildRun(status: exitStatus, seconds: elapsed, maxRSSKB: Int(usage.ru_maxrss), cpuSeconds: cpuSeconds(usage))
    }

    /// A line of /proc/self/status in kB ("VmRSS", "VmHWM").
    static func selfStatusKB(_ key: String) -> Int { statusKB(key, of: "self") }

    /// A line of /proc/PROCESS/status in kB; -1 when it cannot be read.
    static func statusKB(_ key: String, of process: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
