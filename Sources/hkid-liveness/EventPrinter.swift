import Foundation
import HKIDLiveness

/// Prints events as they happen: SPEC section 6 JSON lines with `--json`,
/// otherwise one readable line each. stdout carries nothing else.
struct EventPrinter {
    let json: Bool
    let encoder = EventLineEncoder()

    func print(_ event: LivenessEvent, imagePaths: [StillKind: String]) {
        if json {
            Output.line(encoder.line(for: event, imagePaths: imagePaths))
            return
        }
        let time = String(format: "%7.3f s", event.t.seconds)
        switch event {
        case .operation(let command):
            Output.line("\(time)  \(command.currentStatus.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(command.nextOperationHint)")
        case .result(let result):
            let files = imagePaths.keys.sorted().map { imagePaths[$0]! }.joined(separator: ", ")
            let label = result.success ? "success" : "result \(result.retCode) \(result.message)"
            let liveness = result.liveness.map { "  liveness \($0.verdict.rawValue) \(String(format: "%.3f", $0.spoofScore)) (\($0.mode.rawValue))" } ?? ""
            Output.line("\(time)  \(label)\(files.isEmpty ? "" : "  → \(files)")\(liveness)")
        case .frame:
            Output.line(encoder.line(for: event))
        }
    }

    func printEnd(counters: FrameCounters, seconds: Double, liveness: LivenessReport? = nil) {
        if json {
            Output.line(encoder.endLine(counters: counters, seconds: seconds, liveness: liveness))
        } else {
            Output.line(String(format: "%d frames, %d analysed, %d dropped, %.2f s", counters.received, counters.analysed,
                               counters.dropped, seconds))
        }
    }
}

/// stdout and stderr, line-buffered by us: events must reach a pipe reader
/// as they happen, not when a 4 KB buffer fills.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
