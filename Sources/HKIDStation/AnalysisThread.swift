import Foundation
import Synchronization

/// The one thread the station analyses frames on, for its whole life; each
/// session's `AnalysisWorker` runs its loop here, one after the other.
///
/// A fresh thread per session left OpenCV's per-thread parallel-loop state
/// behind, about 1 kB a session (heaptrack, 45 sessions against 5; gone from
/// the same comparison with this thread).
final class AnalysisThread: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)

    /// The thread, and with it this object, lives until the process ends.
    init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
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
    func run(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}
