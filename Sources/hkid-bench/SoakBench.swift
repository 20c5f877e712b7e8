// SoakBench.swift — `hkid-bench soak`: the sample library replayed in a loop
// in this process, a new LivenessSession and FrameSource per file as a user
// (or a batch tool) would, to show memory does not grow with use.
//
// The baseline is taken after the first full passes, when every lazy one-time
// allocation (GStreamer plugin registry, decoders' tables, OpenCV's cascade
// and thread pool) has happened. The bar: RSS grows < 2 MB from there. One
// reading moves by a megabyte or two with where glibc's arenas stand when a
// pass ends (the first pass of two runs of the same build read 91.2 and
// 87.1 MB), so start and end are each the median of five passes, as the
// station soak takes five sessions.
import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline

struct SoakBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Replay the sample library in a loop in-process; report RSS growth after the first pass.")

    @Option(help: "Minutes to run (at least one full pass is always made).") var minutes: Double = 10
    @Argument(help: "Files (default: every samples/*.mp4).") var files: [String] = []

    func run() throws {
        AllocatorTuning.returnLargeBuffersToTheSystem()  // as the CLI does
        Bench.quietLogging
        print(Bench.machineLine)
        let inputs = files.isEmpty ? Bench.defaultSamples() : files
        guard !inputs.isEmpty else { throw BenchError("no input files") }
        let started = ContinuousClock.now
        let deadline = started + .seconds(minutes * 60)
        var pass = 0, frames = 0, replays = 0
        var history: [(replays: Int, raw: Int, trimmed: Int)] = []
        print("pass  minutes  replays  frames    RSS_MB  trimmed_MB")
        repeat {
            for file in inputs {
                let session = LivenessSession(configuration: Bench.configuration(for: file))
                let source = try FrameSource(.replay, input: file)
                let outcome = try SessionReplay(session: session).run(source)
                session.close()
                if let error = outcome.error { throw BenchError("\(error)") }
                frames += outcome.counters.received
                replays += 1
            }
            pass += 1
            let rss = Bench.selfStatusKB("VmRSS")
            AllocatorTuning.releaseFreeMemory()
            let trimmed = Bench.selfStatusKB("VmRSS")
            history.append((replays, rss, trimmed))
            let elapsed = Bench.seconds(ContinuousClock.now - started) / 60
            print(String(format: "%4d  %7.2f  %7d  %6d  %8.1f  %10.1f", pass, elapsed, replays, frames, Double(rss) / 1024, Double(trimmed) / 1024))
            fflush(nil)
        } while ContinuousClock.now < deadline
        // Each pass is measured as it ends (raw), then trimmed; so a raw
        // figure is what one pass leaves resident on top of a trimmed heap.
        let first = history.first!, last = history.last!
        func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        // The two windows must not overlap, or a short run reads as no growth.
        guard history.count >= 2 else { throw BenchError("one pass only: run longer to compare the start with the end") }
        let window = min(5, history.count / 2)
        let startRaw = median(history.prefix(window).map(\.raw)), endRaw = median(history.suffix(window).map(\.raw))
        let startTrimmed = median(history.prefix(window).map(\.trimmed)), endTrimmed = median(history.suffix(window).map(\.trimmed))
        let growth = Double(endRaw - startRaw) / 1024, trimmedGrowth = Double(endTrimmed - startTrimmed) / 1024
        print(String(format: "\nsoak: %d passes, %d replays, %d frames in %.1f min", pass, replays, frames,
                     Bench.seconds(ContinuousClock.now - started) / 60))
        print(String(format: "RSS, median of the first %d passes %.1f MB, of the last %d %.1f MB: growth %+.2f MB (bar < 2 MB: %@)",
                     window, Double(startRaw) / 1024, window, Double(endRaw) / 1024, growth, (growth < 2 ? "pass" : "FAIL") as NSString))
        print(String(format: "after malloc_trim, the same medians: %.1f MB -> %.1f MB: growth %+.2f MB (bar < 2 MB: %@); peak RSS %.1f MB",
                     Double(startTrimmed) / 1024, Double(endTrimmed) / 1024, trimmedGrowth,
                     (trimmedGrowth < 2 ? "pass" : "FAIL") as NSString, Double(Bench.selfStatusKB("VmHWM")) / 1024))
        print(String(format: "single readings after the first pass and at the end: %.1f -> %.1f MB raw (%+.2f), %.1f -> %.1f MB trimmed (%+.2f)",
                     Double(first.raw) / 1024, Double(last.raw) / 1024, Double(last.raw - first.raw) / 1024,
                     Double(first.trimmed) / 1024, Double(last.trimmed) / 1024, Double(last.trimmed - first.trimmed) / 1024))
        // A leak grows without end; warm-up (arenas, caches) levels off. The
        // second half of the run tells them apart: growth per replay there.
        if history.count >= 4 {
            let mid = history[history.count / 2]
            let n = Double(replays - mid.replays)
            print(String(format: "second half (replays %d to %d): raw %+.2f MB, trimmed %+.2f MB: %.2f kB per replay (raw), %.2f kB (trimmed)",
                         mid.replays, replays, Double(last.raw - mid.raw) / 1024, Double(last.trimmed - mid.trimmed) / 1024,
                         Double(last.raw - mid.raw) / n, Double(last.trimmed - mid.trimmed) / n))
        }
    }
}
