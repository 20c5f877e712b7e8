import Foundation
import Synchronization

/// Wakes every waiting worker loop at once: rung on a NOTIFY from the
/// database, or in-process when the embedded hub queues a check. A ring with
/// nobody waiting is remembered, so a worker that was busy looks again.
public final class Doorbell: Sendable {
    private struct State {
        var rings = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.rings += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns at the next ring after `seen` (at once if there was one), or
    /// after `timeout` (the poll fallback), or on cancellation.
    public func wait(after seen: Int, timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let resumeNow = state.withLock { state -> Bool in
                            if state.rings != seen { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: { [self] in
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    /// How many rings so far: read before looking for work, passed to `wait`.
    public var rings: Int { state.withLock { $0.rings } }
}
