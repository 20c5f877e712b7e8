import ArgumentParser
import Foundation
import HKIDHub
import HKIDLiveness
import HKIDSignature
import Logging
import ServiceLifecycle

/// `hkid-worker`: runs checks from the hub's PostgreSQL queue until SIGTERM,
/// then finishes the checks in hand.
@main
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-worker",
        abstract: "Run liveness checks queued in the hub's PostgreSQL database (docs/hub.md).")

    @Option(help: "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (the password may come from PGPASSWORD).")
    var database: String

    @Option(help: "The Ed25519 private key (PEM or base64) every bundle is signed with; the hub's verifiers hold its public key.")
    var signingKey: String

    @Option(help: "Checks run at the same time in this process (each on its own thread).")
    var concurrency = 1

    @Option(help: "Name in leases and runs (default: host-pid).")
    var name: String?

    @Option(help: "Seconds a claim is held without a heartbeat.")
    var lease: Double = 30

    @Option(help: "Seconds between looks for work when no NOTIFY comes.")
    var poll: Double = 5

    @Option(help: "Seconds before the first retry of a failed attempt (doubling, at most 300).")
    var backoff: Double = 2

    @Option(help: "Where a claimed check's video is copied while it runs.")
    var scratchDirectory: String = NSTemporaryDirectory()

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(HubLogging.levels.joined(separator: ", ")), not '\(logLevel)'")
        }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard lease >= 1, poll > 0, backoff >= 0 else { throw ValidationError("--lease must be at least 1 s, --poll and --backoff positive") }
    }

    func run() async throws {
        HubLogging.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info)  // validated
        let logger = Logger(label: "hkid-worker")
        let url: DatabaseURL
        let signer: ManifestSigner
        do {
            url = try DatabaseURL(database)
            signer = ManifestSigner(privateKey: try KeyFile.readPrivateKey(at: signingKey))
        } catch {
            FileHandle.standardError.write(Data("hkid-worker: \(error)\n".utf8))
            throw ExitCode(2)
        }
        // Checks run side by side on their own threads; OpenCV's pool would only add hand-offs.
        VisionThreads.limit(to: 1)
        let store = PostgresJobStore(client: url.makeClient(logger: logger, maximumConnections: 2 + 2 * concurrency),
                                     logger: logger)
        let baseName = name ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        var services: [any Service] = [PostgresStoreService(store: store, listens: true)]
        let hold = ProcessInfo.processInfo.environment["HKID_WORKER_HOLD_AFTER_CLAIM"].flatMap(Double.init) ?? 0
        services.append(MigrationThenWorkers(store: store, logger: logger, workers: (0..<concurrency).map { index in
            var configuration = WorkerConfiguration(name: concurrency == 1 ? baseName : "\(baseName)-\(index)")
            configuration.lease = .milliseconds(Int64(lease * 1000))
            configuration.poll = .milliseconds(Int64(poll * 1000))
            configuration.backoff = RetryBackoff(base: .milliseconds(Int64(backoff * 1000)))
            configuration.scratchDirectory = scratchDirectory
            configuration.holdAfterClaim = .milliseconds(Int64(hold * 1000))
            return Worker(store: store, runner: CheckRunner(signer: signer), configuration: configuration, logger: logger)
        }))
        logger.notice("worker started", metadata: ["database": "\(url)", "concurrency": "\(concurrency)", "key": "\(signer.keyId)"])
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
    }
}
