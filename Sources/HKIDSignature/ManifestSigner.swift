import Crypto
import Foundation

/// Signs manifests with a station's private key.
///
/// Holds the raw key bytes rather than Crypto's key type, which is not
/// `Sendable` on Linux, so a signer can be shared by the server's tasks.
public struct ManifestSigner: Sendable {
    private let privateKeyBytes: Data

    public init(privateKey: Curve25519.Signing.PrivateKey) {
        privateKeyBytes = privateKey.rawRepresentation
    }

    private var privateKey: Curve25519.Signing.PrivateKey {
        // The bytes came from a valid key; they cannot fail to load.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: privateKeyBytes)
    }

    public var publicKey: Curve25519.Signing.PublicKey { privateKey.publicKey }
    public var keyId: String { publicKey.keyId }

    /// The base64 Ed25519 signature of exactly `bytes`.
    public func signature(of bytes: Data) throws -> String {
        try privateKey.signature(for: bytes).base64EncodedString()
    }
}
