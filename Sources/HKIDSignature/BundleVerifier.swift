import Crypto
import Foundation
import ZIPFoundation

/// Checks a session bundle offline: the manifest's signature against a public
/// key, then every file the manifest lists against its SHA-256, and that the
/// zip holds nothing the manifest does not vouch for.
///
/// Every problem is collected rather than stopping at the first, so one run
/// says everything that is wrong with a bundle.
public struct BundleVerifier: Sendable {
    public struct Report: Sendable {
        public var manifest: SessionManifest?
        /// Human sentences, one per problem; empty when the bundle is intact.
        public var problems: [String] = []
        /// Files whose hash matched, for the "what was checked" listing.
        public var verifiedFiles: [String] = []
        public var isValid: Bool { problems.isEmpty && manifest != nil }

        public init() {}
    }

    /// Raw key bytes: Crypto's key type is not `Sendable` on Linux.
    private let publicKeyBytes: Data

    public init(publicKey: Curve25519.Signing.PublicKey) {
        publicKeyBytes = publicKey.rawRepresentation
    }

    public var publicKey: Curve25519.Signing.PublicKey {
        try! Curve25519.Signing.PublicKey(rawRepresentation: publicKeyBytes)
    }

    public func verify(bundleAt url: URL) -> Report {
        var report = Report()
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            report.problems.append("\(url.path): not a readable zip archive (\(error))")
            return report
        }
        guard let manifestBytes = read(BundleLayout.manifest, from: archive, into: &report),
              let signatureBytes = read(BundleLayout.signature, from: archive, into: &report) else {
            return report
        }
        return verify(manifestBytes: manifestBytes, signatureText: String(decoding: signatureBytes, as: UTF8.self),
                      into: report) { name in
            guard let entry = archive[name], entry.type == .file else { return nil }
            var hasher = SHA256()
            do {
                _ = try archive.extract(entry, consumer: { hasher.update(data: $0) })
            } catch { return nil }
            return FileDigest.hex(hasher.finalize())
        } listNames: {
            archive.filter { $0.type == .file }.map(\.path)
        }
    }

    /// The checks themselves, independent of where the files live (a zip, a
    /// session directory): `digest` returns a file's SHA-256 or nil when missing.
    public func verify(manifestBytes: Data, signatureText: String, into start: Report = Report(),
                       digest: (String) -> String?, listNames: () -> [String]) -> Report {
        var report = start
        let manifest: SessionManifest
        do {
            manifest = try JSONDecoder().decode(SessionManifest.self, from: manifestBytes)
        } catch {
            report.problems.append("\(BundleLayout.manifest): not a valid manifest (\(error))")
            return report
        }
        report.manifest = manifest
        if manifest.format != SessionManifest.currentFormat {
            report.problems.append("\(BundleLayout.manifest): unknown format \"\(manifest.format)\"")
        }

        let trimmed = signatureText.trimmingCharacters(in: .whitespacesAndNewlines)
        if let signature = Data(base64Encoded: trimmed) {
            if !publicKey.isValidSignature(signature, for: manifestBytes) {
                if manifest.keyId != publicKey.keyId {
                    report.problems.append("signature: the manifest was signed by key \(manifest.keyId), not by the given key \(publicKey.keyId)")
                } else {
                    report.problems.append("signature: does not match \(BundleLayout.manifest) (the manifest or the signature was altered)")
                }
            }
        } else {
            report.problems.append("\(BundleLayout.signature): not base64")
        }
        if manifest.canonicalJSON() != manifestBytes {
            report.problems.append("\(BundleLayout.manifest): not in canonical form (sorted keys, no spaces)")
        }

        for (name, expected) in manifest.files.sorted(by: { $0.key < $1.key }) {
            guard let actual = digest(name) else {
                report.problems.append("\(name): listed in the manifest but missing from the bundle")
                continue
            }
            if actual == expected {
                report.verifiedFiles.append(name)
            } else {
                report.problems.append("\(name): SHA-256 is \(actual), the manifest says \(expected)")
            }
        }
        // A station records video.mkv; a hub keeps an upload's container (video.mp4, ...).
        let videoEntry = manifest.files[BundleLayout.video]
            ?? manifest.files.first(where: { $0.key.hasPrefix("video.") })?.value
        if let video = manifest.videoSha256, videoEntry != video {
            report.problems.append("\(BundleLayout.manifest): videoSha256 disagrees with its files entry")
        }
        if let image = manifest.imageSha256, !manifest.files.values.contains(image) {
            report.problems.append("\(BundleLayout.manifest): imageSha256 matches no listed file")
        }
        let vouched = Set(manifest.files.keys).union([BundleLayout.manifest, BundleLayout.signature])
        for name in listNames().sorted() where !vouched.contains(name) {
            report.problems.append("\(name): in the bundle but not listed in the manifest")
        }
        return report
    }

    private func read(_ name: String, from archive: Archive, into report: inout Report) -> Data? {
        guard let entry = archive[name] else {
            report.problems.append("\(name): missing from the bundle")
            return nil
        }
        var data = Data()
        do {
            _ = try archive.extract(entry, consumer: { data.append($0) })
        } catch {
            report.problems.append("\(name): cannot be read from the zip (\(error))")
            return nil
        }
        return data
    }
}
