import Foundation
import HKIDMedia
import Logging
import Synchronization

/// Owns the camera: runs `CameraPipeline`s one after another on a dedicated
/// thread (a file that ends is started again, a camera that fails is retried),
/// hands analysis frames to whoever is analysing, and preview JPEGs to the
/// preview store. Recording requests go to the pipeline running now.
public final class CameraService: Sendable {
    public struct Health: Sendable, Equatable {
        public var running = false
        public var framesSeen = 0
        /// Size of the analysis frames: the coordinate space of the quad overlay.
        public var frameWidth = 0
        public var frameHeight = 0
        public var lastError: String?
    }

    private struct State {
        var control: CameraPipeline.Control?
        /// Bumped each time a new pipeline is built.
        var generation = 0
        /// The generation of the newest pipeline that has delivered a frame
        /// (one that is built but fails at once never counts as running).
        var delivering = 0
        var health = Health()
        var shuttingDown = false
        var restartRequested = false
        /// Starts waiting for a pipeline built after their generation to
        /// deliver; resumed with true when one does, false at their deadline.
        var generationWaiters: [UUID: (Int, CheckedContinuation<Bool, Never>)] = [:]
    }

    private let settings: CameraPipeline.Settings
    private let loopsFile: Bool
    private let state = Mutex(State())
    private let frameConsumer = Mutex<(@Sendable (VideoFrame) -> Void)?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let logger: Logger
    public let preview = PreviewStore()
    /// Called on the camera thread when the source ends or fails while running.
    private let sourceEnded: @Sendable (String) -> Void

    public init(settings: CameraPipeline.Settings, loopsFile: Bool, logger: Logger,
                sourceEnded: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.loopsFile = loopsFile
        self.logger = logger
        self.sourceEnded = sourceEnded
    }

    /// The pipeline settings `configuration` asks for.
    static func settings(for configuration: StationConfiguration) throws(StationError) -> CameraPipeline.Settings {
        var settings = CameraPipeline.Settings(source: try configuration.cameraSource)
        settings.previewFramesPerSecond = configuration.previewFramesPerSecond
        settings.previewWidth = configuration.previewWidth
        settings.recordingBitrate = configuration.recordingBitrate
        settings.loops = configuration.source == .file && configuration.loopFile
        return settings
    }

    public func start() {
        let thread = Thread { [self] in self.cameraLoop() }
        thread.name = "hkid.station.camera"
        thread.start()
    }

    public var health: Health { state.withLock { $0.health } }

    /// Where analysis frames go; nil drops them (no session running).
    func setFrameConsumer(_ consumer: (@Sendable (VideoFrame) -> Void)?) {
        frameConsumer.withLock { $0 = consumer }
    }

    /// Starts the source again from its beginning (a file, also one that has
    /// ended); returns nil once the new pipeline runs, or, when none runs
    /// within `timeout`, why (the source's last error).
    func restartSource(within timeout: Duration) async -> String? {
        let (control, generation) = state.withLock { state in
            state.restartRequested = true
            return (state.control, state.generation)
        }
        control?.stop()
        if await waitForGeneration(after: generation, timeout: timeout) { return nil }
        return state.withLock { state in
            if state.shuttingDown { return "the station is shutting down" }
            let last = state.health.lastError.map { " (last error: \($0))" } ?? ""
            return "no pipeline ran within \(timeout)\(last)"
        }
    }

