import Foundation
import HKIDLiveness
import HKIDPipeline
import Logging
import ServiceLifecycle

/// How a worker takes and holds checks.
public struct WorkerConfiguration: Sendable {
    /// Names the worker in leases and runs (host and pid by default).
    public var name: String
    /// A claim is held this long without a heartbeat; heartbeats come every third of it.
    public var lease: Duration = .seconds(30)
    /// Looks for work this often even without a NOTIFY.
    public var poll: Duration = .seconds(5)
    public var backoff = RetryBackoff()
    /// Where a claimed check's video is copied to be decoded (deleted after).
    public var scratchDirectory: String = NSTemporaryDirectory()
    /// Test hook: seconds to wait after a claim before running it, so a test
    /// can kill the worker in the middle of a check.
    public var holdAfterClaim: Duration = .zero

    public init(name: String) {
        self.name = name
    }
}

/// The worker loop: claims a check, copies its video, runs the replay while
/// heartbeats hold the lease, and writes the result or the failure. Sleeps
/// on the store's doorbell (NOTIFY) with a poll fallback; backs off while the
/// database is unreachable. On graceful shutdown (SIGTERM) it stops claiming
/// and finishes the check in hand.
public final class Worker: Service, Sendable {
    let store: any JobStore
    let runner: CheckRunner
    let configuration: WorkerConfiguration
    let logger: Logger
    let thread: AnalysisThread

    public init(store: any JobStore, runner: CheckRunner, configuration: WorkerConfiguration, logger: Logger) {
        self.store = store
        self.runner = runner
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "worker"] = "\(configuration.name)"
        self.logger = logger
        thread = AnalysisThread(name: "check-\(configuration.name)")
    }

    public func run() async throws {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let seen = store.doorbell.rings
            do {
                if let claim = try await store.claim(worker: configuration.name, lease: configuration.lease,
                                                     backoff: configuration.backoff) {
                    delay = .milliseconds(100)
                    await process(claim)
                    continue
                }
                delay = .milliseconds(100)
                await withGracefulShutdownHandler {
                    await store.doorbell.wait(after: seen, timeout: configuration.poll)
                } onGracefulShutdown: { [store] in
                    store.doorbell.ring()
                }
            } catch {
                logger.warning("cannot claim; retrying", metadata: ["error": "\(error)", "in": "\(delay)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        logger.info("stopped claiming checks")
    }

    func process(_ claim: ClaimedCheck) async {
        let started = ContinuousClock.now
        logger.info("claimed", metadata: ["check": "\(claim.id)", "attempt": "\(claim.attempt)"])
        if configuration.holdAfterClaim > .zero { try? await Task.sleep(for: configuration.holdAfterClaim) }
        let path = (configuration.scratchDirectory as NSString)
            .appendingPathComponent("hkid-check-\(claim.id)-\(claim.attempt).video")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result: Result<CheckOutcome, CheckRunner.Failure>
        do {
            try await store.copyVideo(id: claim.id, to: path)
            let runner = self.runner
            result = await withHeartbeat(claim) {
                await self.thread.run { Result { () throws(CheckRunner.Failure) in try runner.run(claim, videoPath: path) } }
            }
        } catch {
            result = .failure(.init(reason: "the video could not be fetched (\(error))", retryable: true))
        }
        await persist(result, of: claim, took: ContinuousClock.now - started)
    }

    /// Runs `work` while extending the lease every third of it.
    private func withHeartbeat<T: Sendable>(_ claim: ClaimedCheck, _ work: @escaping @Sendable () async -> T) async -> T {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await work() }
            group.addTask { [store, configuration, logger] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: configuration.lease / 3)
                    if Task.isCancelled { break }
                    do {
                        if try await !store.heartbeat(claim, lease: configuration.lease) {
                            logger.warning("lease lost; the result of this attempt will be dropped", metadata: ["check": "\(claim.id)"])
                            break
                        }
                    } catch {
                        logger.warning("heartbeat failed", metadata: ["check": "\(claim.id)", "error": "\(error)"])
                    }
                }
                return nil
            }
            var value: T?
            for await next in group {
                if let next {
                    value = next
                    group.cancelAll()
                }
            }
            return value!
        }
    }

    /// Writes the outcome, retrying while the database is unreachable; gives
    /// up once the lease must have passed to another worker.
    private func persist(_ result: Result<CheckOutcome, CheckRunner.Failure>, of claim: ClaimedCheck, took: Duration) async {
        var delay = Duration.milliseconds(200)
        let giveUp = ContinuousClock.now + configuration.lease * 2
        while ContinuousClock.now < giveUp {
            do {
                switch result {
                case .success(let outcome):
                    let held = try await store.complete(claim, outcome: outcome)
                    logger.info(held ? "done" : "lease lost; result dropped",
                                metadata: ["check": "\(claim.id)", "result": "\(outcome.resultCode.map(String.init) ?? "none")",
                                           "seconds": "\(took)"])
                case .failure(let failure):
                    let state = try await store.fail(claim, reason: failure.reason, retryable: failure.retryable,
                                                     backoff: configuration.backoff)
                    logger.warning("attempt failed", metadata: ["check": "\(claim.id)", "reason": "\(failure.reason)",
                                                                "now": "\(state?.rawValue ?? "lease lost")"])
                }
                return
            } catch {
                logger.warning("cannot write the outcome; retrying", metadata: ["check": "\(claim.id)", "error": "\(error)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}
