/// What `addFrame` learned from one frame.
public struct FrameAnalysis: Sendable, Hashable {
    /// Media time since the session's first frame.
    public var t: MediaTime
    /// `nil` when the frame was not analysed (the session was idle or ended).
    public var measurement: CardMeasurement?
    /// The events the frame caused, in order; they are also being delivered
    /// to observers, closures and streams.
    public var events: [LivenessEvent]
}

/// `FrameAnalysis` before its result stills are encoded.
struct QueuedAnalysis: Sendable {
    var t: MediaTime
    var measurement: CardMeasurement?
    var events: [QueuedEvent]

    /// Encodes the stills here, on the caller's thread, unless the delivery
    /// queue got to them first.
    func resolved() -> FrameAnalysis {
        FrameAnalysis(t: t, measurement: measurement, events: events.map(\.resolved))
    }
}

/// How many frames a session has seen, for the event stream's `end` line.
/// Counted over the session's lifetime, across `startDetect` calls.
public struct FrameCounters: Sendable, Hashable {
    /// Frames handed to the session (`addFrame`, or a live driver's offers).
    public var received: Int = 0
    /// Frames that went through the tracker or the state machine.
    public var analysed: Int = 0
    /// Frames a live driver replaced with a newer one before analysis got to them.
    public var dropped: Int = 0

    public init(received: Int = 0, analysed: Int = 0, dropped: Int = 0) {
        self.received = received
        self.analysed = analysed
        self.dropped = dropped
    }
}

/// One analysed frame, for `--trace` and for recording measurement traces.
public struct FrameTrace: Sendable, Hashable {
    /// Media time since the session's first frame.
    public var t: MediaTime
    /// `nil` when no card was tracked.
    public var card: CardMeasurement?

    public init(t: MediaTime, card: CardMeasurement?) {
        self.t = t
        self.card = card
    }
}
