/// Why the station refused or failed something, with the HTTP status it maps to.
public struct StationError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case badRequest, notFound, conflict, unavailable, configuration, storage
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
