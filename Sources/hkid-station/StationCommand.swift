import ArgumentParser
import Foundation
import HKIDMedia
import HKIDLiveness
import HKIDStation
import Logging

/// `hkid-station`: reads the configuration file, lays the flags over it and
/// runs the station until SIGTERM. Everything else lives in HKIDStation.
@main
struct StationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-station",
        abstract: "The HKID liveness recording station daemon (see docs/station.md).")

    @Option(name: .long, help: "YAML configuration file.")
    var config: String?

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1; anything else needs --token-file).")
    var host: String?

    @Option(name: .long, help: "Port to listen on (default 8470; 0 picks a free one).")
    var port: Int?

    @Option(name: .long, help: "Data directory (index, keys, sessions).")
    var dataDirectory: String?

    @Option(name: .long, help: "File with the bearer token clients must send.")
    var tokenFile: String?

    @Option(name: .long, help: "Ed25519 signing key (PEM or raw base64); created in the data directory when absent.")
    var signingKey: String?

    @Option(name: .long, help: "Video source: webcam, file, test-pattern or pipeline.")
    var source: SourceArgument?

    @Option(name: .long, help: "Camera device for --source webcam.")
    var device: String?

    @Option(name: .long, help: "Video file for --source file (played at real-time speed).")
    var file: String?

    @Option(name: .long, help: "gst-launch fragment ending in raw video for --source pipeline.")
    var pipeline: String?

    @Flag(name: .long, help: "With --source file: start the file from the beginning at each session.")
    var restartFileOnSession = false

    @Option(name: .long, help: "whole-session (ALL_Save_Video), after-first or none.")
    var recordMode: RecordModeArgument?

    @Option(name: .long, help: "Liveness checks: enforce (a copy or a screen ends the session with result 5 spoof) or report (verdict recorded only).")
    var liveness: LivenessMode?

    @Option(name: .long, help: "Rotations asked for: random (first direction drawn per session; for live counters) or fixed (the SDK's; for a file source).")
    var challenge: Challenge?

    @Option(name: .long, help: "Hub to upload each sealed session to (e.g. http://hub:8090); needs --hub-token-file.")
    var hubUrl: String?

    @Option(name: .long, help: "File with this station's bearer token on the hub.")
    var hubTokenFile: String?

    @Option(name: .long, help: "Log level.")
    var logLevel: LogLevelArgument = .info

    /// Like ArgumentParser's own `main`, except that a malformed command line
    /// gets one line on stderr (`hkid-station: The value 'loud' is invalid …`)
    /// rather than the message plus a usage block: journald shows one line.
    static func main() async {
        var command: StationCommand
        do {
            command = try parse()
            try await command.run()
        } catch {
            let code = exitCode(for: error)
            // Help and the exits run() chose print as ArgumentParser intends.
            if code == .success || error is ExitCode { exit(withError: error) }
            // A long list of values comes as "one of the following:" and an
            // indented "- value" line each; those are folded into the line.
            let lines = self.message(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            var message = lines.first ?? "\(error)"
            let values = lines.dropFirst().prefix { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
            if message.hasSuffix(":"), !values.isEmpty { message += " " + values.joined(separator: ", ") }
            FileHandle.standardError.write(Data("hkid-station: \(message)\n".utf8))
            Foundation.exit(code.rawValue)
        }
    }

    func run() async throws {
        // Session files are personal data: nothing this process creates is
        // readable by anyone else, whatever the library forgets to chmod.
        umask(0o077)
        // A daemon that starts an encoder per session must hand large
        // buffers back, or its RSS creeps up all day (see AllocatorTuning).
        AllocatorTuning.returnLargeBuffersToTheSystem()
        var settings = StationConfiguration()
        if let config {
            do { settings = try StationConfiguration(yamlFile: config) } catch {
                FileHandle.standardError.write(Data("hkid-station: \(error.message)\n".utf8))
                throw ExitCode(78)
            }
        }
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let dataDirectory { settings.dataDirectory = dataDirectory }
        if let tokenFile { settings.tokenFile = tokenFile }
        if let signingKey { settings.signingKeyFile = signingKey }
        if let source { settings.source = source.kind }
        if let device { settings.device = device }
        if let file { settings.file = file }
        if let pipeline { settings.pipeline = pipeline }
        if restartFileOnSession { settings.restartFileOnSession = true }
        if let recordMode { settings.recordMode = recordMode.mode }
        if let liveness { settings.liveness = liveness }
        if let hubUrl { settings.hubURL = hubUrl }
        if let hubTokenFile { settings.hubTokenFile = hubTokenFile }
        if let challenge { settings.challenge = challenge }
        let level = logLevel.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "hkid.station")
        do {
            try await StationServer.run(configuration: settings, logger: logger)
        } catch let error as StationError {
            logger.critical("\(error.message)")
            throw ExitCode(78)  // EX_CONFIG: systemd should not restart-loop on it
        }
    }
}
