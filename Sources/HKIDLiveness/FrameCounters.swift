/// How many frames a session has seen, for the event stream's `end` line.
/// Counted over the session's lifetime, across `startDetect` calls.
public struct FrameCounters: Sendable, Hashable {
    /// Frames handed to `addFrame` or `offerFrame`.
    public var received: Int = 0
    /// Frames that went through the tracker or the state machine.
    public var analysed: Int = 0
    /// Frames `offerFrame` replaced with a newer one before analysis got to them.
    public var dropped: Int = 0

    public init(received: Int = 0, analysed: Int = 0, dropped: Int = 0) {
        self.received = received
        self.analysed = analysed
        self.dropped = dropped
    }
}
