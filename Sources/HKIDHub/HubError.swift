import Foundation

/// Something the hub or a worker could not do, with the kind that decides
/// the HTTP status and a one-line message naming what and why.
public struct HubError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The request itself is wrong (400).
        case badRequest
        case notFound
        /// The client's token does not reach what it asked for (403).
        case forbidden
        /// The upload is larger than the configured limit (413).
        case tooLarge
        /// The database cannot be reached; the client should retry later (503).
        case unavailable
        case configuration
        case storage
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
