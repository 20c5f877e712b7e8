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
