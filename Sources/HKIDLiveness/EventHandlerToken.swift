/// Identifies a closure registered with `LivenessSession.onEvent`; pass it to
/// `removeHandler` to stop the callbacks.
public struct EventHandlerToken: Sendable, Hashable {
    let id: UInt64
}
