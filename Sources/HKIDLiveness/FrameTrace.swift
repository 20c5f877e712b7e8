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
