import Foundation

/// Runs `operation`, giving up after `limit` with `HubError.unavailable`.
///
/// PostgresNIO's pool keeps a request waiting while it cannot connect (up to
/// its circuit breaker's 15 s); the API answers 503 with Retry-After within
/// this limit instead, and a worker backs off and tries again.
func withDeadline<T: Sendable>(_ limit: Duration, doing what: String,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw HubError(.unavailable, "the database did not answer within \(limit) (\(what))")
        }
        return value
    }
}
