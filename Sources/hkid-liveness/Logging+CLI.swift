import ArgumentParser
import Logging

/// Logs go to stderr (stdout is the event stream). Quiet by default: a
/// user of `replay --json` wants events, not the session's diary.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what the session decides and why (-vv for every frame).")
    var verbose: Int

    func bootstrap() {
        // The per-frame log is at .trace, so -vv must reach it (.debug
        // alone showed nothing more than -v).
        let level: Logger.Level = switch verbose {
        case 0: .warning
        case 1: .info
        default: .trace
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
