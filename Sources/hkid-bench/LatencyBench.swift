// LatencyBench.swift — `hkid-bench latency`: live latency from a frame
// leaving the appsink to its event reaching an observer.
//
// The session runs as `hkid-liveness run` runs it: frames offered to a
// `LiveDriver` (not copied, analysed on its own thread, the newest one kept
// when busy), with `emitsFrameTrace` so that every analysed frame produces a
// `.frame` event. Arrival is stamped in FrameSource.run's body, which is
// called right after the pull; delivery in an `onEvent` handler; the two are
// matched by media time (pts minus the first pts, as the session counts it).
// Results are timed the same way, from the frame that decided them: their
// stills are encoded on the delivery queue, after that frame's own event.
import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import Synchronization

struct LatencyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Live latency, appsink to observer, p50/p99, and dropped frames, at 30 fps.")

    @Argument(help: "Files played in real time (default: the 720p samples genuine-2018 and slow-occluded-2018).")
    var files: [String] = []

    @Option(help: "Seconds of the live 720p test pattern to add (0: none).") var testPatternSeconds: Double = 10

    func run() throws {
        Bench.quietLogging
        print(Bench.machineLine)
        var sources: [(name: String, description: PipelineDescription, input: String?, seconds: Double?)] = []
        let inputs = files.isEmpty ? ["samples/genuine-2018.mp4", "samples/slow-occluded-2018.mp4"] : files
        for file in inputs { sources.append(((file as NSString).lastPathComponent, .realtimeFile, file, nil)) }
        if testPatternSeconds > 0 { sources.append(("videotestsrc 1280x720@30 live", .testPattern, nil, testPatternSeconds)) }

        print("\nlatency = event delivered to the observer minus frame pulled from the appsink (ms)")
        print(pad("source", 34) + pad("size", 10) + pad("pulled", 8) + pad("analysed", 10) + pad("dropped", 9)
              + pad("gaps", 6) + pad("p50", 8) + pad("p99", 8) + pad("max", 8) + "results (code: ms)")
        for source in sources {
            let r = try measure(source.description, input: source.input, seconds: source.seconds)
            print(pad(source.name, 34) + pad(r.size, 10) + pad("\(r.pulled)", 8) + pad("\(r.analysed)", 10)
                  + pad("\(r.dropped)", 9) + pad("\(r.gaps)", 6)
                  + pad(Bench.fmt(Bench.percentile(r.latencies, 0.5), 2), 8)
                  + pad(Bench.fmt(Bench.percentile(r.latencies, 0.99), 2), 8)
                  + pad(Bench.fmt(r.latencies.max() ?? .nan, 2), 8)
                  + r.results.map { "\($0.code): \(Bench.fmt($0.ms, 2))" }.joined(separator: ", "))
        }
        print("""

            pulled: frames out of the appsink; analysed: frames the session analysed; dropped: frames \
            the live driver replaced while the analysis was busy; gaps: frames missing upstream (pts jumps of \
            more than 1.5 frame durations: the leaky queue dropped them before the appsink); results: \
            from the deciding frame's pull to the result, stills encoded, reaching the observer. \
            Target p99 <= 10 ms.
            """)
    }

    struct Result {
        var size = "", pulled = 0, analysed = 0, dropped = 0, gaps = 0
        var latencies: [Double] = []
        var results: [(code: Int, ms: Double)] = []
    }

    private func measure(_ description: PipelineDescription, input: String?, seconds: Double?) throws -> Result {
        var configuration = LivenessConfiguration()
        configuration.emitsFrameTrace = true
        configuration.overtimeSeconds = 3600  // the session must outlive the source
        let session = LivenessSession(configuration: configuration)
        let source = try FrameSource(description, input: input, stallTimeout: nil)
        let stop = source.stopSignal

        // Arrival instants by media time, written on the pull thread and read
        // on the delivery queue.
        let arrivals = Mutex<[Int64: ContinuousClock.Instant]>([:])
        let latencies = Mutex<[Double]>([])
        let results = Mutex<[(code: Int, ms: Double)]>([])
        let token = session.onEvent { event in
            let now = ContinuousClock.now
            switch event {
            case .frame(let trace):
                if let arrived = arrivals.withLock({ $0[trace.t.nanoseconds] }) {
                    latencies.withLock { $0.append(Bench.seconds(now - arrived) * 1000) }
                }
            case .result(let result):
                if let arrived = arrivals.withLock({ $0[result.t.nanoseconds] }) {
                    results.withLock { $0.append((result.code.rawValue, Bench.seconds(now - arrived) * 1000)) }
                }
                if result.code.endsSession { stop.stop() }
            default: break
            }
        }
        let driver = LiveDriver(session: session)
        let analysis = Thread { driver.run() }
        session.startDetect()
        analysis.start()
        var result = Result()
        var firstPTS: Int64?, lastPTS: Int64?
        let started = ContinuousClock.now
        try source.run { frame in
            let arrived = ContinuousClock.now
            let origin = firstPTS ?? frame.pts
            firstPTS = origin
            arrivals.withLock { $0[frame.pts - origin] = arrived }
            if let last = lastPTS, frame.duration > 0, frame.pts - last > frame.duration * 3 / 2 {
                result.gaps += Int((frame.pts - last) / frame.duration) - 1
            }
            lastPTS = frame.pts
            result.pulled += 1
            result.size = "\(frame.width)x\(frame.height)"
            driver.offer(frame)
            if let seconds, Bench.seconds(ContinuousClock.now - started) > seconds { stop.stop() }
        }
        driver.finish()
        session.waitUntilIdle()
        session.removeHandler(token)
        let counters = driver.counters
        session.close()
        result.analysed = counters.analysed
        result.dropped = counters.dropped
        result.latencies = latencies.withLock { $0 }
        result.results = results.withLock { $0 }
        return result
    }

    private func pad(_ s: String, _ width: Int) -> String { s.padding(toLength: max(width, s.count + 1), withPad: " ", startingAt: 0) }
}
