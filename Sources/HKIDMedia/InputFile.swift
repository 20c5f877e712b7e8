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
}
