import Foundation
import Synchronization

/// One long-lived thread a worker loop runs its checks on: the replay
/// blocks while it decodes and analyses, which must not hold one of the
/// few cooperative threads; and a fresh thread per check would leave
/// OpenCV's per-thread state behind each time (as the station found).
final class RunnerThread: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func loop() -> Never {
        while true {
            ready.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job()
        }
    }

    /// Runs `work` on the thread and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            jobs.withLock { $0.append { continuation.resume(returning: work()) } }
            ready.signal()
        }
    }
}
