/// The SDK's `DSLHKIDCardDetectObserverDelegate`. Sessions hold observers
/// weakly, so an observer that goes away simply stops being called; calling
/// `unregisterObserver` in `deinit` (as the SDK required) is still fine.
///
/// Callbacks arrive on the session's delivery queue, one at a time, in event
/// order, never on the thread that called `addFrame`.
public protocol LivenessObserver: AnyObject, Sendable {
    func didUpdateOperationCommand(_ command: OperationCommand)
    func didDetectResult(_ result: LivenessResult)
    /// Per-frame trace; only when `emitsFrameTrace` is on. Optional.
    func didAnalyseFrame(_ frame: FrameTrace)
}

extension LivenessObserver {
    public func didAnalyseFrame(_ frame: FrameTrace) {}
}
