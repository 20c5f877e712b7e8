import Foundation
import HKIDMedia
import Synchronization

/// One session's SPEC section 6 event lines, appended to `events.jsonl`
/// (under a temporary name until `close`).
///
/// The file is the only copy: a subscriber (an SSE stream) reads it from its
/// first byte and then follows it as it grows, until the session ends, so an
/// operator page that connects late in a long traced session still gets
/// BEGIN, and the daemon holds no session's lines in memory.
///
/// A line that cannot be written (a full disk) makes the log `failed`: no
/// later line is written (the log would have a hole), and `onFailure` runs
/// once so the station can end the session as failed rather than sign an
/// incomplete log as the whole story.
public final class SessionEventLog: Sendable {
    private struct State {
        var fd: Int32
        /// Bytes of whole lines in the file.
        var written: Int64 = 0
        var failure: String?
        var closed = false
        var renamed = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state: Mutex<State>
    let partialPath: String
    let finalPath: String
    private let onFailure: @Sendable (String) -> Void

    init(partialPath: String, finalPath: String,
         onFailure: @escaping @Sendable (String) -> Void = { _ in }) throws(StationError) {
        self.partialPath = partialPath
        self.finalPath = finalPath
        self.onFailure = onFailure
        let fd = open(partialPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StationError(.storage, "\(partialPath): cannot create the event log (\(String(cString: strerror(errno))))")
        }
        state = Mutex(State(fd: fd))
    }

    deinit {
        state.withLock { state in
            if state.fd >= 0 { Glibc.close(state.fd) }
        }
    }

    /// Why a line could not be written, once one could not.
    public var failure: String? { state.withLock { $0.failure } }

    public func append(_ line: String) {
        let (failed, waiters) = state.withLock { state -> (String?, [CheckedContinuation<Void, Never>]) in
            guard !state.closed, state.failure == nil else { return (nil, []) }
            let bytes = Array((line + "\n").utf8)
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { write(state.fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    let code = n < 0 ? errno : ENOSPC
                    var failure = Self.failure(errno: code, path: partialPath)
                    // Half a line would be a lie at the end of the log: cut
                    // it back to its last whole line. If even that fails,
                    // recovery and the seal cut it again before signing.
                    if done > 0, ftruncate(state.fd, off_t(state.written)) != 0 { failure += "; its half line is cut at the seal" }
                    state.failure = failure
                    return (failure, [])
                }
                done += n
            }
            state.written += Int64(bytes.count)
            defer { state.waiters = [:] }
            return (nil, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        if let failed { onFailure(failed) }
    }

    /// A write failure in words: "storage full: …" when the disk has no room.
    private static func failure(errno code: Int32, path: String) -> String {
        let cause = String(cString: strerror(code))
        if StorageFull.isFull(errno: code) { return StorageFull.reason("the event log could not be written", because: cause) }
        return "\(path): the event log could not be written (\(cause))"
    }

    /// Every line from the first, then live lines until the session ends.
    public func subscribe() -> Lines {
        let fd = state.withLock { state -> Int32 in
            // The rename happens under the lock, so one of the two names is there.
            open(state.renamed ? finalPath : partialPath, O_RDONLY | O_CLOEXEC)
        }
        return Lines(log: self, fd: fd)
    }

    /// Waits until the file holds more than `offset` bytes of whole lines;
    /// false once it never will (the log is closed).
    fileprivate func waitForMore(than offset: Int64) async -> Bool {
        while true {
            let answer = state.withLock { state -> Bool? in
                if state.written > offset { return true }
                if state.closed { return false }
                return nil
            }
            if let answer { return answer }
            // Parked until the next append or the close.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    guard state.written <= offset, !state.closed else { return false }
                    state.waiters[UUID()] = continuation
                    return true
                }
                if !parked { continuation.resume() }
            }
        }
    }

    /// Ends every subscription, syncs the file and gives it its final name.
    /// A failed log is still renamed: it is evidence of what was seen.
    public func close() throws {
        let (fd, waiters) = state.withLock { state -> (Int32, [CheckedContinuation<Void, Never>]) in
            guard !state.closed else { return (-1, []) }
            state.closed = true
            defer { state.waiters = [:] }
            return (state.fd, Array(state.waiters.values))
        }
        for waiter in waiters { waiter.resume() }
        guard fd >= 0 else { return }
        defer {
            state.withLock { state in
                Glibc.close(state.fd)
                state.fd = -1
            }
        }
        guard fsync(fd) == 0 else {
            throw StationError(.storage, "\(partialPath): cannot sync the event log (\(String(cString: strerror(errno))))")
        }
        try state.withLock { state throws in
            try DurableFile.rename(partialPath, to: finalPath)
            state.renamed = true
        }
    }

    /// The lines of the log, read from the file as it grows.
    public struct Lines: AsyncSequence, Sendable {
        public typealias Element = String
        fileprivate let log: SessionEventLog
        fileprivate let fd: Int32

        public func makeAsyncIterator() -> Iterator { Iterator(log: log, reader: FileLines(fd: fd)) }

        public struct Iterator: AsyncIteratorProtocol {
            let log: SessionEventLog
            let reader: FileLines

            public mutating func next() async -> String? {
                while true {
                    if let line = reader.nextLine() { return line }
                    guard await log.waitForMore(than: reader.offset) else {
                        // Closed: whatever came in before the close.
                        return reader.nextLine()
                    }
                }
            }
        }
    }
}

/// Whole lines from a file descriptor that another writer appends to; owns
/// the descriptor.
final class FileLines: @unchecked Sendable {
    // @unchecked: one iterator uses it at a time.
    private let fd: Int32
    private var pending: [UInt8] = []
    /// Bytes read from the file so far.
    private(set) var offset: Int64 = 0

    init(fd: Int32) { self.fd = fd }
    deinit { if fd >= 0 { close(fd) } }

    /// The next complete line, reading more of the file when needed; nil
    /// when the file holds no further complete line yet.
    func nextLine() -> String? {
        guard fd >= 0 else { return nil }
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            offset += Int64(n)
            pending.append(contentsOf: chunk[..<n])
        }
    }
}
