import Foundation
import Logging

/// Ended sessions on their way to a sealed bundle. `complete` tries at once;
/// a session the disk will not take (full) stays here as it ended, is what
/// the API reports of it, and is tried again every `retryInterval` until
/// the disk takes it: no restart needed, and no ghost `active` row meanwhile.
actor SealingQueue {
    private let sealer: SessionSealer
    private let metrics: StationMetrics
    private let logger: Logger
    private var waiting: [String: Waiting] = [:]
    private var retrying: Task<Void, Never>?
    private var stopped = false

    private struct Waiting {
        var record: SessionRecord
        var recordingCutShort: Bool
        var attempts = 0
        var inProgress = false
    }

    /// How long a session that could not be sealed waits before the next try.
    static let retryInterval: Duration = .seconds(2)

    init(sealer: SessionSealer, metrics: StationMetrics, logger: Logger) {
        self.sealer = sealer
        self.metrics = metrics
        self.logger = logger
    }

    /// Records and seals `record` (its status final); true when done now.
    @discardableResult
    func complete(_ record: SessionRecord, recordingCutShort: Bool) async -> Bool {
        waiting[record.id] = Waiting(record: record, recordingCutShort: recordingCutShort)
        await attempt(record.id)
        return waiting[record.id] == nil
    }

    /// The session as it ended, while it waits to be sealed.
    func record(of id: String) -> SessionRecord? { waiting[id]?.record }

    /// A page of the index with the waiting sessions as they ended (and
    /// without those that no longer match `status`).
    func overlay(_ page: [SessionRecord], status: SessionStatus?) -> [SessionRecord] {
        page.compactMap { row in
            guard let ended = waiting[row.id]?.record else { return row }
            return status == nil || ended.status == status ? ended : nil
        }
    }

    /// No more retries (shutdown): the next start's recovery seals what is left.
    func stop() {
        stopped = true
        retrying?.cancel()
    }

    private func attempt(_ key: String) async {
        guard var entry = waiting[key], !entry.inProgress else { return }
        waiting[key]?.inProgress = true
        let sealer = self.sealer, ended = entry.record, cutShort = entry.recordingCutShort
        let outcome: StationError? = await withCheckedContinuation { done in
            // Off the actor's executor: hashing, remuxing and zipping take a while.
            DispatchQueue.global().async {
                var record = ended
                do throws(StationError) {
                    try sealer.complete(&record, recordingCutShort: cutShort)
                    done.resume(returning: nil)
                } catch {
                    done.resume(returning: error)
                }
            }
        }
        guard let error = outcome else {
            waiting[key] = nil
            if entry.attempts > 0 { logger.notice("sealed once the disk took it", metadata: ["session": "\(key)"]) }
            return
        }
        // Logged and counted once; the retries only at debug level.
        if entry.attempts == 0 {
            logger.error("session not recorded and sealed; retrying", metadata: ["session": "\(key)", "error": "\(error)"])
            metrics.storageFailed()
        } else {
            logger.debug("seal failed again", metadata: ["session": "\(key)", "error": "\(error)"])
        }
        entry.attempts += 1
        entry.inProgress = false
        waiting[key] = entry
        scheduleRetries()
    }

    private func scheduleRetries() {
        guard retrying == nil, !stopped else { return }
        retrying = Task { [weak self] in
            // A cancelled sleep (shutdown) ends the retries.
            while (try? await Task.sleep(for: Self.retryInterval)) != nil, let self, await self.retryAll() {}
        }
    }

    /// One round; false once nothing waits.
    private func retryAll() async -> Bool {
        for key in waiting.keys { await attempt(key) }
        if waiting.isEmpty || stopped { retrying = nil }
        return retrying != nil
    }
}
