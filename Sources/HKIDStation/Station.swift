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
            throw StationError(.storage, "the session could not be recorded (\(error))")
        }

        if configuration.source == .file && configuration.restartFileOnSession {
            await camera.restartSource()
        }

        var liveness = LivenessConfiguration(cardType: resolved.cardType)
        liveness.language = resolved.language
        liveness.overtimeSeconds = resolved.overtimeSeconds
        // Frame traces feed the operator page's quad overlay.
        liveness.emitsFrameTrace = true
        // A live camera can stop; overtime must still come.
        liveness.watchdogSeconds = 2
        var sessionLogger = logger
        sessionLogger[metadataKey: "session"] = "\(id)"
        let session = LivenessSession(configuration: liveness, logger: sessionLogger)
        let log: SessionEventLog
        do {
            log = try SessionEventLog(partialPath: directory.eventLogPath(of: id),
                                      finalPath: directory.file(BundleLayout.events, of: id))
        } catch {
            await abandon(record, reason: error.message)
            throw error
        }
        let worker = AnalysisWorker(session: session, metrics: metrics, logger: sessionLogger, thread: analysisThread)
        let running = ActiveSession(id: id, liveness: session, worker: worker, log: log,
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
            case .startRecording: Task { await self.startDeferredRecording(running) }
            case .end(let result): Task { await self.sessionReachedResult(running, result) }
            }
        }
        // Persist the start moment now: after a crash it is all recovery has.
        record.timestamps = running.timestamps
        try? store.update(record)
        active = running
        camera.setFrameConsumer { frame in worker.offer(frame) }
        session.startDetect()
        logger.info("session started", metadata: ["session": "\(id)", "cardType": "\(resolved.cardType.rawValue)"])
        return record
    }

    public func cancelSession(_ id: SessionID) async throws(StationError) -> SessionRecord {
        guard let record = try? store.find(id) else { throw StationError(.notFound, "no session \(id)") }
        guard let active, active.id == id, record.status == .active else {
            throw StationError(.conflict, "session \(id) is not active (it is \(record.status.rawValue))")
        }
        await finish(active, status: .cancelled, result: nil, reason: "cancelled by the operator")
        return (try? store.find(id)) ?? record
    }

    public func session(_ id: SessionID) -> SessionRecord? {
        try? store.find(id)
    }

    public var activeSessionID: SessionID? { active?.id }

    /// The live line stream of the active session, or nil when `id` is not active.
    public func liveEvents(_ id: SessionID) -> AsyncStream<String>? {
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

    private func sessionReachedResult(_ running: ActiveSession, _ result: LivenessResult) async {
        guard active === running else { return }
        await finish(running, status: result.success ? .completed : .failed, result: result, reason: nil)
    }

    /// Ends a session whatever the reason: stop analysis, let the last events
    /// land, finalise the recording and the log, seal the bundle, then mark
    /// it in the index.
    private func finish(_ running: ActiveSession, status: SessionStatus, result: LivenessResult?,
                        reason: String?) async {
        guard running.claimFinish() else { return }
        camera.setFrameConsumer(nil)
        let worker = running.worker
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { worker.stop(); done.resume() }
        }
        running.liveness.stopOverTimer()
        await running.liveness.flush()
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
        let seconds = Double((ContinuousClock.now - running.started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - running.started).components.seconds)
        running.log.append(running.endLine(seconds: seconds))
        do { try running.log.close() } catch {
            logger.error("event log not finalised", metadata: ["session": "\(running.id)", "error": "\(error)"])
        }

        guard var record = try? store.find(running.id) else { active = nil; return }
        let finalResult = result ?? running.lastResult.flatMap { $0.code.endsSession ? $0 : nil }
        record.status = status
        record.endedAt = VideoTimestamps.nowMilliseconds()
        record.resultCode = finalResult?.retCode
        record.resultMessage = finalResult?.message
        record.reason = reason
        record.timestamps = running.timestamps
        let counters = running.worker.counters
        record.framesReceived = counters.received
        record.framesAnalysed = counters.analysed
        record.framesDropped = counters.dropped
        record.wallSeconds = seconds
        record.hasVideo = hasVideo
        try? store.update(record)
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
    }

    /// A session that never got going: mark it interrupted and sealed, so
    /// the index holds no phantom active session.
    private func abandon(_ record: SessionRecord, reason: String) async {
        var record = record
        record.status = .interrupted
        record.reason = reason
        record.endedAt = VideoTimestamps.nowMilliseconds()
        try? store.update(record)
        await seal(&record)
    }

    /// Syncs and renames the growing recording to `video.mkv`.
    private func finaliseRecording(of id: SessionID) -> Bool {
        let partial = directory.recordingPath(of: id)
        guard FileManager.default.fileExists(atPath: partial) else { return false }
        chmod(partial, 0o600)
        do {
            try DurableFile.sync(path: partial)
            try DurableFile.rename(partial, to: directory.file(BundleLayout.video, of: id))
            return true
        } catch {
            logger.error("recording not finalised", metadata: ["session": "\(id)", "error": "\(error)"])
            return false
        }
    }

    private func seal(_ record: inout SessionRecord) async {
        guard let id = SessionID(record.id) else { return }
        let writer = BundleWriter(directory: directory, signer: signer)
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
        if sealed {
            record.bundleReady = true
            try? store.update(record)
        }
    }

    /// After a crash or `kill -9`: every session still marked active was cut
    /// off. Its Matroska recording plays up to the last cluster written, so it
    /// is kept, renamed, hashed and signed like any other.
    private func recoverInterruptedSessions() async {
        guard let stale = try? store.sessions(withStatus: .active) else { return }
        for var record in stale {
            guard let id = SessionID(record.id) else { continue }
            let partialLog = directory.eventLogPath(of: id)
            if FileManager.default.fileExists(atPath: partialLog) {
                try? DurableFile.sync(path: partialLog)
                try? DurableFile.rename(partialLog, to: directory.file(BundleLayout.events, of: id))
            }
            let recording = directory.recordingPath(of: id)
            var lastWrite: Int64?
            if let attributes = try? FileManager.default.attributesOfItem(atPath: recording),
               let modified = attributes[.modificationDate] as? Date {
                lastWrite = Int64(modified.timeIntervalSince1970 * 1000)
            }
            record.hasVideo = finaliseRecording(of: id)
            record.status = .interrupted
            record.reason = "the station stopped during the session (crash or kill); recovered at the next start"
            record.endedAt = lastWrite ?? VideoTimestamps.nowMilliseconds()
            if record.timestamps.stop == 0 { record.timestamps.stop = record.endedAt ?? 0 }
            try? store.update(record)
            await seal(&record)
            metrics.sessionEnded(status: .interrupted, resultCode: nil)
            logger.warning("recovered an interrupted session", metadata: ["session": "\(id)", "video": "\(record.hasVideo)"])
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
