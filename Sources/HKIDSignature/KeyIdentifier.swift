import Crypto
import Foundation

extension Curve25519.Signing.PublicKey {
    /// A short name for the key that a manifest records: the first 16 hex
    /// digits of the SHA-256 of the raw public key. It lets a verifier say
    /// "signed by another station" instead of just "bad signature".
    public var keyId: String {
        String(FileDigest.hex(SHA256.hash(data: rawRepresentation)).prefix(16))
    }
}
