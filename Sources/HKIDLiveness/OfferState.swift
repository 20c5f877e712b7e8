/// The one-frame mailbox behind `offerFrame`: a newer frame replaces an older
/// one that analysis has not started on (the SDK sample's "last frame not
/// finished" guard, but keeping the newest frame rather than the oldest).
struct OfferState {
    var pending: OwnedFrame?
    /// A drain job is queued or running on the analysis queue.
    var draining = false
    var offered = 0
    var dropped = 0
    var closed = false
}
