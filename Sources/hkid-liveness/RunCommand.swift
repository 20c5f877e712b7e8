import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import Synchronization

/// `hkid-liveness run`: a live source (webcam by default), analysed as frames
/// arrive; frames that come while the previous one is still being analysed
/// are dropped, never queued.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a live session on a webcam (or any live pipeline) until it ends or Ctrl-C.",
        discussion: """
            At a live counter use --challenge random: the first rotation's direction is drawn per session, so a \
            phone replaying someone else's recorded session fails. Keep the default --challenge fixed for \
            realtime-file and other recordings, which were made for the SDK's rotations.
            """)

    @Option(help: "The device or file for the pipeline's src element (default /dev/video0 for the webcam).")
    var input: String?

    @Option(help: "Built-in source: webcam, videotestsrc or realtime-file (a file played at real-time speed).")
    var source: LiveSource = .webcam

    @OptionGroup var session: SessionOptions
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Seconds of wall-clock time without frames after which overtime fires anyway (0 disables).")
    var watchdog: Double = 2

    func validate() throws {
        guard watchdog >= 0, watchdog.isFinite else { throw ValidationError("--watchdog must be zero or a positive number") }
    }

    func run() throws {
        logging.bootstrap()
        let description = try pipeline.description(else: source.description)
        let frameSource: FrameSource
        do {
            let defaultInput = source == .webcam && !pipeline.isCustom ? "/dev/video0" : nil
            frameSource = try FrameSource(description, input: input ?? defaultInput, stallTimeout: nil)
        } catch {
            Output.error("hkid-liveness: \(error)")
            throw ExitStatus.inputFailed
        }

        var configuration = session.configuration()
        configuration.watchdogSeconds = watchdog > 0 ? watchdog : nil
        let liveness = LivenessSession(configuration: configuration)
        let printer = EventPrinter(json: session.json)
        let images = session.images.map { ImageFolder(path: $0) }
        let stop = frameSource.stopSignal
        let started = ContinuousClock.now
        // Events arrive on the session's delivery queue, in order.
        let token = liveness.onEvent { event in
            var paths: [StillKind: String] = [:]
            if case .result(let result) = event {
                paths = (try? images?.store(result)) ?? [:]
                if result.code.endsSession { stop.stop() }
            }
            printer.print(event, imagePaths: paths)
        }
        InterruptHandler.install { stop.stop() }
        // Frames go from the pull loop to an analysis thread through the
        // driver's one-frame mailbox, uncopied; the newest waits, older ones drop.
        let driver = LiveDriver(session: liveness)
        let analysis = Thread { driver.run() }
        analysis.name = "hkid.run.analysis"
        liveness.startDetect()
        analysis.start()
        var failure: Error?
        do {
            try frameSource.run { frame in driver.offer(frame) }
        } catch {
            failure = error
        }
        driver.finish()
        liveness.waitUntilIdle()
        liveness.removeHandler(token)
        let elapsed = (ContinuousClock.now - started).components
        printer.printEnd(counters: driver.counters, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18,
                         liveness: liveness.liveness)
        liveness.close()
        if let failure {
            Output.error("hkid-liveness: \(failure)")
            throw ExitStatus.inputFailed
        }
    }
}

/// The built-in live sources of `run --source`. The replay description is
/// not one of them: it decodes as fast as it can, which a live session
/// would take for a camera running far ahead of real time.
enum LiveSource: String, ExpressibleByArgument, CaseIterable {
    case webcam
    case videotestsrc
    case realtimeFile = "realtime-file"

    var description: PipelineDescription {
        switch self {
        case .webcam: .webcam
        case .videotestsrc: .testPattern
        case .realtimeFile: .realtimeFile
        }
    }
}

/// Ctrl-C ends the live loop cleanly (end line printed, files closed)
/// instead of killing the process mid-write.
enum InterruptHandler {
    /// Installed once per process; the source must stay alive to keep firing.
    private static let source = Mutex<DispatchSourceSignal?>(nil)

    static func install(_ handler: @escaping @Sendable () -> Void) {
        source.withLock { source in
            signal(SIGINT, SIG_IGN)
            let signalSource = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            signalSource.setEventHandler(handler: handler)
            signalSource.resume()
            source = signalSource
        }
    }
}
