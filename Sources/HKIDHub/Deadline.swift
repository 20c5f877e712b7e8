import Foundation

/// Runs `operation`, giving up after `limit` with `HubError.unavailable`.
///
/// PostgresNIO's pool keeps a request waiting while it cannot connect (up to
/// its circuit breaker's 15 s); the API answers 503 with Retry-After within
/// this limit instead, and a worker backs off and tries again.
///
/// The operation runs in a task of its own, and the caller does not wait for
/// it once the limit has passed: a query sent on a connection the server
/// closed in the middle of a transaction can wait for ever and ignores
/// cancellation (PostgresNIO 1.33). Such an operation is cancelled and left
/// behind; its connection is already closed and the pool replaces it.
func withDeadline<T: Sendable>(_ limit: Duration, doing what: String,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    // The first of the operation's result and the deadline wins; the other is dropped.
    let (first, finish) = AsyncStream.makeStream(of: Result<T, any Error>.self, bufferingPolicy: .bufferingOldest(1))
    let work = Task {
        do { finish.yield(.success(try await operation())) } catch { finish.yield(.failure(error)) }
    }
    let timer = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        finish.yield(.failure(HubError(.unavailable, "the database did not answer within \(limit) (\(what))")))
    }
    defer {
        work.cancel()
        timer.cancel()
        finish.finish()
    }
    for await result in first { return try result.get() }
    throw CancellationError()  // the caller was cancelled before either came
}
