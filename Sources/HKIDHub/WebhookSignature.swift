import Crypto
import Foundation
import HKIDSignature

/// The `Hkid-Signature` header of a webhook: `t=UNIX_SECONDS,v1=HEX`, where
/// HEX is HMAC-SHA256 with the client's webhook secret over the bytes
/// `"{t}." + body` (the scheme Stripe uses). The timestamp is signed so a
/// receiver can refuse replays older than its tolerance.
public enum WebhookSignature {
    public static let header = "Hkid-Signature"

    /// The header value for `body` sent at `timestamp`.
    public static func sign(_ body: Data, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(FileDigest.hex(mac(body, secret: secret, timestamp: timestamp)))"
    }

    /// True when `header` carries a v1 signature of `body` with `secret`,
    /// made within `tolerance` seconds of `now`; compares in constant time.
    public static func verify(_ header: String, body: Data, secret: String, now: Int64 = Int64(Date().timeIntervalSince1970),
                              tolerance: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = FileDigest.hex(mac(body, secret: secret, timestamp: timestamp))
        return signatures.contains { ConstantTime.equal($0, expected) }
    }

    static func mac(_ body: Data, secret: String, timestamp: Int64) -> HashedAuthenticationCode<SHA256> {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Data(secret.utf8)))
        hmac.update(data: Data("\(timestamp).".utf8))
        hmac.update(data: body)
        return hmac.finalize()
    }
}
