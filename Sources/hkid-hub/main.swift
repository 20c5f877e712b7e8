import ArgumentParser
import Foundation
import HKIDHub
import HKIDLiveness
import HKIDSignature
import Logging
import ServiceLifecycle

/// `hkid-hub`: the check service's HTTP API over one PostgreSQL database
/// (docs/hub.md); `--embedded` runs SQLite and in-process workers instead.
@main
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-hub",
        abstract: "Serve the check API: uploads queued for hkid-worker processes, results and signed bundles (docs/hub.md).")

    @Option(help: "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (the password may come from PGPASSWORD).")
    var database: String?

    @Option(help: "Run on one machine without PostgreSQL: SQLite in this folder, and workers in this process.")
    var embedded: String?

    @Option(help: "With --embedded: the Ed25519 private key bundles are signed with.")
    var signingKey: String?

    @Option(help: "With --embedded: checks run at the same time.")
    var workers = 1

    @Option(help: "The client token file: lines `NAME TOKEN [all] [webhook-secret=SECRET]`.")
    var tokens: String

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8090

    @Option(help: "Largest video accepted, in MiB; larger uploads get 413.")
    var maxVideoMib: Int64 = 256

    @Option(help: "Claims a check gets before it is failed for good.")
    var maxAttempts = 3

    @Option(help: "Attempts to deliver a check's webhook before giving up.")
    var webhookAttempts = 10

    @Option(help: "Seconds before a webhook's second attempt; doubled after each failure, at most an hour.")
    var webhookBackoff: Double = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(HubLogging.levels.joined(separator: ", ")), not '\(logLevel)'")
        }
        guard (database == nil) != (embedded == nil) else {
            throw ValidationError("give --database postgres://... or --embedded FOLDER, one of them")
        }
        if embedded != nil && signingKey == nil { throw ValidationError("--embedded needs --signing-key (its workers sign bundles)") }
        guard maxVideoMib >= 1, maxAttempts >= 1, workers >= 1, webhookAttempts >= 1 else {
            throw ValidationError("--max-video-mib, --max-attempts, --workers and --webhook-attempts must be at least 1")
        }
        guard webhookBackoff > 0 else { throw ValidationError("--webhook-backoff must be above 0 seconds") }
    }

    func run() async throws {
        HubLogging.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info)  // validated
        let logger = Logger(label: "hkid-hub")
        var configuration = HubConfiguration(tokenFile: tokens)
        configuration.host = host
        configuration.port = port
        configuration.limits.maxVideoBytes = maxVideoMib << 20
        configuration.limits.maxAttempts = maxAttempts
        do {
            var services: [any Service]
            let store: any JobStore
            var loops: [Worker] = []
            if let database {
                let url = try DatabaseURL(database)
                let postgres = PostgresJobStore(client: url.makeClient(logger: logger), logger: logger,
                                                deadline: configuration.databaseDeadline)
                store = postgres
                services = [PostgresStoreService(store: postgres, listens: false)]
            } else {
                let sqlite = try SQLiteJobStore(folder: embedded!)
                let signer = ManifestSigner(privateKey: try KeyFile.readPrivateKey(at: signingKey!))
                VisionThreads.limit(to: 1)
                store = sqlite
                loops = (0..<workers).map { index in
                    var worker = WorkerConfiguration(name: "embedded-\(index)")
                    worker.scratchDirectory = embedded!
                    return Worker(store: sqlite, runner: CheckRunner(signer: signer), configuration: worker, logger: logger)
                }
                services = []
            }
            let log = logger
            let application = try HubServer.makeApplication(store: store, configuration: configuration, logger: logger) { port in
                log.notice("listening", metadata: ["address": "http://\(host):\(port)"])
            }
            var webhooks = WebhookConfiguration(name: "\(ProcessInfo.processInfo.hostName)-\(getpid())")
            webhooks.maxAttempts = webhookAttempts
            webhooks.backoff = RetryBackoff(base: .milliseconds(Int64(webhookBackoff * 1000)), cap: .seconds(3600))
            services.append(WebhookSender(store: store, tokens: try ClientTokens.read(at: tokens), configuration: webhooks,
                                          logger: logger))
            services.append(MigrationThenWorkers(store: store, logger: logger, workers: loops, server: application))
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                          logger: logger))
            try await group.run()
        } catch let error as HubError {
            FileHandle.standardError.write(Data("hkid-hub: \(error)\n".utf8))
            throw ExitCode(2)
        } catch let error as KeyFile.Failure {
            FileHandle.standardError.write(Data("hkid-hub: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
