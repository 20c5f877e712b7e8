import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import HKIDSignature
import Logging

/// The station's one source of truth: which session runs, starting and
/// ending sessions, and the read side of the index.
///
/// An actor because start, cancel, results and shutdown arrive from HTTP
/// tasks, the delivery queue and signal handling at once, and "at most one
/// active session" must hold across all of them. Frames do not pass through
/// it: the camera thread hands them straight to the session's `AnalysisWorker`.
/// Ending a session is `SessionFinisher`'s, sealing it `SessionSealer`'s.
public actor Station {
    public nonisolated let configuration: StationConfiguration
    public nonisolated let directory: DataDirectory
    public nonisolated let signer: ManifestSigner
    public nonisolated let camera: CameraService
    public nonisolated let metrics: StationMetrics
    let store: SessionStore
    private let logger: Logger
    private let analysisThread = AnalysisThread(name: "hkid.station.analysis")
    private let finisher: SessionFinisher
    private var active: ActiveSession?
    /// Between accepting a start and the session being in place (the start
    /// awaits the camera): a second start gets 409, and `/events` follows
    /// the session's log from its first line.
    private var starting: (id: SessionID, log: SessionEventLog)?
    private var startPending = false
    private var shuttingDown = false
    /// Ended sessions on their way to a sealed bundle.
    private let sealing: SealingQueue
    /// Uploads sealed sessions to the hub, when one is configured.
    private let reporter: HubReporter?

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
        let ended = CameraEndRelay()
        camera = CameraService(settings: try CameraService.settings(for: configuration), loopsFile: configuration.loopFile,
                               logger: logger) { reason in ended.relay(reason) }
        finisher = SessionFinisher(camera: camera, logger: logger)
        sealing = SealingQueue(sealer: SessionSealer(directory: directory, store: store, signer: signer, logger: logger),
                               metrics: metrics, logger: logger)
        reporter = try HubReporter.make(configuration: configuration, directory: directory, logger: logger)
        ended.station = self
    }

    // MARK: Lifecycle

    /// Finishes and seals the sessions a crash left, then starts the camera.
    public func start() async {
        await recoverUnsealedSessions()
        await reporter?.start()
        camera.start()
    }

    /// Ends the active session as interrupted (its recording finalised) and
    /// stops the camera. New sessions are refused from here on.
    public func shutdown() async {
        shuttingDown = true
        if let active {
            await finish(active, status: .interrupted, result: nil, reason: "the station shut down")
        }
        await sealing.stop()
        await reporter?.stop()
        let camera = self.camera
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                camera.shutdown()
                done.resume()
            }
        }
    }

    public var isShuttingDown: Bool { shuttingDown }

    // MARK: Starting

    public func startSession(_ request: SessionRequest) async throws(StationError) -> SessionRecord {
        guard !shuttingDown else { throw StationError(.unavailable, "the station is shutting down") }
        if let active { throw StationError(.conflict, "session \(active.id) is still active") }
        guard !startPending else { throw StationError(.conflict, "a session is starting") }
        let resolved = try request.resolved(defaults: configuration)
        startPending = true
        defer { startPending = false; starting = nil }
        let launcher = SessionLauncher(configuration: configuration, directory: directory, store: store,
                                       camera: camera, metrics: metrics, thread: analysisThread, logger: logger)
        let (record, id, log) = try launcher.open(resolved, onLogFailure: { [weak self] id, reason in
            guard let self else { return }
            Task { await self.eventLogFailed(id, reason) }
        })
        starting = (id, log)
        let running: ActiveSession
        do {
            running = try await launcher.launch(record, id: id, log: log, resolved)
        } catch {
            await abandon(record, log: log, reason: error.message)
            throw error
        }
        running.onConsequence { [weak self, running] consequence in
            guard let self else { return }
            Task { await self.handle(consequence, of: running) }
        }
        persist(running, doing: "the session's start was not recorded")
        active = running
        camera.setFrameConsumer { [worker = running.worker] frame in worker.offer(frame) }
        launcher.begin(running)
        // The challenge is drawn as detection begins: recorded now.
        persist(running, doing: "the session's challenge was not recorded")
        return running.record
    }

    /// A start that failed after its row was written: the row says failed,
    /// with why, and is sealed, so the index holds no phantom active session.
    private func abandon(_ record: SessionRecord, log: SessionEventLog, reason: String) async {
        do { try log.close() } catch {
            // The sealer syncs and renames the partial log itself.
            logger.error("event log not finalised", metadata: ["session": "\(record.id)", "error": "\(error)"])
        }
        var record = record
        record.status = .failed
        record.reason = reason
        record.endedAt = VideoTimestamps.nowMilliseconds()
        await sealing.complete(record, recordingCutShort: false)
        metrics.sessionEnded(status: .failed, resultCode: nil)
    }

    // MARK: Reading and cancelling

    public func cancelSession(_ id: SessionID) async throws(StationError) -> SessionRecord {
        guard let active, active.id == id else {
            if let starting, starting.id == id { throw StationError(.conflict, "session \(id) is still starting") }
            guard let record = try await session(id) else { throw StationError(.notFound, "no session \(id)") }
            throw StationError(.conflict, "session \(id) is not active (it is \(record.status.rawValue))")
        }
        // Exactly one caller ends it: a cancel that arrives once the session
        // has its result, or while another request ends it, is 409.
        guard await finish(active, as: .cancel, status: .cancelled, result: nil, reason: "cancelled by the operator") else {
            let why = active.endingResult != nil ? "it has reached its result" : "it is already ending"
            throw StationError(.conflict, "session \(id) cannot be cancelled: \(why)")
        }
        return try await session(id) ?? active.record
    }

    /// A session as it stands: the active one with its live counters, one
    /// waiting to be sealed as it ended, any other as the index has it. A
    /// storage error is an error, not "no session".
    public func session(_ id: SessionID) async throws(StationError) -> SessionRecord? {
        if let ended = await sealing.record(of: id.rawValue) { return ended }
        if let active, active.id == id { return active.record }
        do { return try store.find(id) } catch {
            throw storageFailure(error, doing: "the session index could not be read")
        }
    }

    public var activeSessionID: SessionID? { active?.id }

    /// A page of the index, newest first (sessions waiting to be sealed as they ended).
    public func list(status: SessionStatus?, limit: Int, after cursor: Int64?) async throws(StationError) -> [SessionRecord] {
        let page: [SessionRecord]
        do { page = try store.list(status: status, limit: limit, after: cursor) } catch {
            throw storageFailure(error, doing: "the session index could not be read")
        }
        return await sealing.overlay(page, status: status)
    }

    /// The live line stream of the active (or starting) session, or nil when `id` is neither.
    public func liveEvents(_ id: SessionID) -> SessionEventLog.Lines? {
        if let active, active.id == id { return active.log.subscribe() }
        if let starting, starting.id == id { return starting.log.subscribe() }
        return nil
    }

    /// Logs a storage error, counts it, and turns it into a 500 for the caller.
    private func storageFailure(_ error: any Error, doing what: String) -> StationError {
        logger.error("\(what)", metadata: ["error": "\(error)"])
        metrics.storageFailed()
        return StationError(.storage, "\(what) (\(error))")
    }

    // MARK: While a session runs

    private func handle(_ consequence: ActiveSession.Consequence, of running: ActiveSession) async {
        guard active === running else { return }
        switch consequence {
        case .none: break
        // ORTH or RESET: the moment goes to the index at once, so a crash later keeps it.
        case .persist: persist(running, doing: "the session's progress was not recorded")
        case .startRecording: await startDeferredRecording(running)
        case .end(let result):
            await HoldPoint.beforeResultEnds.hold(logger: logger)
            await finish(running, status: result.success ? .completed : .failed, result: result, reason: nil)
        }
    }

    /// The running session's row, moments and counters to the index (not
    /// once it is being ended: the end is the sealer's to write).
    private func persist(_ running: ActiveSession, doing what: String) {
        guard !running.isFinishing else { return }
        do { try store.update(running.record) } catch { _ = storageFailure(error, doing: what) }
    }

    private func startDeferredRecording(_ running: ActiveSession) async {
        guard !running.isRecording else { return }
        do {
            try await camera.startRecording(to: directory.recordingPath(of: running.id))
            running.markRecordingStarted()
        } catch {
            logger.error("recording could not start", metadata: ["session": "\(running.id)", "error": "\(error)"])
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

    /// The source ended or failed under a running session.
    func cameraEnded(_ reason: String) async {
        guard let active else { return }
        await finish(active, status: .interrupted, result: nil, reason: reason)
    }

    // MARK: Ending

    /// Ends a session whatever the reason, then records and seals it. False
    /// when it may not: someone else is ending it, or (for a cancel) it has
    /// reached its result.
    @discardableResult
    private func finish(_ running: ActiveSession, as claimant: ActiveSession.Claimant = .other, status: SessionStatus,
                        result: LivenessResult?, reason: String?) async -> Bool {
        guard running.claimFinish(for: claimant) else { return false }
        await HoldPoint.afterClaim.hold(logger: logger)
        let ending = await finisher.finish(running, status: status, result: result, reason: reason)
        await sealing.complete(ending.record, recordingCutShort: ending.recordingCutShort)
        await reporter?.poke()
        metrics.sessionEnded(status: ending.record.status, resultCode: ending.record.resultCode)
        if active === running { active = nil }
        // The session's encoder, tracker and buffers are gone now; give the
        // pages they leave free back, or RSS creeps up session after session.
        AllocatorTuning.releaseFreeMemory()
        logger.info("session ended", metadata: ["session": "\(running.id)", "status": "\(ending.record.status.rawValue)",
                                                "retCode": "\(ending.record.resultCode.map(String.init) ?? "none")",
                                                "seconds": "\(ending.record.wallSeconds ?? 0)",
                                                "analysed": "\(ending.record.framesAnalysed)",
                                                "dropped": "\(ending.record.framesDropped)"])
        return true
    }

    /// After a crash or `kill -9`: every session without a sealed bundle is
    /// finished here, whatever the index says of it (`SessionRecovery`).
    private func recoverUnsealedSessions() async {
        let left: [SessionRecord]
        do { left = try store.unsealedSessions() } catch {
            _ = storageFailure(error, doing: "sessions left by a crash could not be listed")
            return
        }
        let recovery = SessionRecovery(directory: directory)
        for record in left {
            let (recovered, cutShort) = recovery.recovered(record)
            let sealed = await sealing.complete(recovered, recordingCutShort: cutShort)
            if record.status == .active { metrics.sessionEnded(status: recovered.status, resultCode: recovered.resultCode) }
            logger.warning(record.status == .active ? "recovered an interrupted session" : "sealed a session a crash left unsealed",
                           metadata: ["session": "\(recovered.id)", "status": "\(recovered.status.rawValue)",
                                      "sealed": "\(sealed)"])
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
