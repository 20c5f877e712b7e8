import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import HKIDRegression
import Synchronization

/// One replayed file and everything learnt from it.
struct ReplayResult: Sendable {
    var file: String
    var expectation: Expectation?
    var observed: ObservedSession
    var verdict: Verdict?
    var accuracy: Accuracy?
    var events: [LivenessEvent]
    var measurements: [(t: MediaTime, card: CardMeasurement?)]
    var counters: FrameCounters
    var seconds: Double
    /// The input failed before or during decoding (or its expectation could not be read).
    var sourceError: String?

    var passed: Bool { sourceError == nil && (verdict?.matches ?? true) }

    /// The liveness decision of the result that ended the session.
    var liveness: LivenessReport? {
        events.compactMap { if case .result(let r) = $0 { r.liveness } else { nil } }.last
    }

    /// Stills of the last result that carried any (success, overtime), else of result 1.
    var stills: [ResultImage] {
        let results = events.compactMap { if case .result(let r) = $0 { r } else { nil } }
        return results.last(where: { !$0.images.isEmpty })?.images ?? []
    }
}

/// Replays many files in parallel, each with its own pipeline and session,
/// and prints the summary table.
struct BatchReplay {
    let files: [String]
    let options: SessionOptions
    let description: PipelineDescription
    /// Video path → expectation path; nil when not checking.
    let expectations: [String: String]?
    let jobs: Int

    func run() -> [ReplayResult] {
        // Thousands of files mean thousands of decoders: keep their buffers
        // from fragmenting the heap (AllocatorTuning). A single replay skips
        // this: fresh mmaps page-fault, which cost it ~60 ms.
        AllocatorTuning.returnLargeBuffersToTheSystem()
        let slots = Mutex<[ReplayResult?]>(Array(repeating: nil, count: files.count))
        let nextIndex = Atomic<Int>(0)
        let progress = Progress(total: files.count)
        let done = DispatchGroup()
        for _ in 0..<min(jobs, files.count) {
            done.enter()
            Thread.detachNewThread { [files] in
                defer { done.leave() }
                while true {
                    let index = nextIndex.add(1, ordering: .relaxed).oldValue
                    guard index < files.count else { return }
                    let result = replay(files[index])
                    slots.withLock { $0[index] = result }
                    progress.finished(result)
                }
            }
        }
        done.wait()
        progress.close()
        let results = slots.withLock { $0.compactMap { $0 } }
        SummaryTable(results: results, checking: expectations != nil).print()
        return results
    }

    private func replay(_ file: String) -> ReplayResult {
        var expectation: Expectation?
        if let path = expectations?[file] {
            do {
                expectation = try Expectation.load(from: path)
            } catch {
                return .failed(file, reason: "\(path): \(Self.describe(error))")
            }
        }
        let cardType: CardType? = expectation.map { $0.cardType == "2003" ? .hkid2003 : .hkid2018 }
        var configuration = options.configuration(cardType: cardType, overtime: expectation?.overtime)
        configuration.emitsFrameTrace = false
        let session = LivenessSession(configuration: configuration)
        defer { session.close() }
        let outcome: SessionReplay.Outcome
        do {
            outcome = try SessionReplay(session: session).run(try FrameSource(description, input: file))
        } catch {
            return .failed(file, reason: "\(error)")
        }
        let observed = ObservedSession(events: outcome.events, error: outcome.error.map { "\($0)" })
        var accuracy: Accuracy?
        if let truth = expectation?.truth, let size = outcome.frameSize {
            let measured = outcome.measurements.map { m in
                Accuracy.Measured(t: m.t.seconds, corners: m.card.flatMap { $0.found ? $0.corners.map { ($0.x, $0.y) } : nil },
                                  yaw: m.card?.yaw ?? 0, pitch: m.card?.pitch ?? 0)
            }
            accuracy = Accuracy(truth: truth, measured: measured, frameWidth: Double(size.width), frameHeight: Double(size.height))
        }
        return ReplayResult(file: file, expectation: expectation, observed: observed,
                            verdict: expectation.map { Verdict(expectation: $0, observed: observed) },
                            accuracy: accuracy, events: outcome.events, measurements: outcome.measurements,
                            counters: outcome.counters, seconds: outcome.seconds, sourceError: outcome.error.map { "\($0)" })
    }

    private static func describe(_ error: Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.debugDescription
            @unknown default: return "\(decoding)"
            }
        }
        if (error as NSError).domain == NSCocoaErrorDomain { return "cannot be read" }
        return "\(error)"
    }
}

extension ReplayResult {
    static func failed(_ file: String, reason: String) -> ReplayResult {
        ReplayResult(file: file, expectation: nil, observed: ObservedSession(statuses: [], alerts: [], results: [], error: reason),
                     verdict: nil, accuracy: nil, events: [], measurements: [], counters: FrameCounters(), seconds: 0,
                     sourceError: reason)
    }
}

extension ObservedSession {
    init(events: [LivenessEvent], error: String?) {
        var statuses: [String] = [], alerts: [String] = [], results: [(code: Int, t: Double)] = []
        for event in events {
            switch event {
            // VALID belongs to the alerts: it ends an alert episode.
            case .operation(let command) where command.currentStatus.isAlert || command.currentStatus == .valid:
                alerts.append(command.currentStatus.name)
            case .operation(let command): statuses.append(command.currentStatus.name)
            case .result(let result): results.append((result.retCode, result.t.seconds))
            case .frame: break
            }
        }
        self.init(statuses: statuses, alerts: alerts, results: results, error: error)
    }
}
