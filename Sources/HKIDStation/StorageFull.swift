import Foundation

/// How the station words a disk that ran out of space under a session: the
/// session's `reason` (index and signed manifest) starts with "storage full",
/// so an operator and a program can tell it from any other failure.
enum StorageFull {
    static let prefix = "storage full"

    /// Whether `code` (an errno) means the file system has no room left.
    static func isFull(errno code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// Whether a message from elsewhere (GStreamer, SQLite) says the same.
    static func isFull(message: String) -> Bool {
        message.contains(String(cString: strerror(ENOSPC))) || message.contains(String(cString: strerror(EDQUOT)))
            || message.contains("database or disk is full")
    }

    /// "storage full: <what> (<reason>)".
    static func reason(_ what: String, because cause: String) -> String { "\(prefix): \(what) (\(cause))" }
}
