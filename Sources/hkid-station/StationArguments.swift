import ArgumentParser
import HKIDLiveness
import HKIDStation
import Logging

// The values of hkid-station's enumerated flags. Parsed by argument-parser,
// so a bad value is refused before anything starts, with the list of good
// ones (exit 64), instead of a hand-written check or a silent default.

/// `--source`: where the camera's frames come from.
enum SourceArgument: String, ExpressibleByArgument, CaseIterable {
    case webcam, file, testPattern = "test-pattern", pipeline

    var kind: StationConfiguration.SourceKind {
        switch self {
        case .webcam: .webcam
        case .file: .file
        case .testPattern: .testPattern
        case .pipeline: .pipeline
        }
    }
}

/// `--record-mode`: also takes the SDK's `ALL_Save_Video` (as the YAML file
/// does), without listing it among the values.
struct RecordModeArgument: ExpressibleByArgument {
    var mode: RecordMode

    init?(argument: String) {
        guard let mode = RecordMode(configValue: argument) else { return nil }
        self.mode = mode
    }

    static var allValueStrings: [String] { RecordMode.allCases.map(\.rawValue) }
}

// `--liveness` and `--challenge` take the library's own enums: their raw
// values are what the user types (enforce, report; fixed, random).
extension LivenessMode: ExpressibleByArgument {}
extension Challenge: ExpressibleByArgument {}

/// `--log-level`: swift-log's levels.
enum LogLevelArgument: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
