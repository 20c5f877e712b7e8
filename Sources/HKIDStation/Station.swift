import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDSignature
import Logging

/// The station's one source of truth: which session runs, starting and
/// ending sessions, recovery after a crash, and the read side of the index.
///
/// An actor because start, cancel, results and shutdown arrive from HTTP
/// tasks, the delivery queue and signal handling at once, and "at most one
/// active session" must hold across all of them. Frames do not pass through
/// it: the camera thread hands them straight to the session's `AnalysisWorker`.
public actor Station {
    public nonisolated let configuration: StationConfiguration
    public nonisolated let directory: DataDirectory
    public nonisolated let store: SessionStore
    public nonisolated let signer: ManifestSigner
    public nonisolated let camera: CameraService
    public nonisolated let metrics: StationMetrics
    private let logger: Logger
    private let analysisThread = AnalysisThread(name: "hkid.station.analysis")
    private var active: ActiveSession?
    /// True between accepting a start and the session being in place (the
    /// start awaits the camera), so a second start still gets 409.
    private var starting = false
    private var shuttingDown = false

    public init(configuration: StationConfiguration, logger: Logger) throws(StationError) {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        directory = DataDirectory(root: configuration.dataURL)
        try directory.prepare()
        store = try SessionStore(path: directory.databasePath)
        signer = try StationKeys.loadOrCreate(configuredPath: configuration.signingKeyFile, directory: directory,
                                              logger: logger)
        metrics = StationMetrics()
        var settings = CameraPipeline.Settings(source: try configuration.cameraSource)
        settings.previewFramesPerSecond = configuration.previewFramesPerSecond
        settings.previewWidth = configuration.previewWidth
        settings.recordingBitrate = configuration.recordingBitrate
        settings.loops = configuration.source == .file && configuration.loopFile
        let ended = CameraEndRelay()
        camera = CameraService(settings: settings, loopsFile: configuration.loopFile, logger: logger) { reason in
            ended.relay(reason)
        }
        ended.station = self
    }

    // MARK: Lifecycle

    /// Marks sessions a crash left active as interrupted and seals their
    /// bundles, then starts the camera.
    public func start() async {
        await recoverInterruptedSessions()
        camera.start()
    }

    /// Ends the active session as interrupted (its recording finalised) and
    /// stops the camera. New sessions are refused from here on.
    public func shutdown() async {
        shuttingDown = true
        if let active {
            await finish(active, status: .interrupted, result: nil, reason: "the station shut down")
        }
        let camera = self.camera
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                camera.shutdown()
                done.resume()
            }
        }
    }

    public var isShuttingDown: Bool { shuttingDown }

    // MARK: Sessions

    public func startSession(_ request: SessionRequest) async throws(StationError) -> SessionRecord {
        guard !shuttingDown else { throw StationError(.unavailable, "the station is shutting down") }
        if let active { throw StationError(.conflict, "session \(active.id) is still active") }
        guard !starting else { throw StationError(.conflict, "a session is starting") }
        let resolved = try request.resolved(defaults: configuration)
        starting = true
        defer { starting = false }

        let id = SessionID.random()
        try directory.createDirectory(for: id)
        var record = SessionRecord(id: id.rawValue, cardType: resolved.cardType.rawValue,
                                   language: resolved.language.rawValue, overtimeSeconds: resolved.overtimeSeconds,
                                   recordMode: configuration.recordMode, createdAt: VideoTimestamps.nowMilliseconds())
        do { record = try store.insert(record) } catch {
            throw storageFailure(error, doing: "the session could not be recorded")
        }

        if configuration.source == .file && configuration.restartFileOnSession {
            // Bounded: a file that will not start again (or a source that
            // keeps failing) must not hold the request, the "starting"
            // flag and shutdown for ever.
            if let problem = await camera.restartSource(within: configuration.sourceStartTimeout) {
                let reason = "the video source did not start again: \(problem)"
                await abandon(record, reason: reason)
                throw StationError(.unavailable, reason)
            }
        }

        var liveness = LivenessConfiguration(cardType: resolved.cardType)
        liveness.language = resolved.language
        liveness.overtimeSeconds = resolved.overtimeSeconds
        // Frame traces feed the operator page's quad overlay.
        liveness.emitsFrameTrace = true
        // A live camera can stop; overtime must still come.
        liveness.watchdogSeconds = 2
        liveness.liveness = configuration.liveness
        liveness.challenge = configuration.challenge
        var sessionLogger = logger
        sessionLogger[metadataKey: "session"] = "\(id)"
        let session = LivenessSession(configuration: liveness, logger: sessionLogger)
        let log: SessionEventLog
        do {
            log = try SessionEventLog(partialPath: directory.eventLogPath(of: id),
                                      finalPath: directory.file(BundleLayout.events, of: id)) { [weak self] reason in
                guard let self else { return }
                Task { await self.eventLogFailed(id, reason) }
            }
        } catch {
            await abandon(record, reason: error.message)
            throw error
        }
        let worker = AnalysisWorker(session: session, metrics: metrics, logger: sessionLogger, thread: analysisThread)
        let running = ActiveSession(id: id, record: record, liveness: session, worker: worker, log: log,
                                    recordMode: configuration.recordMode, directory: directory, logger: sessionLogger)

        if configuration.recordMode == .wholeSession {
            do {
                try await camera.startRecording(to: directory.recordingPath(of: id))
                running.markRecordingStarted()
            } catch {
                worker.stop()
                session.close()
                try? log.close()
                await abandon(record, reason: "recording could not start: \(error.reason)")
                throw StationError(.unavailable, "recording could not start: \(error.reason)")
            }
        } else {
            running.markStartedWithoutRecording()
        }

        session.onEvent { [weak self, running] event in
            let consequence = running.handle(event)
            guard let self else { return }
            switch consequence {
            case .none: break
            case .persist: Task { await self.persistProgress(running) }
            case .startRecording: Task { await self.startDeferredRecording(running) }
            case .end(let result): Task { await self.sessionReachedResult(running, result) }
            }
        }
        // Persist the start moment now: after a crash it is all recovery has.
        record.timestamps = running.timestamps
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the session's start was not recorded")
        }
        active = running
        camera.setFrameConsumer { frame in worker.offer(frame) }
        session.startDetect()
        // The challenge is drawn by startDetect: record what was asked.
        let challenge = session.evidence.challenge
        record.livenessMode = configuration.liveness.rawValue
        record.challenge = challenge?.kind.rawValue
        record.firstRotation = challenge?.first.rawValue
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the session's challenge was not recorded")
        }
        logger.info("session started", metadata: ["session": "\(id)", "cardType": "\(resolved.cardType.rawValue)",
                                                  "liveness": "\(configuration.liveness.rawValue)",
                                                  "challenge": "\(challenge.map { "\($0.kind.rawValue) \($0.first.rawValue) first" } ?? "none")"])
        return record
    }

    public func cancelSession(_ id: SessionID) async throws(StationError) -> SessionRecord {
        guard let record = try session(id) else { throw StationError(.notFound, "no session \(id)") }
        guard let active, active.id == id, record.status == .active else {
            throw StationError(.conflict, "session \(id) is not active (it is \(record.status.rawValue))")
        }
        // Exactly one caller ends it: a cancel that arrives while the session
        // is already ending (another cancel, its result, a shutdown) is 409.
        guard await finish(active, status: .cancelled, result: nil, reason: "cancelled by the operator") else {
            throw StationError(.conflict, "session \(id) is already ending")
        }
        return try session(id) ?? record
    }

    /// A session as the index has it; the active one with its live frame
    /// counters and moments. A storage error is an error, not "no session".
    public func session(_ id: SessionID) throws(StationError) -> SessionRecord? {
        let found: SessionRecord?
        do { found = try store.find(id) } catch {
            throw storageFailure(error, doing: "the session index could not be read")
        }
        guard var record = found else { return nil }
        if let active, active.id == id, record.status == .active {
            let counters = active.worker.counters
            record.framesReceived = counters.received
            record.framesAnalysed = counters.analysed
            record.framesDropped = counters.dropped
            record.timestamps = active.timestamps
        }
        return record
    }

    public var activeSessionID: SessionID? { active?.id }

    /// A page of the index, newest first.
    public func list(status: SessionStatus?, limit: Int, after cursor: Int64?) throws(StationError) -> [SessionRecord] {
        do { return try store.list(status: status, limit: limit, after: cursor) } catch {
            throw storageFailure(error, doing: "the session index could not be read")
        }
    }

    /// Logs a storage error, counts it, and turns it into a 500 for the caller.
    private func storageFailure(_ error: any Error, doing what: String) -> StationError {
        logger.error("\(what)", metadata: ["error": "\(error)"])
        metrics.storageFailed()
        return StationError(.storage, "\(what) (\(error))")
    }

    /// The live line stream of the active session, or nil when `id` is not active.
    public func liveEvents(_ id: SessionID) -> SessionEventLog.Lines? {
        guard let active, active.id == id else { return nil }
        return active.log.subscribe()
    }

    /// The source ended or failed under a running session.
    func cameraEnded(_ reason: String) async {
        guard let active else { return }
        await finish(active, status: .interrupted, result: nil, reason: reason)
    }

    private func startDeferredRecording(_ running: ActiveSession) async {
        guard active === running, !running.isRecording else { return }
        do {
            try await camera.startRecording(to: directory.recordingPath(of: running.id))
            running.markRecordingStarted()
        } catch {
            logger.error("recording could not start", metadata: ["session": "\(running.id)", "error": "\(error)"])
        }
    }

    /// ORTH or RESET was issued: the moment goes to the index at once, so a
    /// crash later keeps it.
    private func persistProgress(_ running: ActiveSession) {
        guard active === running, var record = try? store.find(running.id), record.status == .active else { return }
        record.timestamps = running.timestamps
        let counters = running.worker.counters
        record.framesReceived = counters.received
        record.framesAnalysed = counters.analysed
        record.framesDropped = counters.dropped
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the session's progress was not recorded")
        }
    }

    /// A line of the event log could not be written: the session cannot be
    /// told whole any more, so it ends now, failed, and says why.
    private func eventLogFailed(_ id: SessionID, _ reason: String) async {
        logger.error("event log write failed; the session fails", metadata: ["session": "\(id)", "error": "\(reason)"])
        metrics.storageFailed()
        guard let active, active.id == id else { return }
        await finish(active, status: .failed, result: nil, reason: reason)
    }

    private func sessionReachedResult(_ running: ActiveSession, _ result: LivenessResult) async {
        guard active === running else { return }
        await finish(running, status: result.success ? .completed : .failed, result: result, reason: nil)
    }

    /// Ends a session whatever the reason: stop analysis, let the last events
    /// land, finalise the recording and the log, mark it in the index, then
    /// seal the bundle. False when someone else is ending it already.
    @discardableResult
    private func finish(_ running: ActiveSession, status: SessionStatus, result: LivenessResult?,
                        reason: String?) async -> Bool {
        guard running.claimFinish() else { return false }
        camera.setFrameConsumer(nil)
        let worker = running.worker
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { worker.stop(); done.resume() }
        }
        running.liveness.stopOverTimer()
        await running.liveness.flush()
        // Before close: a session no result ended still has its interim verdict.
        let liveness = running.liveness.liveness
        running.liveness.close()

        var hasVideo = false
        if running.isRecording {
            let ending = await camera.stopRecording()
            if case .cutShort(_, let why) = ending {
                logger.warning("recording cut short", metadata: ["session": "\(running.id)", "reason": "\(why)"])
            }
            hasVideo = finaliseRecording(of: running.id)
        }
        running.markStopped()
        // One clock read: seconds and fraction of the same moment.
        let elapsed = ContinuousClock.now - running.started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        running.log.append(running.endLine(seconds: seconds, liveness: liveness))
        var status = status, reason = reason
        if let failure = running.log.failure {
            // Never sealed as a whole story: the log has a hole.
            status = .failed
            reason = failure
        }
        do { try running.log.close() } catch {
            logger.error("event log not finalised", metadata: ["session": "\(running.id)", "error": "\(error)"])
            metrics.storageFailed()
        }
        await HoldPoint.beforeMark.hold(logger: logger)

        var record: SessionRecord
        do {
            record = try store.find(running.id) ?? running.record
        } catch {
            // Seal from what the session itself knows; the index gets it on the next start.
            _ = storageFailure(error, doing: "the session index could not be read to end the session")
            record = running.record
        }
        let finalResult = result ?? running.lastResult.flatMap { $0.code.endsSession ? $0 : nil }
        record.status = status
        record.endedAt = VideoTimestamps.nowMilliseconds()
        record.resultCode = finalResult?.retCode
        record.resultMessage = finalResult?.message
        record.livenessVerdict = finalResult?.liveness?.verdict.rawValue
        record.spoofScore = finalResult?.liveness?.spoofScore
        record.reason = reason
        record.timestamps = running.timestamps
        let counters = running.worker.counters
        record.framesReceived = counters.received
        record.framesAnalysed = counters.analysed
        record.framesDropped = counters.dropped
        record.wallSeconds = seconds
        record.hasVideo = hasVideo
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the session's end was not recorded")
        }
        await HoldPoint.beforeSeal.hold(logger: logger)
        await seal(&record)
        metrics.sessionEnded(status: status, resultCode: record.resultCode)
        if active === running { active = nil }
        // The session's encoder, tracker and buffers are gone now; give the
        // pages they leave free back, or RSS creeps up session after session.
        AllocatorTuning.releaseFreeMemory()
        logger.info("session ended", metadata: ["session": "\(running.id)", "status": "\(status.rawValue)",
                                                "retCode": "\(record.resultCode.map(String.init) ?? "none")",
                                                "seconds": "\(seconds)", "analysed": "\(counters.analysed)",
                                                "dropped": "\(counters.dropped)"])
        return true
    }

    /// A session that never got going: mark it failed (with the reason) and
    /// sealed, so the index holds no phantom active session.
    private func abandon(_ record: SessionRecord, reason: String) async {
        var record = record
        record.status = .failed
        record.reason = reason
        record.endedAt = VideoTimestamps.nowMilliseconds()
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the failed start was not recorded")
        }
        await seal(&record)
        metrics.sessionEnded(status: .failed, resultCode: nil)
    }

    /// Syncs and renames the growing recording to `video.mkv`, when it holds
    /// a frame that plays. One that does not (a session cancelled in its
    /// first moments: a Matroska header and nothing else) is kept aside as
    /// `.video.mkv.unplayable` and not signed: the manifest then names no video.
    private func finaliseRecording(of id: SessionID) -> Bool {
        let partial = directory.recordingPath(of: id)
        guard FileManager.default.fileExists(atPath: partial) else { return false }
        chmod(partial, 0o600)
        do {
            try DurableFile.sync(path: partial)
            guard RecordingRepair.hasPlayableFrame(partial) else {
                logger.warning("the recording holds no playable frame; the bundle has no video", metadata: ["session": "\(id)"])
                try DurableFile.rename(partial, to: directory.file(".\(BundleLayout.video).unplayable", of: id))
                return false
            }
            try DurableFile.rename(partial, to: directory.file(BundleLayout.video, of: id))
            return true
        } catch {
            logger.error("recording not finalised", metadata: ["session": "\(id)", "error": "\(error)"])
            return false
        }
    }

    private func seal(_ record: inout SessionRecord) async {
        guard let id = SessionID(record.id) else { return }
        let writer = BundleWriter(directory: directory, signer: signer, logger: logger)
        let snapshot = record
        let logger = self.logger
        let sealed: Bool = await withCheckedContinuation { done in
            DispatchQueue.global().async {
                do {
                    _ = try writer.seal(snapshot, id: id)
                    done.resume(returning: true)
                } catch {
                    logger.error("bundle not sealed", metadata: ["session": "\(id)", "error": "\(error)"])
                    done.resume(returning: false)
                }
            }
        }
        guard sealed else {
            metrics.storageFailed()
            return
        }
        await HoldPoint.afterSeal.hold(logger: logger)
        record.bundleReady = true
        do { try store.update(record) } catch {
            _ = storageFailure(error, doing: "the sealed bundle was not recorded as ready")
        }
    }

    /// After a crash or `kill -9`: every session without a sealed bundle is
    /// finished here, whatever the index says of it. One still `active` was
    /// cut off: its Matroska recording plays up to the last cluster written,
    /// so it is remuxed (to state its real length), and its moments and frame
    /// counters are read back from its event log. One that had ended was
    /// killed while it was being sealed: it is sealed now.
    private func recoverInterruptedSessions() async {
        let unsealed: [SessionRecord]
        do { unsealed = try store.unsealedSessions() } catch {
            _ = storageFailure(error, doing: "sessions left by a crash could not be listed")
            return
        }
        for var record in unsealed {
            guard let id = SessionID(record.id) else { continue }
            let wasActive = record.status == .active
            let partialLog = directory.eventLogPath(of: id)
            let finalLog = directory.file(BundleLayout.events, of: id)
            if FileManager.default.fileExists(atPath: partialLog) {
                EventLogSummary.truncateToLastLine(partialLog)
                try? DurableFile.sync(path: partialLog)
                try? DurableFile.rename(partialLog, to: finalLog)
            }
            let recording = directory.recordingPath(of: id)
            var lastWrite: Int64?
            for path in [recording, finalLog] {
                if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                   let modified = attributes[.modificationDate] as? Date {
                    let ms = Int64((modified.timeIntervalSince1970 * 1000).rounded())
                    lastWrite = max(lastWrite ?? 0, ms)
                }
            }
            if FileManager.default.fileExists(atPath: recording) {
                record.hasVideo = recoverRecording(of: id)
            } else {
                record.hasVideo = record.hasVideo
                    || FileManager.default.fileExists(atPath: directory.file(BundleLayout.video, of: id))
            }
            if wasActive {
                let events = EventLogSummary(contentsOf: finalLog)
                record.endedAt = lastWrite ?? VideoTimestamps.nowMilliseconds()
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
                // Moments the index missed, from the log's media times (t
                // counts from the first frame, a moment after the start).
                let start = record.timestamps.start > 0 ? record.timestamps.start : record.createdAt
                if record.timestamps.firstMotion == 0, let t = events.orthTime {
                    record.timestamps.firstMotion = start + Int64((t * 1000).rounded())
                }
                if record.timestamps.secondMotion == 0, let t = events.resetTime {
                    record.timestamps.secondMotion = start + Int64((t * 1000).rounded())
                }
                if record.timestamps.stop == 0 { record.timestamps.stop = record.endedAt ?? 0 }
                record.framesAnalysed = max(record.framesAnalysed, events.frameLines)
                record.framesReceived = max(record.framesReceived, record.framesAnalysed + record.framesDropped)
                record.framesDropped = record.framesReceived - record.framesAnalysed
                if let endedAt = record.endedAt { record.wallSeconds = Double(endedAt - start) / 1000 }
            }
            do { try store.update(record) } catch {
                _ = storageFailure(error, doing: "a recovered session could not be recorded")
            }
            await seal(&record)
            if wasActive { metrics.sessionEnded(status: record.status, resultCode: record.resultCode) }
            logger.warning(wasActive ? "recovered an interrupted session" : "sealed a session a crash left unsealed",
                           metadata: ["session": "\(id)", "status": "\(record.status.rawValue)",
                                      "video": "\(record.hasVideo)", "sealed": "\(record.bundleReady)"])
        }
    }

    /// A recording the crash left growing: remuxed into `video.mkv` so its
    /// header states what it holds. When not one frame survives, there is
    /// no video (the cut file is kept aside, unsigned).
    private func recoverRecording(of id: SessionID) -> Bool {
        let partial = directory.recordingPath(of: id)
        let final = directory.file(BundleLayout.video, of: id)
        let repaired = directory.file(".\(BundleLayout.video).repaired", of: id)
        do {
            try RecordingRepair.remux(partial, to: repaired)
            guard RecordingRepair.hasPlayableFrame(repaired) else {
                throw StationError(.storage, "no frame of the recording survived")
            }
            chmod(repaired, 0o600)
            try DurableFile.sync(path: repaired)
            try DurableFile.rename(repaired, to: final)
            try? FileManager.default.removeItem(atPath: partial)
            return true
        } catch {
            logger.error("recording not recovered", metadata: ["session": "\(id)", "error": "\(error)"])
            try? FileManager.default.removeItem(atPath: repaired)
            return false
        }
    }
}

/// Lets the camera thread reach the station, which is created after the
/// camera service (the service needs the callback at init).
private final class CameraEndRelay: @unchecked Sendable {
    // @unchecked: `station` is set once, in Station.init, before the camera
    // thread starts (Station.start), and only read afterwards.
    weak var station: Station?

    func relay(_ reason: String) {
        guard let station else { return }
        Task { await station.cameraEnded(reason) }
    }
}
