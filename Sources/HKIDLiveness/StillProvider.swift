import Foundation

/// Where a session gets the JPEG stills for its results from.
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
    var hasStill: Bool { get }
    /// JPEG bytes, or nil when no still is kept or encoding failed.
    func encodeStill(_ kind: StillKind) -> Data?
    /// Forget the kept still (and any tracking) for a new attempt.
    func reset()
}