    /// Waits until a pipeline newer than `generation` is running: true, or
    /// false at the deadline or shutdown.
    private func waitForGeneration(after generation: Int, timeout: Duration) async -> Bool {
        let key = UUID()
        let timer = Task { [self] in
            // Cancelled when a pipeline ran first; the removal below then finds no waiter.
            try? await Task.sleep(for: timeout)
            let waiter = state.withLock { $0.generationWaiters.removeValue(forKey: key) }
            waiter?.1.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if state.delivering > generation { return true }
                if state.shuttingDown { return false }
                state.generationWaiters[key] = (generation, continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    func startRecording(to path: String) async throws(MediaError) {
        guard let control = state.withLock({ $0.control }) else {
            throw MediaError(.writeFailed, input: path, reason: "the camera is not running")
        }
        // Bounded: a pipeline whose loop has just ended never answers.
        let failed = Result<Void, MediaError>.failure(
            MediaError(.writeFailed, input: path, reason: "the camera did not start the recording within \(Self.answerTimeout)"))
        let result = await Self.answer(within: Self.answerTimeout, otherwise: failed) { reply in
            control.startRecording(to: path) { reply($0) }
        }
        try result.get()
    }

    func stopRecording() async -> CameraPipeline.RecordingEnding {
        guard let control = state.withLock({ $0.control }) else { return .notRecording }
        let path = "recording"
        return await Self.answer(within: settings.recordingDrainTimeout + Self.answerTimeout,
                                 otherwise: .cutShort(path: path, reason: "the camera did not answer the stop")) { reply in
            control.stopRecording { reply($0) }
        }
    }

    /// How long the camera thread may take to pick up a request.
    static let answerTimeout: Duration = .seconds(10)

    /// The first of the camera's answer and `fallback` at the deadline.
    private static func answer<Value: Sendable>(within timeout: Duration, otherwise fallback: Value,
                                                _ ask: (@escaping @Sendable (Value) -> Void) -> Void) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let once = Mutex<CheckedContinuation<Value, Never>?>(continuation)
            let reply: @Sendable (Value) -> Void = { value in
                once.withLock { pending in
                    pending?.resume(returning: value)
                    pending = nil
                }
            }
            ask(reply)
            Task {
                // Never cancelled; `reply` answers only once, so a late fallback is a no-op.
                try? await Task.sleep(for: timeout)
                reply(fallback)
            }
        }
    }

    /// Stops the camera (finalising a recording still running) and waits for its thread.
    public func shutdown() {
        let control = state.withLock { state -> CameraPipeline.Control? in
            state.shuttingDown = true
            return state.control
        }
        control?.stop()
        finished.wait()
        finished.signal()  // later callers return at once
    }

    private func cameraLoop() {
        defer {
            let waiters = state.withLock { state in
                state.health.running = false
                defer { state.generationWaiters = [:] }
                return state.generationWaiters
            }
            for (_, waiter) in waiters { waiter.1.resume(returning: false) }
            finished.signal()
        }
        var retryDelay = Self.firstRetryDelay
        var lastLoggedError: String?
        while !state.withLock({ $0.shuttingDown }) {
            do {
                let camera = try CameraPipeline(settings: settings, logger: logger)
                let mine = state.withLock { state in
                    state.control = camera.control
                    state.generation += 1
                    state.restartRequested = false
                    state.health.running = true
                    state.health.lastError = nil
                    return state.generation
                }
                if state.withLock({ $0.shuttingDown }) { camera.control.stop() }
                var delivered = false
                let ending = try camera.run(onFrame: { [self] frame in
                    let waiters = state.withLock { state -> [UUID: (Int, CheckedContinuation<Bool, Never>)] in
                        state.health.framesSeen += 1
                        state.health.frameWidth = frame.width
                        state.health.frameHeight = frame.height
                        guard !delivered else { return [:] }
                        // Only a pipeline built after a restart was asked for
                        // answers it: the one being stopped may still deliver
                        // its first frame, and a recording asked of it would
                        // never be answered.
                        state.delivering = mine
                        let ready = state.generationWaiters.filter { $0.value.0 < mine }
                        for key in ready.keys { state.generationWaiters.removeValue(forKey: key) }
                        return ready
                    }
                    if !delivered {
                        delivered = true
                        for (_, waiter) in waiters { waiter.1.resume(returning: true) }
                    }
                    frameConsumer.withLock { $0 }?(frame)
                }, onPreview: { [self] jpeg in
                    preview.publish(jpeg)
                })
                retryDelay = Self.firstRetryDelay
                if lastLoggedError != nil { logger.notice("the camera runs again") }
                lastLoggedError = nil
                let (restart, shuttingDown) = state.withLock { state in
                    state.control = nil
                    state.health.running = false
                    return (state.restartRequested, state.shuttingDown)
                }
                if shuttingDown { return }
                if ending == .endOfStream {
                    sourceEnded("the video source ended")
                    if !loopsFile && !restart {
                        logger.notice("the video source ended; the camera is stopped until a session starts it again")
                        // Idle until a session asks for the file again (restart_file_on_session).
                        guard pause(until: .now + .seconds(365 * 86_400)) else { return }
                    }
                } else if !restart {
                    return
                }
            } catch {
                state.withLock { state in
                    state.control = nil
                    state.health.running = false
                    state.health.lastError = error.description
                }
                // Logged when it changes, then at each (backed-off) retry only
                // at debug level: an unplugged camera must not fill the journal.
                if error.description != lastLoggedError {
                    logger.error("camera failed; retrying with back-off", metadata: ["error": "\(error)"])
                    lastLoggedError = error.description
                } else {
                    logger.debug("camera failed again", metadata: ["error": "\(error)", "retryIn": "\(retryDelay)"])
                }
                sourceEnded("the camera failed: \(error.description)")
                // Retry, but do not spin on a camera that is unplugged; a
                // session asking for the source retries at once.
                guard pause(until: .now + retryDelay) else { return }
                retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            }
        }
    }

    static let firstRetryDelay: Duration = .seconds(2)
    static let longestRetryDelay: Duration = .seconds(30)

    /// Sleeps until `deadline` or a restart request (true), or shutdown (false).
    private func pause(until deadline: ContinuousClock.Instant) -> Bool {
        while ContinuousClock.now < deadline {
            let (restart, shuttingDown) = state.withLock { ($0.restartRequested, $0.shuttingDown) }
            if shuttingDown { return false }
            if restart { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return !state.withLock { $0.shuttingDown }
    }
}
