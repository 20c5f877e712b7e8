import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Puts the station behind Hummingbird: the router (with the token and error
/// middleware), the application, and the service group that runs both.
public enum StationServer {
    /// The router with every route; also what the OpenAPI test inspects.
    public static func makeRouter(station: Station, token: String?) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let allowed = AllowedMethods()
        router.add(middleware: ErrorMappingMiddleware<BasicRequestContext>(allowed: allowed))
        if let token { router.add(middleware: BearerTokenMiddleware<BasicRequestContext>(token: token)) }
        StationRoutes.register(on: router, station: station)
        allowed.load(from: router)
        return router
    }

    /// Reads the token (when configured), builds the station and its server.
    public static func makeApplication(configuration: StationConfiguration, logger: Logger,
                                       onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        throws(StationError) -> (some ApplicationProtocol, Station) {
        try configuration.validate()
        let token = try configuration.tokenFile.map { path throws(StationError) in
            try TokenFile.read(at: path)
        }
        let station = try Station(configuration: configuration, logger: logger)
        let application = Application(
            router: makeRouter(station: station, token: token),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "hkid-station"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        return (application, station)
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully.
    public static func run(configuration: StationConfiguration, logger: Logger) async throws {
        let (application, station) = try makeApplication(configuration: configuration, logger: logger) { port in
            logger.notice("listening", metadata: ["address": "http://\(configuration.host):\(port)"])
        }
        let group = ServiceGroup(configuration: .init(
            services: [application, StationService(station: station)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}
