import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writing files so that a crash leaves either the old file or the complete
/// new one, never a torn one: write to a temporary name in the same folder,
/// fsync, rename, fsync the folder.
public enum DurableFile {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes `data` to `path` atomically and durably with the given mode.
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o644) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = ((folder.isEmpty ? "." : folder) as NSString)
            .appendingPathComponent(".\((path as NSString).lastPathComponent).\(getpid()).partial")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        var ok = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        let writeError = errno
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok else {
            unlink(temporary)
            throw Failure(path: path, reason: String(cString: strerror(writeError == 0 ? errno : writeError)))
        }
        try rename(temporary, to: path)
    }

    /// fsyncs an existing file.
    public static func sync(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Renames and then fsyncs the destination folder, so the rename itself survives a crash.
    public static func rename(_ from: String, to: String) throws(Failure) {
        guard Glibc.rename(from, to) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(from)
            throw Failure(path: to, reason: reason)
        }
        let folder = (to as NSString).deletingLastPathComponent
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
