import Foundation

/// Checks a file before GStreamer sees it, because GStreamer's words for the
/// commonest mistakes ("Resource not found.", a state-change failure with no
/// reason for a directory) do not tell a user what to fix.
public enum InputFile {
    /// A short reason the file cannot be a video, or nil when it may be one.
    public static func problem(with path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "no such file"
        }
        if isDirectory.boolValue { return "is a directory, not a video file" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "permission denied" }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 { return "is empty" }
        return nil
    }

    /// True when `path` is an ISO base media file (MP4, MOV, 3GP: it starts
    /// with an `ftyp` box) whose top-level boxes claim to run past the end
    /// of the file: the tail of the file is missing. Reads only box headers.
    public static func isCutShort(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let fileSize = try? handle.seekToEnd() else { return false }
        var offset: UInt64 = 0
        var first = true
        while offset + 8 <= fileSize {
            guard (try? handle.seek(toOffset: offset)) != nil,
                  let header = try? handle.read(upToCount: 16), header.count >= 8 else { return false }
            let bytes = [UInt8](header)
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if first && type != "ftyp" { return false }
            first = false
            var size = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if size == 1 {  // 64-bit size follows the type
                guard bytes.count >= 16 else { return true }
                size = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if size == 0 {  // runs to the end of the file
                return false
            }
            guard size >= 8 else { return false }  // not a box structure we understand
            offset += size
        }
        return offset > fileSize
    }
}
