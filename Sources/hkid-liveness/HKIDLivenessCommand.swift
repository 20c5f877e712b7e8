import ArgumentParser
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
        subcommands: [ReplayCommand.self, RunCommand.self])
}
