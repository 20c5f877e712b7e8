import ArgumentParser
import Foundation
import HKIDLiveness

@main
struct HKIDLivenessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-liveness",
        abstract: "Checks on video that a real Hong Kong identity card is held and turned as instructed.",
        discussion: """
            Exit status: 0 when the video was analysed (whatever the liveness result), \
            1 when a replay did not match its expectation, 2 when an input or pipeline failed, \
            64 for a malformed command line.
            """,
        version: "hkid-liveness \(LivenessSession.version)",
        subcommands: [ReplayCommand.self, RunCommand.self, VerifyCommand.self])

    /// Like ArgumentParser's own `main`, except that a malformed command line
    /// gets one line on stderr (`hkid-liveness: --overtime must be …`) rather
    /// than the message plus a usage block: scripts and logs read one line.
    static func main() {
        let command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            reportAndExit(error)
        }
        do {
            var runnable = command
            try runnable.run()
        } catch {
            reportAndExit(error)
        }
    }

    private static func reportAndExit(_ error: Error) -> Never {
        let code = exitCode(for: error)
        // Help, --version and clean exits print as ArgumentParser intends.
        if code == .success || error is ExitCode { exit(withError: error) }
        let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        FileHandle.standardError.write(Data("hkid-liveness: \(message)\n".utf8))
        Foundation.exit(code.rawValue)
    }
}
