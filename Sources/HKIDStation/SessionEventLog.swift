import Foundation
import HKIDMedia
import Synchronization

/// One session's SPEC section 6 event lines: appended to `events.jsonl`
/// (under a temporary name until `close`), kept in memory for late
/// subscribers, and pushed to every live subscriber (the SSE streams).
///
/// A subscriber first gets every line so far, then the live ones, and its
/// stream finishes when the session ends, so an operator page that connects
/// mid-session sees the whole story.
public final class SessionEventLog: Sendable {
    private struct State {
        var lines: [String] = []
        var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
        var closed = false
        var handle: FileHandle?
    }

    private let state: Mutex<State>
    let partialPath: String
    let finalPath: String

    init(partialPath: String, finalPath: String) throws(StationError) {
        self.partialPath = partialPath
        self.finalPath = finalPath
        let fd = open(partialPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StationError(.storage, "\(partialPath): cannot create the event log") }
        state = Mutex(State(handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true)))
    }

    public func append(_ line: String) {
        state.withLock { state in
            guard !state.closed else { return }
            state.lines.append(line)
            try? state.handle?.write(contentsOf: Data((line + "\n").utf8))
            for continuation in state.subscribers.values { continuation.yield(line) }
        }
    }

    public var lines: [String] { state.withLock { $0.lines } }

    /// Every line so far, then live lines until the session ends.
    public func subscribe() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4096))
        let key = UUID()
        state.withLock { state in
            for line in state.lines { continuation.yield(line) }
            if state.closed {
                continuation.finish()
            } else {
                state.subscribers[key] = continuation
            }
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Ends every subscription, syncs the file and gives it its final name.
    public func close() throws {
        // Finish the streams outside the lock: finishing runs their
        // onTermination, which takes the lock to unsubscribe.
        let (handle, subscribers) = state.withLock { state -> (FileHandle?, [AsyncStream<String>.Continuation]) in
            guard !state.closed else { return (nil, []) }
            state.closed = true
            defer { state.subscribers = [:]; state.handle = nil }
            return (state.handle, Array(state.subscribers.values))
        }
        for continuation in subscribers { continuation.finish() }
        guard let handle else { return }
        try handle.synchronize()
        try handle.close()
        try DurableFile.rename(partialPath, to: finalPath)
    }
}
