import Foundation
import Logging
import Synchronization
@testable import HKIDLiveness

/// Stands in for the tracker's still: like the shim, it keeps a still once a
/// front-on card has been seen, and encodes it as recognisable bytes.
final class StandInStills: StillProvider {
    private var keptAt: MediaTime?

    func consider(_ measurement: CardMeasurement, at t: MediaTime) {
        if measurement.found, abs(measurement.yaw) < 10, abs(measurement.pitch) < 10, keptAt == nil {
            keptAt = t
        }
    }

    func takeStill() -> (any KeptStill)? {
        keptAt.map(Kept.init)
    }

    struct Kept: KeptStill {
        let t: MediaTime
        func encode(_ kind: StillKind) -> Data? { Data("\(kind)@\(t.nanoseconds)".utf8) }
    }

    func reset() { keptAt = nil }
}

extension LivenessConfiguration {
    static func english(_ cardType: CardType = .hkid2018, _ adjust: (inout LivenessConfiguration) -> Void = { _ in }) -> LivenessConfiguration {
        var configuration = LivenessConfiguration(cardType: cardType)
        configuration.language = .en
        adjust(&configuration)
        return configuration
    }
}

/// A session fed with measurements only, with stand-in stills.
func makeSession(_ configuration: LivenessConfiguration = .english()) -> LivenessSession {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return LivenessSession(configuration: configuration, logger: logger, stills: StandInStills())
}

extension LivenessSession {
    /// Feeds every frame of the script and returns the events they caused.
    @discardableResult
    func play(_ script: MeasurementScript) -> [LivenessEvent] {
        script.frames.flatMap { process($0.card, at: $0.pts).events }
    }
}

/// One event as a short, exact string: "ORTH@0.3", "result1@0.3".
func summary(_ event: LivenessEvent) -> String {
    let t = JSONText.number(event.t.seconds, decimals: 3)
    switch event {
    case .operation(let command): return "\(command.currentStatus.name)@\(t)"
    case .result(let result): return "result\(result.retCode)@\(t)"
    case .frame: return "frame@\(t)"
    }
}

func summaries(_ events: [LivenessEvent]) -> [String] {
    events.map(summary)
}

/// startDetect, then the script: the full event sequence.
func run(_ script: MeasurementScript, _ configuration: LivenessConfiguration = .english()) -> [String] {
    let session = makeSession(configuration)
    return summaries(session.startDetect() + session.play(script))
}

/// Records what an observer was told, and whether two callbacks ever overlapped.
final class RecordingObserver: LivenessObserver {
    private struct Record {
        var events: [String] = []
        var inCallback = false
        var overlapped = false
    }

    private let record = Mutex(Record())
    private let delay: Duration

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    var events: [String] { record.withLock { $0.events } }
    var overlapped: Bool { record.withLock { $0.overlapped } }

    private func called(_ line: String) {
        record.withLock { record in
            if record.inCallback { record.overlapped = true }
            record.inCallback = true
        }
        if delay > .zero { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
        record.withLock { record in
            record.events.append(line)
            record.inCallback = false
        }
    }

    func didUpdateOperationCommand(_ command: OperationCommand) {
        called(summary(.operation(command)))
    }

    func didDetectResult(_ result: LivenessResult) {
        called(summary(.result(result)))
    }
}
