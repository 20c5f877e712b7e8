/// Everything the analysis lock protects: the state machine, the tracker and
/// the media clock. One frame is analysed at a time, so the tracker (which
/// must not be used from two threads) and the state machine always see
/// frames in one order.
struct SessionState {
    var configuration: LivenessConfiguration
    var machine: LivenessStateMachine
    /// Created on the first `addFrame`, so measurement-only sessions never need the vision shim.
    var tracker: CardTracker?
    /// A stand-in for the tracker's stills in measurement-only sessions.
    var standInStills: (any StillProvider)?
    /// pts of the first frame ever received: `t` is measured from it.
    var origin: Int64?
    /// Media time of the latest frame or measurement, analysed or not: where
    /// `startDetect` and `startOverTime` start the clock from.
    var lastTime: MediaTime?
    var counters = FrameCounters()
    var closed = false
    /// Where the watchdog extrapolates media time from: the last frame (or
    /// `startDetect`), on both clocks.
    var watchdogBase: (wall: ContinuousClock.Instant, media: MediaTime)?
    var watchdog: Task<Void, Never>?

    var stills: (any StillProvider)? {
        standInStills ?? tracker
    }

    /// Media time of a pts, from the first frame.
    mutating func mediaTime(ofPTS pts: Int64) -> MediaTime {
        let origin = self.origin ?? pts
        self.origin = origin
        let t = MediaTime(nanoseconds: pts &- origin)
        if lastTime.map({ t > $0 }) ?? true { lastTime = t }
        return t
    }
}
