// MemoryBench.swift — `hkid-bench memory`: peak RSS (wait4's ru_maxrss of
// the child) of `hkid-liveness replay` on single samples and of a batch
// replay of the whole library, and of `hkid-station` running sessions.
import ArgumentParser
import Foundation

struct MemoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Peak RSS of hkid-liveness replay (one file, a batch of every sample) and of an hkid-station session.")

    @Argument(help: "Files for the single-file runs (default: genuine-2018 (720p) and no-card (540p)).")
    var files: [String] = []
    @Option(help: "The hkid-liveness binary.") var binary: String = Bench.defaultBinary
    @Option(help: "The hkid-station binary (skipped when it is not built).") var station: String = ".build/release/hkid-station"

    func run() throws {
        Bench.quietLogging
        print(Bench.machineLine)
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw BenchError("\(binary) is not built") }
        let singles = files.isEmpty
            ? ["samples/genuine-2018.mp4", "samples/no-card.mp4"] : files
        print("\npeak RSS (MB)")
        for file in singles {
            let run = try Bench.runChild([binary, "replay", file, "--json"])
            print("replay \((file as NSString).lastPathComponent): \(mb(run.maxRSSKB)) (exit \(run.status), \(Bench.fmt(run.seconds, 2)) s)")
        }
        let all = Bench.defaultSamples()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for jobs in Set([1, cores]).sorted() {
            let batch = try Bench.runChild([binary, "replay"] + all + ["--expect", "--jobs", "\(jobs)"])
            print("batch replay of \(all.count) samples --expect --jobs \(jobs): \(mb(batch.maxRSSKB)) (exit \(batch.status), \(Bench.fmt(batch.seconds, 2)) s)")
        }
        guard FileManager.default.isExecutableFile(atPath: station) else {
            print("hkid-station: \(station) is not built, skipped")
            return
        }
        // A session records (x264 into Matroska), analyses and seals a
        // signed bundle; the peak is reached in the first one and must not
        // climb with the next.
        let peaks = try StationMemory(station: station, sample: "samples/genuine-2018.mp4").peaks(sessions: 3)
        print("hkid-station, genuine-2018 sessions, peak RSS after each: " + peaks.map(mb).joined(separator: ", "))
    }

    private func mb(_ kb: Int) -> String { String(format: "%.1f MB", Double(kb) / 1024) }
}
