import Foundation

/// A session's name: 128 random bits as 32 lowercase hex digits.
///
/// Ids come back in URLs and become directory names, so anything from a
/// request is checked against the exact pattern before it touches the store
/// or the file system; nothing else can name a directory.
public struct SessionID: Hashable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: String

    /// Validates; nil for anything that is not exactly 32 lowercase hex digits.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == 32, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        rawValue = String(text)
    }

    /// A fresh random id from the system's CSPRNG.
    public static func random() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        let text = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        return SessionID(text)!
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = SessionID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a session id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
