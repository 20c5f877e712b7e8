import Foundation
import HKIDLiveness
import HKIDMedia
import Logging

/// Stops a running session's live parts, in an order that loses nothing,
/// and writes down how it ended: the analysis (the frame in hand finishes),
/// the session's last events, the recording (drained into its file), the
/// event log's `end` line and the log itself. What it returns is the index
/// row with its final status, for `SessionSealer`.
struct SessionFinisher: Sendable {
    let camera: CameraService
    let logger: Logger

    /// How the session ended: the row, and whether its recording was cut
    /// short (its file must be remuxed before it is signed).
    struct Ending: Sendable {
        var record: SessionRecord
        var recordingCutShort: Bool
    }

    func finish(_ running: ActiveSession, status: SessionStatus, result: LivenessResult?, reason: String?) async -> Ending {
        let verdict = await stopAnalysis(of: running)
        let recording = running.isRecording ? await camera.stopRecording() : .notRecording
        running.markStopped()
        // One clock read: seconds and fraction of the same moment.
        let elapsed = ContinuousClock.now - running.started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        running.log.append(running.endLine(seconds: seconds, liveness: verdict))
        do { try running.log.close() } catch {
            // The partial log stays; the sealer syncs and renames it.
            logger.error("event log not finalised", metadata: ["session": "\(running.id)", "error": "\(error)"])
        }
        await HoldPoint.beforeMark.hold(logger: logger)

        var record = running.record
        // A cancel never carries a result: one it lost to was refused (409).
        let finalResult = status == .cancelled ? nil : result ?? running.endingResult
        record.status = status
        record.reason = reason
        record.endedAt = VideoTimestamps.nowMilliseconds()
        record.resultCode = finalResult?.retCode
        record.resultMessage = finalResult?.message
        record.livenessVerdict = finalResult?.liveness?.verdict.rawValue
        record.spoofScore = finalResult?.liveness?.spoofScore
        record.wallSeconds = seconds
        var cutShort = false
        if case .cutShort(_, let why) = recording {
            logger.warning("recording cut short", metadata: ["session": "\(running.id)", "reason": "\(why)"])
            cutShort = true
            if StorageFull.isFull(message: why) {
                record.reason = StorageFull.reason("the recording could not be written", because: why)
            }
        }
        if let failure = running.log.failure {
            // Never sealed as a whole story: the log has a hole.
            record.reason = failure
        }
        if record.reason.map({ $0.hasPrefix(StorageFull.prefix) }) == true {
            record.status = .failed
            // The disk may have cut the recording's last cluster too.
            cutShort = running.isRecording
        }
        return Ending(record: record, recordingCutShort: cutShort)
    }

    /// Stops taking frames, lets the frame in analysis and the events it
    /// causes land, and closes the liveness session; returns its verdict
    /// (read before it is closed: a session no result ended still has one).
    private func stopAnalysis(of running: ActiveSession) async -> LivenessReport? {
        camera.setFrameConsumer(nil)
        let worker = running.worker
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { worker.stop(); done.resume() }
        }
        running.liveness.stopOverTimer()
        await running.liveness.flush()
        let verdict = running.liveness.liveness
        running.liveness.close()
        return verdict
    }
}
