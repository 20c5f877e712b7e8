import Foundation
import HKIDSignature

/// The clients allowed to call the hub, each with its own bearer token: a
/// file of lines `NAME TOKEN [all] [webhook-secret=SECRET]` (`#` starts a
/// comment). A client sees only its own checks; one marked `all` (an
/// operator, a dashboard) sees every client's. A client with a webhook
/// secret may ask for webhooks, signed with it (`WebhookSignature`).
public struct ClientTokens: Sendable {
    public struct Client: Sendable, Equatable {
        public var name: String
        public var seesAll: Bool
        /// Signs this client's webhooks; nil: the client cannot ask for them.
        public var webhookSecret: String?

        public init(name: String, seesAll: Bool, webhookSecret: String? = nil) {
            self.name = name
            self.seesAll = seesAll
            self.webhookSecret = webhookSecret
        }
    }

    let byToken: [String: Client]

    public init(_ entries: [(token: String, client: Client)]) {
        byToken = Dictionary(entries.map { ($0.token, $0.client) }, uniquingKeysWith: { first, _ in first })
    }

    public static func read(at path: String) throws -> ClientTokens {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw HubError(.configuration, "\(path): the token file cannot be read")
        }
        var entries: [(String, Client)] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            if fields.isEmpty { continue }
            let options = fields.dropFirst(2)
            let secret = options.first { $0.hasPrefix("webhook-secret=") }.map { String($0.dropFirst("webhook-secret=".count)) }
            guard fields.count >= 2, fields[1].count >= 16,
                  options.allSatisfy({ $0 == "all" || $0.hasPrefix("webhook-secret=") }), (secret?.count ?? 16) >= 16 else {
                throw HubError(.configuration, "\(path):\(number + 1): expected `NAME TOKEN [all] [webhook-secret=SECRET]` with a token and secret of at least 16 characters")
            }
            entries.append((fields[1], Client(name: fields[0], seesAll: options.contains("all"), webhookSecret: secret)))
        }
        guard !entries.isEmpty else { throw HubError(.configuration, "\(path): names no client") }
        return ClientTokens(entries)
    }

    /// The webhook secret of the client named `name`.
    public func webhookSecret(ofClient name: String) -> String? {
        byToken.values.first { $0.name == name }?.webhookSecret
    }

    /// The client holding `token`, comparing every token in constant time.
    public func client(for token: String) -> Client? {
        var found: Client?
        for (candidate, client) in byToken where ConstantTime.equal(candidate, token) { found = client }
        return found
    }
}
