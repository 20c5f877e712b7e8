import Logging

/// The log of `hkid-hub` and `hkid-worker`: standard error at `level`, the
/// sessions' own step-by-step log at warning at most (a check's steps are
/// in its events).
public enum HubLogging {
    /// The levels `--log-level` takes, as Logger names them.
    public static let levels = Logger.Level.allCases.map(\.rawValue)

    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = label.hasPrefix("hkid.liveness") ? max(level, .warning) : level
            return handler
        }
    }
}
