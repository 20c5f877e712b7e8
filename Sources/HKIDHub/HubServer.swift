import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Puts the hub behind Hummingbird: the router with the token and error
/// middleware, and the application.
public enum HubServer {
    public static func makeRouter(store: any JobStore, configuration: HubConfiguration,
                                  tokens: ClientTokens) -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: HubErrorMiddleware(retryAfter: configuration.retryAfterSeconds))
        router.add(middleware: ClientTokenMiddleware(tokens: tokens))
        router.get("healthz") { _, _ in "ok\n" }
        router.get("metrics") { _, _ in
            let statistics = try await store.statistics(buckets: HubMetrics.buckets)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(string: HubMetrics.exposition(statistics))))
        }
        ChecksController(store: store, limits: configuration.limits, scratchDirectory: configuration.scratchDirectory)
            .register(on: router)
        return router
    }

    public static func makeApplication(store: any JobStore, configuration: HubConfiguration, logger: Logger,
                                       onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws -> some ApplicationProtocol {
        let tokens = try ClientTokens.read(at: configuration.tokenFile)
        return Application(
            router: makeRouter(store: store, configuration: configuration, tokens: tokens),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "hkid-hub"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}

/// Runs a `PostgresJobStore`'s pool (and LISTEN) as a service of the group.
public struct PostgresStoreService: Service {
    let store: PostgresJobStore
    let listens: Bool

    public init(store: PostgresJobStore, listens: Bool) {
        self.store = store
        self.listens = listens
    }

    public func run() async throws {
        // Listed first in the group, so shut down last: after the server
        // and the workers have written what they had in hand.
        try await cancelWhenGracefulShutdown {
            await store.run(listens: listens)
        }
    }
}
