import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDSignature
import Logging
import Synchronization

/// The running parts of the one session in progress: the liveness session,
/// its analysis thread, its event log, and the moments for the SDK timestamp
/// string. Events arrive on the session's delivery queue; what must change
/// the station (start a deferred recording, end the session) is handed to
/// the `Station` actor through `onRecordingWanted` / `onEnded`.
final class ActiveSession: Sendable {
    let id: SessionID
    /// The index row as the session started (what `finish` seals from when
    /// the index cannot be read).
    let record: SessionRecord
    let liveness: LivenessSession
    let worker: AnalysisWorker
    let log: SessionEventLog
    let recordMode: RecordMode
    let started = ContinuousClock.now
    private let directory: DataDirectory
    private let encoder = EventLineEncoder()
    private let logger: Logger

    private struct Progress {
        var timestamps = VideoTimestamps()
        var finishing = false
        var recording = false
        var lastResult: LivenessResult?
    }
    private let progress = Mutex(Progress())

    init(id: SessionID, record: SessionRecord, liveness: LivenessSession, worker: AnalysisWorker, log: SessionEventLog,
         recordMode: RecordMode, directory: DataDirectory, logger: Logger) {
        self.id = id
        self.record = record
        self.liveness = liveness
        self.worker = worker
        self.log = log
        self.recordMode = recordMode
        self.directory = directory
        self.logger = logger
    }

    var timestamps: VideoTimestamps { progress.withLock { $0.timestamps } }
    var isRecording: Bool { progress.withLock { $0.recording } }

    func markRecordingStarted() {
        progress.withLock { progress in
            progress.recording = true
            progress.timestamps.start = VideoTimestamps.nowMilliseconds()
        }
    }

    func markStartedWithoutRecording() {
        progress.withLock { $0.timestamps.start = VideoTimestamps.nowMilliseconds() }
    }

    func markStopped() {
        progress.withLock { $0.timestamps.stop = VideoTimestamps.nowMilliseconds() }
    }

    /// True exactly once: whoever gets it ends the session.
    func claimFinish() -> Bool {
        progress.withLock { progress in
            defer { progress.finishing = true }
            return !progress.finishing
        }
    }

    /// Handles one event on the delivery queue: stills to files, the line to
    /// the log, timestamps; returns what the station must do about it.
    enum Consequence: Sendable { case none, persist, startRecording, end(LivenessResult) }

    func handle(_ event: LivenessEvent) -> Consequence {
        var imagePaths: [StillKind: String] = [:]
        var consequence = Consequence.none
        switch event {
        case .operation(let command):
            let moment = progress.withLock { progress -> Bool in
                let now = VideoTimestamps.nowMilliseconds()
                if command.currentStatus == .orth, progress.timestamps.firstMotion == 0 {
                    progress.timestamps.firstMotion = now
                    return true
                } else if command.currentStatus == .reset, progress.timestamps.secondMotion == 0 {
                    progress.timestamps.secondMotion = now
                    return true
                }
                return false
            }
            if moment { consequence = .persist }
        case .result(let result):
            for image in result.images {
                let name = Self.fileName(for: image.kind, code: result.code)
                do {
                    try DurableFile.write(image.data, to: directory.file(name, of: id), mode: 0o600)
                    imagePaths[image.kind] = name
                } catch {
                    logger.error("still not saved", metadata: ["file": "\(name)", "error": "\(error)"])
                }
            }
            progress.withLock { $0.lastResult = result }
            if result.code == .first && recordMode == .afterFirst {
                consequence = .startRecording
            } else if result.code.endsSession {
                consequence = .end(result)
            }
        case .frame:
            break
        }
        log.append(encoder.line(for: event, imagePaths: imagePaths))
        return consequence
    }

    var lastResult: LivenessResult? { progress.withLock { $0.lastResult } }

    /// Result 1's still is the first front-on view; a final result's card
    /// still replaces nothing, so it gets its own name.
    static func fileName(for kind: StillKind, code: ResultCode) -> String {
        switch (kind, code) {
        case (.card, .first): BundleLayout.firstCard
        case (.card, _): BundleLayout.card
        case (.head, _): BundleLayout.head
        }
    }

    /// `liveness`: the session's decision (read before it is closed), as
    /// the CLI's end line carries it.
    func endLine(seconds: Double, liveness: LivenessReport?) -> String {
        let counters = worker.counters
        return encoder.endLine(counters: FrameCounters(received: counters.received, analysed: counters.analysed,
                                                       dropped: counters.dropped), seconds: seconds, liveness: liveness)
    }
}
