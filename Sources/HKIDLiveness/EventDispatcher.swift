import Dispatch
import Synchronization

/// Hands events to observers, closures and async streams on one serial
/// queue: in event order, one callback at a time, and never on the thread
/// that analyses frames, so a slow observer delays only other observers.
final class EventDispatcher: Sendable {
    private struct WeakObserver {
        let id: ObjectIdentifier
        weak var observer: (any LivenessObserver)?
    }

    private struct Registry {
        var observers: [WeakObserver] = []
        var handlers: [(id: UInt64, handler: @Sendable (LivenessEvent) -> Void)] = []
        var streams: [UInt64: AsyncStream<LivenessEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
        var finished = false

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let queue: DispatchQueue
    private let registry = Mutex(Registry())

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    // MARK: Registration (any thread)

    func register(_ observer: any LivenessObserver) {
        let id = ObjectIdentifier(observer)
        registry.withLock { registry in
            registry.observers.removeAll { $0.observer == nil }
            guard !registry.finished, !registry.observers.contains(where: { $0.id == id }) else { return }
            registry.observers.append(WeakObserver(id: id, observer: observer))
        }
    }

    func unregister(_ observer: any LivenessObserver) {
        let id = ObjectIdentifier(observer)
        registry.withLock { registry in
            registry.observers.removeAll { $0.id == id || $0.observer == nil }
        }
    }

    func addHandler(_ handler: @escaping @Sendable (LivenessEvent) -> Void) -> EventHandlerToken {
        registry.withLock { registry in
            let id = registry.makeID()
            // A finished session delivers nothing more; keeping the closure
            // would only keep what it captures alive.
            if !registry.finished { registry.handlers.append((id, handler)) }
            return EventHandlerToken(id: id)
        }
    }

    func removeHandler(_ token: EventHandlerToken) {
        registry.withLock { registry in
            registry.handlers.removeAll { $0.id == token.id }
        }
    }

    func makeStream(bufferingPolicy: AsyncStream<LivenessEvent>.Continuation.BufferingPolicy) -> AsyncStream<LivenessEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LivenessEvent.self, bufferingPolicy: bufferingPolicy)
        let id: UInt64? = registry.withLock { registry in
            guard !registry.finished else { return nil }
            let id = registry.makeID()
            registry.streams[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.registry.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Delivery

    /// Queues the events; returns at once. A result whose stills nobody has
    /// encoded yet is encoded here, on the delivery queue, before it is handed on.
    func deliver(_ events: [QueuedEvent]) {
        guard !events.isEmpty else { return }
        queue.async {
            for event in events { self.deliverNow(event.resolved) }
        }
    }

    /// The registry is read per event, at delivery time: once `unregister`
    /// returns, no callback that has not started yet will reach the observer.
    private func deliverNow(_ event: LivenessEvent) {
        let (observers, handlers, streams) = registry.withLock { registry in
            (registry.observers.compactMap(\.observer), registry.handlers.map(\.handler), Array(registry.streams.sorted { $0.key < $1.key }.map(\.value)))
        }
        for observer in observers {
            switch event {
            case .operation(let command): observer.didUpdateOperationCommand(command)
            case .result(let result): observer.didDetectResult(result)
            case .frame(let trace): observer.didAnalyseFrame(trace)
            }
        }
        for handler in handlers { handler(event) }
        for stream in streams { stream.yield(event) }
    }

    /// Returns once everything queued before the call has been delivered.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
    }

    /// Blocking `flush`, for callers that are not async. Must not be called
    /// from a callback (the queue would wait for itself); that traps.
    func waitUntilDelivered() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync {}
    }

    /// After the events already queued: ends every stream and lets go of
    /// every observer and closure; later registrations are ignored and later
    /// streams end at once.
    ///
    /// Letting go matters: a closure usually captures whatever owns the
    /// session (a station's running session holds its `LivenessSession`), and
    /// that cycle would otherwise keep every finished session in memory.
    func finish() {
        queue.async {
            // The handlers come out of the lock with the streams so that they
            // are released outside it: a captured object's deinit may call
            // back into the session.
            let (streams, handlers) = self.registry.withLock { registry in
                registry.finished = true
                defer {
                    registry.streams = [:]
                    registry.handlers = []
                    registry.observers = []
                }
                return (Array(registry.streams.values), registry.handlers)
            }
            for stream in streams { stream.finish() }
            withExtendedLifetime(handlers) {}
        }
    }
}

/// An event on its way to observers, whose result stills may not be encoded yet.
struct QueuedEvent: Sendable {
    let event: LivenessEvent
    var stills: ResultStills? = nil

    /// The event as observers and callers see it: a result with its images.
    var resolved: LivenessEvent {
        guard let stills, case .result(var result) = event else { return event }
        result.images = stills.encoded()
        return .result(result)
    }
}

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

/// Identifies a closure registered with `LivenessSession.onEvent`; pass it to
/// `removeHandler` to stop the callbacks.
public struct EventHandlerToken: Sendable, Hashable {
    let id: UInt64
}
