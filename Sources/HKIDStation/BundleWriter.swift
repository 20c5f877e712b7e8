import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDSignature
import Logging
import ZIPFoundation

/// Seals a finished session: hashes its files into a manifest, signs the
/// manifest, and packs everything into `bundle.zip`. Each output is written
/// under a temporary name, synced and renamed; the index marks the bundle
/// ready only after this returns, so a listed bundle is always complete.
struct BundleWriter {
    let directory: DataDirectory
    let signer: ManifestSigner
    let logger: Logger

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
            keyId: signer.keyId, createdAt: VideoTimestamps.nowMilliseconds(),
            liveness: record.livenessMode == nil ? nil
                : SessionManifest.Liveness(mode: record.livenessMode, challenge: record.challenge,
                                           firstRotation: record.firstRotation, verdict: record.livenessVerdict,
                                           spoofScore: record.spoofScore),
            reason: record.reason)
        let bytes = manifest.canonicalJSON()
        let signature = try signer.signature(of: bytes)
        try DurableFile.write(bytes, to: directory.file(BundleLayout.manifest, of: id), mode: 0o600)
        try DurableFile.write(Data((signature + "\n").utf8), to: directory.file(BundleLayout.signature, of: id), mode: 0o600)

        let partialPath = directory.file(".bundle.zip.partial", of: id)
        do {
            try zip(files.keys, of: id, into: partialPath)
            HoldPoint.duringSeal.holdBlocking(logger: logger)
            try DurableFile.rename(partialPath, to: directory.bundlePath(of: id))
        } catch {
            // A zip cut short (a full disk) is not left behind; the seal is tried again.
            unlink(partialPath)
            throw error
        }
        return manifest
    }

    /// Packs the manifest, its signature and `names` into a new zip at `path`, synced.
    private func zip(_ names: some Collection<String>, of id: SessionID, into path: String) throws {
        // A zip a killed seal left behind is started over.
        unlink(path)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        // Tightened before anything personal goes in (the daemon's umask is 077 as well).
        chmod(path, 0o600)
        for name in [BundleLayout.manifest, BundleLayout.signature] + Self.contentFiles where name == BundleLayout.manifest
            || name == BundleLayout.signature || names.contains(name) {
            // Video and JPEG are compressed already; deflate only the text.
            let compress = name.hasSuffix(".json") || name.hasSuffix(".jsonl")
            try Self.addFile(directory.file(name, of: id), as: name, to: archive, compress: compress)
        }
        try DurableFile.sync(path: path)
    }

    /// Adds a file from an open descriptor rather than with ZIPFoundation's
    /// `addEntry(with:fileURL:)`, which asks `FileManager` for the path's
    /// `fileSystemRepresentation` five times an entry and never frees it: on
    /// Linux each is a malloc'd copy of the path. heaptrack over 200 station
    /// sessions found ~1.6 kB a sealed session lost that way, the station's
    /// only growing allocation. (Opening the archive still loses one copy of
    /// its own path, ~100 bytes a session, inside ZIPFoundation.)
    private static func addFile(_ path: String, as name: String, to archive: Archive, compress: Bool) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StationError(.storage, "\(path): cannot be read into the bundle (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StationError(.storage, "\(path): cannot stat (\(String(cString: strerror(errno))))") }
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(info.st_size), modificationDate: modified,
                             permissions: UInt16(info.st_mode & 0o7777), compressionMethod: compress ? .deflate : .none) { position, size in
            var chunk = Data(count: size)
            let read = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, off_t(position)) }
            guard read == size else { throw StationError(.storage, "\(path): changed while it was sealed into the bundle") }
            return chunk
        }
    }
}
