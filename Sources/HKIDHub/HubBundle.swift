import Foundation
import HKIDSignature
import ZIPFoundation

/// A check's bundle: the station's layout (`BundleLayout`), with the
/// uploaded video under a name that keeps its container's extension. The
/// worker signs the manifest; the zip is assembled from the stored parts
/// and the stored video when asked for, so the video is kept once.
public enum HubBundle {
    public static let events = BundleLayout.events

    /// `video.mp4`, `video.mkv` or `video.bin`, by the container's magic bytes.
    public static func videoName(forHeader header: Data) -> String {
        let bytes = [UInt8](header.prefix(12))
        if bytes.count >= 8, bytes[4...7].elementsEqual("ftyp".utf8) { return "video.mp4" }
        if bytes.count >= 4, bytes[0...3].elementsEqual([0x1A, 0x45, 0xDF, 0xA3]) { return "video.mkv" }
        return "video.bin"
    }

    /// Writes the zip: manifest, signature, the stored files and the video
    /// at `videoPath` under the name the manifest gives it.
    public static func assemble(_ parts: BundleParts, videoPath: String, to path: String) throws {
        let manifest = try JSONDecoder().decode(SessionManifest.self, from: parts.manifest)
        try? FileManager.default.removeItem(atPath: path)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        try add(parts.manifest, as: BundleLayout.manifest, to: archive)
        try add(Data((parts.signature + "\n").utf8), as: BundleLayout.signature, to: archive)
        for (name, data) in parts.files.sorted(by: { $0.key < $1.key }) where manifest.files[name] != nil {
            try add(data, as: name, to: archive)
        }
        if let video = manifest.files.keys.first(where: { $0.hasPrefix("video.") }) {
            try archive.addEntry(with: video, fileURL: URL(fileURLWithPath: videoPath), compressionMethod: .none)
        }
    }

    private static func add(_ data: Data, as name: String, to archive: Archive) throws {
        let compress = name.hasSuffix(".json") || name.hasSuffix(".jsonl")
        try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count),
                             compressionMethod: compress ? .deflate : .none) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
    }
}
