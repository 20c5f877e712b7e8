import Crypto
import Foundation

/// SHA-256 of files and data as lowercase hex, streaming files in chunks so a
/// long recording is never loaded whole.
public enum FileDigest {
    public static func sha256Hex(of data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func sha256Hex(ofFile path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    public static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
