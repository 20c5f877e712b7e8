import ArgumentParser

/// The exit statuses documented in `hkid-liveness --help` and docs/cli.md.
enum ExitStatus {
    /// A replay's outcome differed from its expectation.
    static let mismatch = ExitCode(1)
    /// An input could not be read or decoded, or a pipeline failed.
    static let inputFailed = ExitCode(2)
}
