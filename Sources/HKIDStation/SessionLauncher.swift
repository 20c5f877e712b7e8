import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import HKIDSignature
import Logging

/// Brings a session into being for the `Station`, in three steps it calls
/// in order: `open` (its folder, event log and index row: after it, the
/// session exists and `/events` can follow it), `launch` (the camera
/// running, the liveness session, its analysis, its recording) and `begin`
/// (detection starts). A step that fails undoes what it made, or leaves
/// the station a row to mark failed.
struct SessionLauncher {
    let configuration: StationConfiguration
    let directory: DataDirectory
    let store: SessionStore
    let camera: CameraService
    let metrics: StationMetrics
    let thread: AnalysisThread
    let logger: Logger

    /// The session's folder, its (empty) event log, then its index row. A
    /// failure leaves nothing behind: no folder, no row.
    func open(_ resolved: SessionRequest.Resolved,
              onLogFailure: @escaping @Sendable (SessionID, String) -> Void) throws(StationError)
        -> (SessionRecord, SessionID, SessionEventLog) {
        let id = SessionID.random()
        try directory.createDirectory(for: id)
        do throws(StationError) {
            let log = try SessionEventLog(partialPath: directory.eventLogPath(of: id),
                                          finalPath: directory.file(BundleLayout.events, of: id)) { onLogFailure(id, $0) }
            let row = SessionRecord(id: id.rawValue, cardType: resolved.cardType.rawValue,
                                    language: resolved.language.rawValue, overtimeSeconds: resolved.overtimeSeconds,
                                    recordMode: configuration.recordMode, createdAt: VideoTimestamps.nowMilliseconds())
            do { return (try store.insert(row), id, log) } catch {
                logger.error("the session could not be recorded", metadata: ["error": "\(error)"])
                metrics.storageFailed()
                throw StationError(.storage, "the session could not be recorded (\(error))")
            }
        } catch {
            // A start answered 500 leaves no empty folder behind.
            directory.removeDirectory(of: id)
            throw error
        }
    }

    /// The camera running, then the liveness session, its analysis and (in
    /// `whole-session` mode) its recording. Throws 503 with the reason.
    func launch(_ record: SessionRecord, id: SessionID, log: SessionEventLog,
                _ resolved: SessionRequest.Resolved) async throws(StationError) -> ActiveSession {
        try await ensureCameraRuns()
        var sessionLogger = logger
        sessionLogger[metadataKey: "session"] = "\(id)"
        let session = LivenessSession(configuration: livenessConfiguration(resolved), logger: sessionLogger)
        let worker = AnalysisWorker(session: session, metrics: metrics, logger: sessionLogger, thread: thread)
        let running = ActiveSession(record: record, id: id, liveness: session, worker: worker, log: log,
                                    directory: directory, logger: sessionLogger)
        guard configuration.recordMode == .wholeSession else {
            running.markStartedWithoutRecording()
            return running
        }
        do {
            try await camera.startRecording(to: directory.recordingPath(of: id))
        } catch {
            worker.stop()
            session.close()
            throw StationError(.unavailable, "recording could not start: \(error.reason)")
        }
        running.markRecordingStarted()
        return running
    }

    /// Detection starts (the challenge is drawn now) and is recorded.
    func begin(_ running: ActiveSession) {
        running.liveness.startDetect()
        let challenge = running.liveness.evidence.challenge
        running.updateRecord { record in
            record.livenessMode = configuration.liveness.rawValue
            record.challenge = challenge?.kind.rawValue
            record.firstRotation = challenge?.first.rawValue
        }
        logger.info("session started", metadata: [
            "session": "\(running.id)", "cardType": "\(running.record.cardType)",
            "liveness": "\(configuration.liveness.rawValue)",
            "challenge": "\(challenge.map { "\($0.kind.rawValue) \($0.first.rawValue) first" } ?? "none")"])
    }

    /// With `restart_file_on_session` the file starts again from its
    /// beginning; a camera that is not running is retried at once instead of
    /// at its next back-off. Either is waited for up to
    /// `source_start_timeout_seconds`; then 503 with the source's last error.
    private func ensureCameraRuns() async throws(StationError) {
        let restartsFile = configuration.source == .file && configuration.restartFileOnSession
        guard restartsFile || !camera.health.running else { return }
        if let problem = await camera.restartSource(within: configuration.sourceStartTimeout) {
            throw StationError(.unavailable, restartsFile ? "the video source did not start again: \(problem)"
                                                          : "the camera is not running: \(problem)")
        }
    }

    private func livenessConfiguration(_ resolved: SessionRequest.Resolved) -> LivenessConfiguration {
        var liveness = LivenessConfiguration(cardType: resolved.cardType)
        liveness.language = resolved.language
        liveness.overtimeSeconds = resolved.overtimeSeconds
        // Frame traces feed the operator page's quad overlay.
        liveness.emitsFrameTrace = true
        // A live camera can stop; overtime must still come.
        liveness.watchdogSeconds = 2
        liveness.liveness = configuration.liveness
        liveness.challenge = configuration.challenge
        return liveness
    }
}
