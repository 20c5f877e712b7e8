import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDSignature
import ZIPFoundation

/// Seals a finished session: hashes its files into a manifest, signs the
/// manifest, and packs everything into `bundle.zip`. Each output is written
/// under a temporary name, synced and renamed; the index marks the bundle
/// ready only after this returns, so a listed bundle is always complete.
struct BundleWriter {
    let directory: DataDirectory
    let signer: ManifestSigner

    /// The session files a bundle can hold, in the order they are zipped.
    static let contentFiles = [BundleLayout.events, BundleLayout.video, BundleLayout.firstCard,
                               BundleLayout.card, BundleLayout.head]

    func seal(_ record: SessionRecord, id: SessionID) throws -> SessionManifest {
        var files: [String: String] = [:]
        for name in Self.contentFiles {
            let path = directory.file(name, of: id)
            if FileManager.default.fileExists(atPath: path) {
                files[name] = try FileDigest.sha256Hex(ofFile: path)
            }
        }
        let manifest = SessionManifest(
            sessionId: id.rawValue, cardType: record.cardType, resultCode: record.resultCode,
            status: record.status.rawValue, videoTimestamp: record.timestamps.sdkString,
            videoSha256: files[BundleLayout.video],
            imageSha256: files[BundleLayout.card] ?? files[BundleLayout.firstCard],
            files: files, detectorVersion: "hkid-liveness \(LivenessSession.version)",
            keyId: signer.keyId, createdAt: VideoTimestamps.nowMilliseconds())
        let bytes = manifest.canonicalJSON()
        let signature = try signer.signature(of: bytes)
        try DurableFile.write(bytes, to: directory.file(BundleLayout.manifest, of: id), mode: 0o600)
        try DurableFile.write(Data((signature + "\n").utf8), to: directory.file(BundleLayout.signature, of: id), mode: 0o600)

        let finalPath = directory.bundlePath(of: id)
        let partialPath = directory.file(".bundle.zip.partial", of: id)
        try? FileManager.default.removeItem(atPath: partialPath)
        let archive = try Archive(url: URL(fileURLWithPath: partialPath), accessMode: .create)
        // Tightened before anything personal goes in (the daemon's umask is 077 as well).
        chmod(partialPath, 0o600)
        for name in [BundleLayout.manifest, BundleLayout.signature] + Self.contentFiles where name == BundleLayout.manifest
            || name == BundleLayout.signature || files[name] != nil {
            // Video and JPEG are compressed already; deflate only the text.
            let compress = name.hasSuffix(".json") || name.hasSuffix(".jsonl")
            try archive.addEntry(with: name, fileURL: URL(fileURLWithPath: directory.file(name, of: id)),
                                 compressionMethod: compress ? .deflate : .none)
        }
        try DurableFile.sync(path: partialPath)
        try DurableFile.rename(partialPath, to: finalPath)
        return manifest
    }
}
