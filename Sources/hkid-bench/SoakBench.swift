// SoakBench.swift — `hkid-bench soak`: the sample library replayed in a loop
// in this process, a new LivenessSession and FrameSource per file as a user
// (or a batch tool) would, to show memory does not grow with use.
//
// The baseline is taken after the first full pass, when every lazy one-time
// allocation (GStreamer plugin registry, decoders' tables, OpenCV's cascade
// and thread pool) has happened. The bar: RSS grows < 2 MB from there.
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
        Bench.quietLogging
        print(Bench.machineLine)
        let inputs = files.isEmpty ? Bench.defaultSamples() : files
        guard !inputs.isEmpty else { throw BenchError("no input files") }
        let started = ContinuousClock.now
        let deadline = started + .seconds(minutes * 60)
        var pass = 0, frames = 0, replays = 0
        var warm: Int?
        print("pass  minutes  replays  frames    RSS_MB")
        repeat {
            for file in inputs {
                let session = LivenessSession(configuration: LivenessConfiguration())
                let source = try FrameSource(.replay, input: file)
                let outcome = try SessionReplay(session: session).run(source)
                session.close()
                if let error = outcome.error { throw BenchError("\(error)") }
                frames += outcome.counters.received
                replays += 1
            }
            pass += 1
            let rss = Bench.selfStatusKB("VmRSS")
            if warm == nil { warm = rss }
            let elapsed = Bench.seconds(ContinuousClock.now - started) / 60
            print(String(format: "%4d  %7.2f  %7d  %6d  %8.1f", pass, elapsed, replays, frames, Double(rss) / 1024))
            fflush(nil)
        } while ContinuousClock.now < deadline
        let end = Bench.selfStatusKB("VmRSS")
        let growthMB = Double(end - warm!) / 1024
        print(String(format: "\nsoak: %d passes, %d replays, %d frames in %.1f min; RSS warm %.1f MB, end %.1f MB, growth %+.2f MB (bar < 2 MB): %@; peak RSS %.1f MB",
                     pass, replays, frames, Bench.seconds(ContinuousClock.now - started) / 60,
                     Double(warm!) / 1024, Double(end) / 1024, growthMB, (growthMB < 2 ? "PASS" : "FAIL") as NSString,
                     Double(Bench.selfStatusKB("VmHWM")) / 1024))
    }
}
