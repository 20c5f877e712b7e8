import Logging
import ServiceLifecycle

/// Migrates the schema (retrying while the database is unreachable), then
/// runs the worker loops until graceful shutdown, when each finishes the
/// check in hand.
public struct MigrationThenWorkers: Service {
    let store: any JobStore
    let logger: Logger
    let workers: [Worker]

    public init(store: any JobStore, logger: Logger, workers: [Worker]) {
        self.store = store
        self.logger = logger
        self.workers = workers
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
            try await group.waitForAll()
        }
        // A hub without workers: stay in the group until it shuts down.
        if workers.isEmpty { try? await gracefulShutdown() }
    }
}
