extension LivenessSession {
    /// The SDK's `registerObserver`. Held weakly; registering twice is harmless.
    public func registerObserver(_ observer: any LivenessObserver) {
        dispatcher.register(observer)
    }

    /// The SDK's `unregisterObserver`. Once it returns, no callback that has
    /// not already started reaches the observer.
    public func unregisterObserver(_ observer: any LivenessObserver) {
        dispatcher.unregister(observer)
    }

    /// Calls `handler` with every event, on the delivery queue, in order.
    @discardableResult
    public func onEvent(_ handler: @escaping @Sendable (LivenessEvent) -> Void) -> EventHandlerToken {
        dispatcher.addHandler(handler)
    }

    /// Calls `handler` with every operation command.
    @discardableResult
    public func onOperationCommand(_ handler: @escaping @Sendable (OperationCommand) -> Void) -> EventHandlerToken {
        dispatcher.addHandler { event in
            if case .operation(let command) = event { handler(command) }
        }
    }

    /// Calls `handler` with every result.
    @discardableResult
    public func onResult(_ handler: @escaping @Sendable (LivenessResult) -> Void) -> EventHandlerToken {
        dispatcher.addHandler { event in
            if case .result(let result) = event { handler(result) }
        }
    }

    public func removeHandler(_ token: EventHandlerToken) {
        dispatcher.removeHandler(token)
    }

    /// A stream of every event from now on; it finishes when the session is
    /// closed. Each call makes an independent stream.
    public func events(
        bufferingPolicy: AsyncStream<LivenessEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<LivenessEvent> {
        dispatcher.makeStream(bufferingPolicy: bufferingPolicy)
    }
}
