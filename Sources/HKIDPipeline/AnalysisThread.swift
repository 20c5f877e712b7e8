import Foundation
import Synchronization

/// One long-lived thread that analyses sessions one after another: the
/// station's sessions, a hub worker's checks.
///
/// Replays and live analysis block while they decode and measure, which must
/// not hold one of the few cooperative threads; and a fresh thread per
/// session left OpenCV's per-thread parallel-loop state behind, about 1 kB a
/// session (heaptrack, 45 sessions against 5; gone with one thread for life).
public final class AnalysisThread: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)

    /// The thread, and with it this object, lives until the process ends.
    public init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.stackSize = 8 << 20  // OpenCV's and GStreamer's frames are deep
        thread.start()
    }

    private func loop() -> Never {
        while true {
            ready.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job()
        }
    }

    /// Runs `job` on the thread after every job submitted before it.
    public func run(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs `work` on the thread, after every job submitted before it, and
    /// returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            run { continuation.resume(returning: work()) }
        }
    }
}
