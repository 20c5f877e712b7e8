import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDSignature
import Logging
import Synchronization

/// The running parts of the one session in progress: the liveness session,
/// its analysis, its event log, its index row as it stands, and the moments
/// for the SDK timestamp string. Events arrive on the session's delivery
/// queue; what must change the station (persist a moment, start a deferred
/// recording, end the session) is returned from `handle` as a `Consequence`.
final class ActiveSession: Sendable {
    let id: SessionID
    let liveness: LivenessSession
    let worker: AnalysisWorker
    let log: SessionEventLog
    let recordMode: RecordMode
    let started = ContinuousClock.now
    private let directory: DataDirectory
    private let encoder = EventLineEncoder()
    private let logger: Logger

    private struct Progress {
        var record: SessionRecord
        var timestamps = VideoTimestamps()
        /// Someone (a cancel, the result, a shutdown, a storage failure) is ending the session.
        var finishing = false
        var recording = false
        /// The result that ends the session, once the session reached it
        /// before anyone began ending it.
        var endingResult: LivenessResult?
    }
    private let progress: Mutex<Progress>

    init(record: SessionRecord, id: SessionID, liveness: LivenessSession, worker: AnalysisWorker, log: SessionEventLog,
         directory: DataDirectory, logger: Logger) {
        self.id = id
        self.liveness = liveness
        self.worker = worker
        self.log = log
        recordMode = record.recordMode
        self.directory = directory
        self.logger = logger
        progress = Mutex(Progress(record: record))
    }

    /// Hands `act` what each event asks of the station (nothing for most).
    func onConsequence(_ act: @escaping @Sendable (Consequence) -> Void) {
        // Weak: the liveness session this registers with belongs to this object.
        liveness.onEvent { [weak self] event in
            guard let self else { return }
            let consequence = handle(event)
            if case .none = consequence { return }
            act(consequence)
        }
    }

    var timestamps: VideoTimestamps { progress.withLock { $0.timestamps } }
    var isFinishing: Bool { progress.withLock { $0.finishing } }
    var isRecording: Bool { progress.withLock { $0.recording } }
    var endingResult: LivenessResult? { progress.withLock { $0.endingResult } }

    /// The index row with the live frame counters and moments.
    var record: SessionRecord {
        var record = progress.withLock { progress in
            var record = progress.record
            record.timestamps = progress.timestamps
            return record
        }
        record.copyCounters(worker.counters)
        return record
    }

    /// Changes the row kept in memory (what is sealed when the index cannot be read).
    func updateRecord(_ change: (inout SessionRecord) -> Void) {
        progress.withLock { change(&$0.record) }
    }

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

    /// Why a claim to end the session is made: a cancel loses to a result the
    /// session has already reached; anything else (the result itself, a
    /// shutdown, the camera, a storage failure) ends it with that result.
    enum Claimant { case cancel, other }

    /// True exactly once: whoever gets it ends the session. A cancel gets
    /// false as well once the session has reached its result, so a session
    /// is never both cancelled and given a result.
    func claimFinish(for claimant: Claimant) -> Bool {
        progress.withLock { progress in
            if progress.finishing { return false }
            if claimant == .cancel && progress.endingResult != nil { return false }
            progress.finishing = true
            return true
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
            if noteMoment(of: command.currentStatus) { consequence = .persist }
        case .result(let result):
            // A result reached after someone began ending the session (a
            // cancel that won) is not part of its story: the session was
            // stopped before it.
            guard accept(result) else {
                logger.notice("a result reached after the session began ending is not kept",
                              metadata: ["retCode": "\(result.retCode)"])
                return .none
            }
            imagePaths = saveStills(of: result)
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

    /// ORTH or RESET issued for the first time: their moments are kept.
    private func noteMoment(of status: OperationStatus) -> Bool {
        progress.withLock { progress -> Bool in
            let now = VideoTimestamps.nowMilliseconds()
            if status == .orth, progress.timestamps.firstMotion == 0 {
                progress.timestamps.firstMotion = now
                return true
            } else if status == .reset, progress.timestamps.secondMotion == 0 {
                progress.timestamps.secondMotion = now
                return true
            }
            return false
        }
    }

    /// False when the session is already being ended; a result that ends
    /// the session is kept as its ending result otherwise.
    private func accept(_ result: LivenessResult) -> Bool {
        progress.withLock { progress in
            guard !progress.finishing else { return false }
            if result.code.endsSession && progress.endingResult == nil { progress.endingResult = result }
            return true
        }
    }

    private func saveStills(of result: LivenessResult) -> [StillKind: String] {
        var imagePaths: [StillKind: String] = [:]
        for image in result.images {
            let name = Self.fileName(for: image.kind, code: result.code)
            do {
                try DurableFile.write(image.data, to: directory.file(name, of: id), mode: 0o600)
                imagePaths[image.kind] = name
            } catch {
                // The line then names no still; the session itself goes on
                // (a full disk ends it through the event log).
                logger.error("still not saved", metadata: ["file": "\(name)", "error": "\(error)"])
            }
        }
        return imagePaths
    }

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
