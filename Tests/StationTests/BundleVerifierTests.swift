import Crypto
import Foundation
import HKIDSignature
import Testing

/// The signature checks without a station: canonical bytes, wrong key,
/// altered manifest, key files in both spellings.
@Suite struct BundleVerifierTests {
    let key = Curve25519.Signing.PrivateKey()

    func manifest(files: [String: String]) -> SessionManifest {
        SessionManifest(sessionId: String(repeating: "a", count: 32), cardType: "2018", resultCode: 0,
                        status: "completed", videoTimestamp: "1|2|3|4", videoSha256: files["video.mkv"],
                        imageSha256: nil, files: files, detectorVersion: "test", keyId: key.publicKey.keyId,
                        createdAt: 5)
    }

    @Test func canonicalJSONHasSortedKeysAndNoSpaces() {
        let text = String(decoding: manifest(files: ["b": "2", "a": "1"]).canonicalJSON(), as: UTF8.self)
        #expect(!text.contains(" "))
        #expect(text.hasPrefix(#"{"cardType":"2018","createdAt":5,"detectorVersion":"test","files":{"a":"1","b":"2"}"#))
    }

    @Test func detectsAlteredFilesManifestAndWrongKey() throws {
        let content = Data("hello".utf8)
        let files = ["events.jsonl": FileDigest.sha256Hex(of: content)]
        let bytes = manifest(files: files).canonicalJSON()
        let signature = try ManifestSigner(privateKey: key).signature(of: bytes)
        let verifier = BundleVerifier(publicKey: key.publicKey)

        let good = verifier.verify(manifestBytes: bytes, signatureText: signature,
                                   digest: { $0 == "events.jsonl" ? FileDigest.sha256Hex(of: content) : nil },
                                   listNames: { ["events.jsonl", "manifest.json", "manifest.sig"] })
        #expect(good.isValid, "\(good.problems)")

        let altered = verifier.verify(manifestBytes: bytes, signatureText: signature,
                                      digest: { _ in FileDigest.sha256Hex(of: Data("HELLO".utf8)) },
                                      listNames: { ["events.jsonl", "extra.bin"] })
        #expect(altered.problems.contains { $0.hasPrefix("events.jsonl: SHA-256") })
        #expect(altered.problems.contains { $0.hasPrefix("extra.bin: in the bundle but not listed") })

        var edited = manifest(files: files)
        edited.resultCode = 4
        let forged = verifier.verify(manifestBytes: edited.canonicalJSON(), signatureText: signature,
                                     digest: { _ in files["events.jsonl"] }, listNames: { [] })
        #expect(forged.problems.contains { $0.contains("does not match") })

        let other = BundleVerifier(publicKey: Curve25519.Signing.PrivateKey().publicKey)
            .verify(manifestBytes: bytes, signatureText: signature, digest: { _ in files["events.jsonl"] }, listNames: { [] })
        #expect(other.problems.contains { $0.contains("signed by key") })
    }

    @Test func readsPEMAndRawBase64Keys() throws {
        let directory = StationProcess.temporaryDirectory()
        let pem = directory + "/key.pem", raw = directory + "/key.b64", bad = directory + "/bad"
        try KeyFile.pem(publicKey: key.publicKey).write(toFile: pem, atomically: true, encoding: .utf8)
        try (key.publicKey.rawRepresentation.base64EncodedString() + "\n").write(toFile: raw, atomically: true, encoding: .utf8)
        try "not a key".write(toFile: bad, atomically: true, encoding: .utf8)
        #expect(try KeyFile.readPublicKey(at: pem).rawRepresentation == key.publicKey.rawRepresentation)
        #expect(try KeyFile.readPublicKey(at: raw).rawRepresentation == key.publicKey.rawRepresentation)
        #expect(throws: KeyFile.Failure.self) { try KeyFile.readPublicKey(at: bad) }
        // The PEM is what OpenSSL writes for Ed25519 (RFC 8410 SubjectPublicKeyInfo).
        #expect(KeyFile.pem(publicKey: key.publicKey).contains("MCowBQYDK2VwAyEA"))
    }
}
