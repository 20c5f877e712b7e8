import Foundation
import Logging
import PostgresNIO

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, the one way hubs and
/// workers are pointed at PostgreSQL. The password may instead come from
/// `PGPASSWORD`, to keep it out of process listings. TLS is off: use a
/// private network or a local socket tunnel.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""),
              let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty else {
            throw HubError(.configuration, "--database \(text): expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        self.host = host
        port = url.port ?? 5432
        self.user = user
        password = url.password ?? environment["PGPASSWORD"]
        let name = url.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        database = name.isEmpty ? user : name
    }

    /// Without the password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    public func makeClient(logger: Logger, maximumConnections: Int = 20) -> PostgresClient {
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database, tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(3)
        // The pool logs every failed connection attempt at info; the store's
        // own retry messages say it once per attempt of ours.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        return PostgresClient(configuration: configuration, backgroundLogger: background)
    }
}
