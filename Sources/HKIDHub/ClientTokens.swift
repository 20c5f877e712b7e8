import Foundation

/// The clients allowed to call the hub, each with its own bearer token: a
/// file of lines `NAME TOKEN [all]` (`#` starts a comment). A client sees
/// only its own checks; one marked `all` (an operator, a dashboard) sees
/// every client's.
public struct ClientTokens: Sendable {
    public struct Client: Sendable, Equatable {
        public var name: String
        public var seesAll: Bool
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
            guard fields.count == 2 || (fields.count == 3 && fields[2] == "all"), fields[1].count >= 16 else {
                throw HubError(.configuration, "\(path):\(number + 1): expected `NAME TOKEN [all]` with a token of at least 16 characters")
            }
            entries.append((fields[1], Client(name: fields[0], seesAll: fields.count == 3)))
        }
        guard !entries.isEmpty else { throw HubError(.configuration, "\(path): names no client") }
        return ClientTokens(entries)
    }

    /// The client holding `token`, comparing every token in constant time.
    public func client(for token: String) -> Client? {
        var found: Client?
        for (candidate, client) in byToken where Self.constantTimeEqual(candidate, token) { found = client }
        return found
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
