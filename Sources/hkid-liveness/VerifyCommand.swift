import ArgumentParser
import Foundation
import HKIDSignature

/// `hkid-liveness verify BUNDLE.zip --public-key KEY`: checks a station's
/// session bundle offline. All the checking is `BundleVerifier`'s
/// (HKIDSignature); this only prints what it found.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a session bundle's signature and file hashes offline.",
        discussion: """
            Verifies the Ed25519 signature of manifest.json with the public key, then the SHA-256 of \
            every file the manifest lists, and that the zip holds nothing unlisted. The key file is PEM \
            (-----BEGIN PUBLIC KEY-----, as served by GET /v1/public-key) or the 32 key bytes in base64. \
            Exits 0 when the bundle is intact, 1 when anything is wrong (each problem is printed), \
            2 when the bundle or key cannot be read.
            """)

    @Argument(help: "The bundle (.zip) from GET /v1/sessions/{id}/bundle.")
    var bundle: String

    @Option(help: "The station's public key: PEM or base64 raw Ed25519 key.")
    var publicKey: String

    @Flag(help: "Print the manifest as JSON on success.")
    var json = false

    func run() throws {
        let key: Curve25519PublicKey
        do {
            key = try KeyFile.readPublicKey(at: publicKey)
        } catch {
            printError(error.description)
            throw ExitCode(2)
        }
        guard FileManager.default.isReadableFile(atPath: bundle) else {
            printError("\(bundle): cannot be read")
            throw ExitCode(2)
        }
        let report = BundleVerifier(publicKey: key).verify(bundleAt: URL(fileURLWithPath: bundle))
        if report.isValid, let manifest = report.manifest {
            if json {
                print(String(decoding: manifest.canonicalJSON(), as: UTF8.self))
            } else {
                print("\(bundle): OK")
                print("  session \(manifest.sessionId), card \(manifest.cardType), status \(manifest.status), "
                      + "result \(manifest.resultCode.map(String.init) ?? "none")")
                print("  signed by key \(manifest.keyId); timestamps \(manifest.videoTimestamp)")
                for name in report.verifiedFiles { print("  sha256 ok  \(name)") }
            }
            return
        }
        print("\(bundle): NOT VALID")
        for problem in report.problems { print("  - \(problem)") }
        throw ExitCode(1)
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data("hkid-liveness verify: \(message)\n".utf8))
    }
}
