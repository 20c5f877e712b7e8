import Foundation
import HKIDSignature

/// After a crash or `kill -9`: what the index and the files say of a session
/// the station did not finish. One the index still has `active` was cut
/// off: its end, moments and frame counters are read back from its event
/// log and file times. One that had ended was killed while it was being
/// sealed: its row is right as it is. Either is then handed to
/// `SessionSealer`, which remuxes the cut recording (its header states what
/// it really holds) and seals.
struct SessionRecovery: Sendable {
    let directory: DataDirectory

    /// `record` as it must be sealed, and whether its recording must be remuxed.
    func recovered(_ record: SessionRecord) -> (SessionRecord, recordingCutShort: Bool) {
        guard let id = SessionID(record.id) else { return (record, false) }
        let cutShort = FileManager.default.fileExists(atPath: directory.recordingPath(of: id))
        guard record.status == .active else { return (record, cutShort) }
        var record = record
        let partialLog = directory.eventLogPath(of: id)
        let log = FileManager.default.fileExists(atPath: partialLog) ? partialLog : directory.file(BundleLayout.events, of: id)
        let events = EventLogSummary(contentsOf: log)
        record.endedAt = lastWrite(of: [directory.recordingPath(of: id), log]) ?? VideoTimestamps.nowMilliseconds()
        if let (code, message) = events.finalResult {
            // It had reached its result; the crash came while it was being ended.
            record.status = code == 0 ? .completed : .failed
            record.resultCode = code
            record.resultMessage = message
            record.livenessVerdict = events.liveness?.verdict
            record.spoofScore = events.liveness?.spoofScore
            record.reason = "the station stopped while the session was being ended; sealed at the next start"
        } else {
            record.status = .interrupted
            record.reason = "the station stopped during the session (crash or kill); recovered at the next start"
        }
        restoreMoments(of: &record, from: events)
        record.framesAnalysed = max(record.framesAnalysed, events.frameLines)
        record.framesReceived = max(record.framesReceived, record.framesAnalysed + record.framesDropped)
        record.framesDropped = record.framesReceived - record.framesAnalysed
        return (record, cutShort)
    }

    /// Moments the index missed, from the log's media times (t counts from
    /// the first frame, a moment after the start).
    private func restoreMoments(of record: inout SessionRecord, from events: EventLogSummary) {
        let start = record.timestamps.start > 0 ? record.timestamps.start : record.createdAt
        if record.timestamps.firstMotion == 0, let t = events.orthTime {
            record.timestamps.firstMotion = start + Int64((t * 1000).rounded())
        }
        if record.timestamps.secondMotion == 0, let t = events.resetTime {
            record.timestamps.secondMotion = start + Int64((t * 1000).rounded())
        }
        if record.timestamps.stop == 0 { record.timestamps.stop = record.endedAt ?? 0 }
        if let endedAt = record.endedAt { record.wallSeconds = Double(endedAt - start) / 1000 }
    }

    /// The newest modification time of the files that exist, in ms since the epoch.
    private func lastWrite(of paths: [String]) -> Int64? {
        var newest: Int64?
        for path in paths {
            var info = stat()
            // A file that is not there has no time to give.
            guard stat(path, &info) == 0 else { continue }
            let ms = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
            newest = max(newest ?? 0, ms)
        }
        return newest
    }
}
