import Foundation
@testable import HKIDHub
import Synchronization
import Testing

/// The deadline every database call of the hub and the workers runs under.
@Suite struct DeadlineTests {
    struct Refused: Error {}

    /// An operation that ignores cancellation (awaiting a detached task does
    /// not pass it on) and records when it has ended.
    final class Deaf: Sendable {
        private let ended = Atomic(false)
        var hasEnded: Bool { ended.load(ordering: .sequentiallyConsistent) }
        func run() async throws -> Int {
            try await Task.detached { try await Task.sleep(for: .seconds(120)) }.value
            ended.store(true, ordering: .sequentiallyConsistent)
            return 1
        }
    }

    @Test func theOperationsValueOrErrorComesBackBeforeTheDeadline() async throws {
        #expect(try await withDeadline(.seconds(5), doing: "adding") { 2 + 2 } == 4)
        await #expect(throws: Refused.self) {
            try await withDeadline(.seconds(5), doing: "refusing") { () async throws -> Int in throw Refused() }
        }
    }

    /// A query on a connection the server closed mid-transaction can wait for
    /// ever and ignore cancellation; a worker waiting on it stopped for good.
    @Test func anOperationThatIgnoresCancellationIsLeftBehindAtTheDeadline() async throws {
        let deaf = Deaf()
        do {
            _ = try await withDeadline(.milliseconds(200), doing: "writing a result") { try await deaf.run() }
            Issue.record("no error at the deadline")
        } catch let error as HubError {
            #expect(error.kind == .unavailable)
            #expect(error.message == "the database did not answer within 0.2 seconds (writing a result)")
        }
        #expect(!deaf.hasEnded, "waited for the operation to end")
    }

    @Test func aCancelledCallerStopsWaiting() async throws {
        let deaf = Deaf()
        let caller = Task { try await withDeadline(.seconds(600), doing: "waiting") { try await deaf.run() } }
        try await Task.sleep(for: .milliseconds(100))
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!deaf.hasEnded, "waited for the operation to end")
    }
}
