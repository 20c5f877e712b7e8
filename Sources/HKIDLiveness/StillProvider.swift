import Foundation

/// Where a session gets the stills for its results from.
///
/// In production this is the vision tracker, which keeps the best front-on
/// still of the frames it analysed. Sessions fed with measurements only (a
/// replayed trace, the tests) have no tracker; they can be given a provider
/// that stands in for it. Called only under the session's analysis lock, so
/// implementations need no synchronisation of their own.
protocol StillProvider: AnyObject {
    /// Sees every measurement the session analyses. The tracker has already
    /// seen the frame itself, so it ignores this.
    func consider(_ measurement: CardMeasurement, at t: MediaTime)
    /// The kept still, or nil when none is kept. Cheap (no pixels are
    /// copied), so it can be called on the frame that decides a result.
    func takeStill() -> (any KeptStill)?
    /// Forget the kept still (and any tracking) for a new attempt.
    func reset()
}

/// A still taken from its provider when a result was decided. It no longer
/// changes with the frames that follow, so it can be encoded on any thread
/// while they are analysed.
protocol KeptStill: Sendable {
    /// JPEG bytes, or nil when encoding failed.
    func encode(_ kind: StillKind) -> Data?
}
