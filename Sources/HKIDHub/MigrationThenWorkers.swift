import Logging
import ServiceLifecycle

/// Migrates the schema (retrying while the database is unreachable), then
/// runs the worker loops and the HTTP server (if any) until graceful
/// shutdown, when each worker finishes the check in hand. The server starts
/// listening only once the tables exist.
public struct MigrationThenWorkers: Service {
    let store: any JobStore
    let logger: Logger
    let workers: [Worker]
    let server: (any Service)?

    public init(store: any JobStore, logger: Logger, workers: [Worker], server: (any Service)? = nil) {
        self.store = store
        self.logger = logger
        self.workers = workers
        self.server = server
    }

    public func run() async throws {
        var delay = Duration.milliseconds(200)
        while true {
            do {
                try await store.migrate()
                break
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("cannot migrate the schema; retrying", metadata: ["error": "\(String(reflecting: error))", "in": "\(delay)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { try await worker.run() } }
            if let server { group.addTask { try await server.run() } }
            try await group.waitForAll()
        }
    }
}
