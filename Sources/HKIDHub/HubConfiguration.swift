import Foundation

/// Everything `hkid-hub` is started with.
public struct HubConfiguration: Sendable {
    public struct Limits: Sendable {
        /// Largest video accepted; a larger upload is answered 413 and nothing is kept.
        public var maxVideoBytes: Int64 = 256 << 20
        /// Claims a check gets before it is failed for good.
        public var maxAttempts = 3

        public init() {}
    }

    public var host = "127.0.0.1"
    public var port = 8090
    /// The client token file (`ClientTokens`).
    public var tokenFile: String
    public var limits = Limits()
    /// Where bundles are assembled before they are sent (deleted after).
    public var scratchDirectory = NSTemporaryDirectory()
    /// How long a request waits for the database before 503.
    public var databaseDeadline: Duration = .seconds(3)
    /// Retry-After, seconds, on a 503.
    public var retryAfterSeconds = 5

    public init(tokenFile: String) {
        self.tokenFile = tokenFile
    }
}
