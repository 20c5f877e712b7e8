import Crypto
import Foundation

/// Reading and writing Ed25519 keys as files.
///
/// Two spellings are accepted on input, so keys can come from OpenSSL or be
/// pasted by hand:
/// - PEM: `-----BEGIN PRIVATE KEY-----` (PKCS#8, what `openssl genpkey -algorithm ed25519`
///   writes) or `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo, `openssl pkey -pubout`);
/// - raw: the 32 key bytes in base64 on one line (surrounding whitespace ignored).
///
/// Output is always PEM. Ed25519's DER wrappers are fixed byte prefixes
/// (RFC 8410), so no ASN.1 library is needed.
public enum KeyFile {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// RFC 8410 PrivateKeyInfo for Ed25519, up to the 32 key bytes.
    static let pkcs8Prefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                                       0x04, 0x22, 0x04, 0x20]
    /// RFC 8410 SubjectPublicKeyInfo for Ed25519, up to the 32 key bytes.
    static let spkiPrefix: [UInt8] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]

    public static func readPrivateKey(at path: String) throws(Failure) -> Curve25519.Signing.PrivateKey {
        let raw = try keyBytes(at: path, label: "PRIVATE KEY", derPrefix: pkcs8Prefix)
        do { return try Curve25519.Signing.PrivateKey(rawRepresentation: raw) } catch {
            throw Failure(path: path, reason: "not an Ed25519 private key")
        }
    }

    public static func readPublicKey(at path: String) throws(Failure) -> Curve25519.Signing.PublicKey {
        let raw = try keyBytes(at: path, label: "PUBLIC KEY", derPrefix: spkiPrefix)
        do { return try Curve25519.Signing.PublicKey(rawRepresentation: raw) } catch {
            throw Failure(path: path, reason: "not an Ed25519 public key")
        }
    }

    public static func pem(privateKey: Curve25519.Signing.PrivateKey) -> String {
        pem(label: "PRIVATE KEY", der: pkcs8Prefix + privateKey.rawRepresentation)
    }

    public static func pem(publicKey: Curve25519.Signing.PublicKey) -> String {
        pem(label: "PUBLIC KEY", der: spkiPrefix + publicKey.rawRepresentation)
    }

    /// Parses PEM (with the given label) or raw base64 into the 32 key bytes.
    public static func keyBytes(in text: String, label: String, derPrefix: [UInt8]) -> Data? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN ") {
            let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
            guard let start = trimmed.range(of: begin), let stop = trimmed.range(of: end),
                  start.upperBound <= stop.lowerBound else { return nil }
            let body = trimmed[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), der.count == derPrefix.count + 32,
                  der.prefix(derPrefix.count).elementsEqual(derPrefix) else { return nil }
            return der.suffix(32)
        }
        guard let raw = Data(base64Encoded: trimmed), raw.count == 32 else { return nil }
        return raw
    }

    private static func keyBytes(at path: String, label: String, derPrefix: [UInt8]) throws(Failure) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(path: path, reason: "cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8),
              let raw = keyBytes(in: text, label: label, derPrefix: derPrefix) else {
            throw Failure(path: path, reason: "not a PEM \(label.lowercased()) or 32 base64-encoded Ed25519 key bytes")
        }
        return raw
    }

    private static func pem(label: String, der: some Sequence<UInt8>) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
    }
}

/// Crypto's Ed25519 public key type, so tools using HKIDSignature need not import Crypto.
public typealias Curve25519PublicKey = Curve25519.Signing.PublicKey
