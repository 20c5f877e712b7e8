import Dispatch
import HKIDLiveness
import HKIDMedia
import Logging
import Synchronization

/// Where live frames meet a session: the one newest-frame mailbox of
/// `hkid-liveness run`, the station and the latency bench.
///
/// The source's thread `offer`s each frame and never waits: the frame is
/// GStreamer's own mapped sample (`VideoFrame`, reference-counted and
/// immutable), moved to the analysis thread without copying pixels. A frame
/// still waiting when the next one arrives is replaced and counted as
/// dropped. `run` is the analysis loop, on whichever thread its owner gives
/// it (the station keeps one thread for every session); it returns after
/// `finish` or `stop`.
public final class LiveDriver: Sendable {
    private struct Mailbox {
        var frame: VideoFrame?
        var ending: Ending?
        var received = 0
        var dropped = 0
        var unreadable: PixelFormat?
    }

    private enum Ending { case finish, stop }

    private let session: LivenessSession
    private let logger: Logger
    private let onAnalysed: @Sendable (Duration) -> Void
    private let onDropped: @Sendable () -> Void
    private let mailbox = Mutex(Mailbox())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)

    /// `onAnalysed` gets the time each frame's analysis took, `onDropped` is
    /// called for each frame replaced unseen (both for metrics).
    public init(session: LivenessSession, logger: Logger = Logger(label: "hkid.live"),
                onAnalysed: @escaping @Sendable (Duration) -> Void = { _ in },
                onDropped: @escaping @Sendable () -> Void = {}) {
        self.session = session
        self.logger = logger
        self.onAnalysed = onAnalysed
        self.onDropped = onDropped
    }

    /// Frames offered, analysed by the session, and replaced unseen: the
    /// `end` line's counters. Frames offered after the session ended are in
    /// `received` only.
    public var counters: FrameCounters {
        let (received, dropped) = mailbox.withLock { ($0.received, $0.dropped) }
        return FrameCounters(received: received, analysed: session.counters.analysed, dropped: dropped)
    }

    /// Called on the source's thread for every frame; never blocks for long.
    /// Ignored once `finish` or `stop` was called.
    public func offer(_ frame: VideoFrame) {
        let replaced = mailbox.withLock { mailbox -> Bool? in
            guard mailbox.ending == nil else { return nil }
            mailbox.received += 1
            let replaced = mailbox.frame != nil
            if replaced { mailbox.dropped += 1 }
            mailbox.frame = frame
            return replaced
        }
        guard let replaced else { return }
        if replaced { onDropped() } else { wake.signal() }
    }

    /// The analysis loop: analyses the newest offered frame whenever there is
    /// one, until `finish` or `stop`. Call it once, on the analysis thread.
    public func run() {
        precondition(!running.exchange(true, ordering: .relaxed), "LiveDriver.run called twice")
        defer { finished.signal() }
        while true {
            wake.wait()
            while true {
                let (frame, ending) = mailbox.withLock { mailbox -> (VideoFrame?, Ending?) in
                    if mailbox.ending == .stop { mailbox.frame = nil }
                    defer { mailbox.frame = nil }
                    return (mailbox.frame, mailbox.ending)
                }
                guard let frame else {
                    if ending != nil { return }
                    break
                }
                analyse(frame)
            }
        }
    }

    /// No more frames: the waiting one (if any) is analysed, then `run`
    /// returns; waits for that. `run` must have been, or be about to be,
    /// started on another thread.
    public func finish() { end(.finish) }

    /// No more frames: the waiting one is dropped, the one in analysis
    /// finishes, then `run` returns; waits for that, as `finish` does.
    public func stop() { end(.stop) }

    private func end(_ ending: Ending) {
        let first = mailbox.withLock { mailbox -> Bool in
            defer { if mailbox.ending == nil { mailbox.ending = ending } }
            return mailbox.ending == nil
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func analyse(_ frame: VideoFrame) {
        // Every format the shim reads is analysed as it comes; another is a
        // pipeline mistake, said once rather than for every frame.
        guard let view = FrameView(frame) else {
            let first = mailbox.withLock { mailbox -> Bool in
                defer { mailbox.unreadable = frame.format }
                return mailbox.unreadable != frame.format
            }
            if first { logger.warning("live frames arrive as \(frame.format), which the analysis cannot read; skipped") }
            return
        }
        let started = ContinuousClock.now
        do {
            try session.addLiveFrame(view)
        } catch {
            logger.warning("frame not analysed", metadata: ["error": "\(error)"])
            return
        }
        onAnalysed(ContinuousClock.now - started)
    }
}
