// ReplayBench.swift — `hkid-bench replay`: replay throughput against the
// physical limit, decoding alone.
//
// Two comparisons, each interleaved (A B A B ...) in the same run so that a
// noisy neighbour slows both sides alike:
//   - subprocesses: `hkid-liveness replay FILE --json [--card T] > /dev/null` against
//     `gst-launch-1.0 -q filesrc ! decodebin ! fakesink sync=false`;
//   - in process: FrameSource over the replay pipeline with no analysis
//     against SessionReplay (analysis), which takes process start-up out.
import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline

struct ReplayBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay wall time against decode-only wall time, per file and overall.")

    @Argument(help: "MP4 files (default: every samples/*.mp4).")
    var files: [String] = []

    @Option(help: "Interleaved rounds per file.") var rounds: Int = 7
    @Option(help: "The hkid-liveness binary.") var binary: String = Bench.defaultBinary
    @Flag(help: "Skip the in-process comparison.") var noInProcess = false
    @Flag(help: "Only the in-process comparison.") var onlyInProcess = false
    @Option(help: "In process: this gst-launch description instead of the built-in replay pipeline (to try queue, max-buffers or decoder settings).")
    var pipeline: String?

    var description: PipelineDescription {
        pipeline.map { PipelineDescription(text: $0, origin: "--pipeline") } ?? .replay
    }

    func run() throws {
        Bench.quietLogging
        print(Bench.machineLine)
        let inputs = files.isEmpty ? Bench.defaultSamples() : files
        guard !inputs.isEmpty else { throw BenchError("no input files") }
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("\(binary) is not built; run `swift build -c release --product hkid-liveness`")
        }

        if !onlyInProcess { try subprocesses(inputs) }
        guard !noInProcess else { return }
        try inProcess(inputs)
    }

    private func subprocesses(_ inputs: [String]) throws {
        print("\nsubprocess wall time, median of \(rounds) interleaved rounds (s)")
        print(pad("file", 34) + pad("size", 10) + pad("replay", 8) + pad("decode", 8) + "ratio")
        var replayTotal = 0.0, decodeTotal = 0.0, ratios: [Double] = [], ratios720: [Double] = []
        var sizes: [String: (Int, Int)] = [:]
        for file in inputs {
            let size = try frameSize(file)
            sizes[file] = size
            var replay: [Double] = [], decode: [Double] = []
            let card = Bench.cardType(of: file).map { ["--card", $0.rawValue] } ?? []
            for _ in 0..<rounds {
                let a = try Bench.runChild([binary, "replay", file, "--json"] + card)
                guard a.status == 0 || a.status == 2 else { throw BenchError("\(file): hkid-liveness exit \(a.status)") }
                replay.append(a.seconds)
                let b = try Bench.runChild(["gst-launch-1.0", "-q", "filesrc", "location=\(file)", "!", "decodebin", "!",
                                            "fakesink", "sync=false"])
                guard b.status == 0 else { throw BenchError("\(file): gst-launch exit \(b.status)") }
                decode.append(b.seconds)
            }
            let r = Bench.median(replay), d = Bench.median(decode)
            replayTotal += r
            decodeTotal += d
            ratios.append(r / d)
            if size.1 >= 720 { ratios720.append(r / d) }
            print(pad(short(file), 34) + pad("\(size.0)x\(size.1)", 10) + pad(Bench.fmt(r), 8) + pad(Bench.fmt(d), 8) + Bench.fmt(r / d, 2))
        }
        print("overall: sum of medians \(Bench.fmt(replayTotal)) s vs \(Bench.fmt(decodeTotal)) s, ratio \(Bench.fmt(replayTotal / decodeTotal, 2)); median per-file ratio \(Bench.fmt(Bench.median(ratios), 2))")
        if !ratios720.isEmpty {
            print("720p: median ratio \(Bench.fmt(Bench.median(ratios720), 2)) (target <= 1.15)")
        }
    }

    private func inProcess(_ inputs: [String]) throws {
        print("\nin process, median of \(rounds) interleaved rounds (ms): decode = FrameSource over the replay pipeline, nothing done with the frames; analysis = SessionReplay")
        print(pad("file", 34) + pad("frames", 8) + pad("decode", 9) + pad("analysis", 10) + pad("ratio", 7) + "analysis ms/frame over decode")
        for file in inputs {
            var decode: [Double] = [], analysis: [Double] = [], frames = 0
            let configuration = Bench.configuration(for: file)
            for _ in 0..<rounds {
                // Analysis first, as the CLI runs it (it stops once the session
                // has ended); then decode-only over the same number of frames.
                let started = ContinuousClock.now
                let session = LivenessSession(configuration: configuration)
                let outcome = try SessionReplay(session: session).run(try FrameSource(description, input: file))
                session.close()
                analysis.append(Bench.seconds(ContinuousClock.now - started))
                frames = outcome.counters.received

                let started2 = ContinuousClock.now
                let source = try FrameSource(description, input: file)
                var count = 0
                do {
                    try source.run { _ in
                        count += 1
                        if count >= frames { source.stopSignal.stop() }
                    }
                } catch let error as MediaError where error.reason.contains("truncated") {}
                decode.append(Bench.seconds(ContinuousClock.now - started2))
            }
            let d = Bench.median(decode), a = Bench.median(analysis)
            print(pad(short(file), 34) + pad("\(frames)", 8) + pad(Bench.fmt(d * 1000, 0), 9) + pad(Bench.fmt(a * 1000, 0), 10)
                  + pad(Bench.fmt(a / d, 2), 7) + Bench.fmt((a - d) * 1000 / Double(max(frames, 1)), 2))
        }
    }

    private func frameSize(_ file: String) throws -> (Int, Int) {
        let source = try FrameSource(description, input: file)
        var size = (0, 0)
        try source.run { frame in
            size = (frame.width, frame.height)
            source.stopSignal.stop()
        }
        return size
    }

    private func short(_ file: String) -> String { (file as NSString).lastPathComponent }
    private func pad(_ s: String, _ width: Int) -> String { s.padding(toLength: max(width, s.count + 1), withPad: " ", startingAt: 0) }
}
