import Foundation
import Logging

/// Named moments of a session's end at which the daemon can be told to stop
/// and wait forever (`HKID_STATION_HOLD_AT=<name>`), so that a crash test can
/// `kill -9` it exactly there instead of racing the clock. Unset, as in
/// production, every hold is a no-op.
///
/// `HKID_STATION_HOLD_SECONDS=<n>` makes a hold last n seconds instead, so a
/// race test can land a request inside a window that is otherwise short.
///
/// The moments, in the order a session's end passes them:
/// - `before-result-ends`: the session has its result, nobody has begun ending it;
/// - `after-claim`: someone (a cancel, the result) has begun ending it; the analysis still runs;
/// - `before-mark`: recording and event log finalised, the index still says `active`;
/// - `before-seal`: the index has the final status, nothing is sealed;
/// - `during-seal`: manifest and signature written, `bundle.zip` still partial;
/// - `after-seal`: `bundle.zip` in place, the index not yet told it is ready.
enum HoldPoint: String, Sendable, CaseIterable {
    case beforeResultEnds = "before-result-ends"
    case afterClaim = "after-claim"
    case beforeMark = "before-mark"
    case beforeSeal = "before-seal"
    case duringSeal = "during-seal"
    case afterSeal = "after-seal"

    static let environmentKey = "HKID_STATION_HOLD_AT"

    private static let configured: HoldPoint? = ProcessInfo.processInfo.environment[environmentKey]
        .flatMap(HoldPoint.init(rawValue:))

    private static let seconds: Double? = ProcessInfo.processInfo.environment["HKID_STATION_HOLD_SECONDS"]
        .flatMap(Double.init)

    /// Blocks the calling thread (for good, or the configured seconds) when
    /// this is the configured point.
    func holdBlocking(logger: Logger) {
        guard Self.configured == self else { return }
        logger.notice("holding", metadata: ["at": "\(rawValue)", "because": "\(Self.environmentKey)"])
        if let seconds = Self.seconds {
            Thread.sleep(forTimeInterval: seconds)
            logger.notice("released", metadata: ["at": "\(rawValue)"])
            return
        }
        while true { sleep(3600) }
    }

    /// The same, suspending the calling task instead of blocking its thread.
    func hold(logger: Logger) async {
        guard Self.configured == self else { return }
        logger.notice("holding", metadata: ["at": "\(rawValue)", "because": "\(Self.environmentKey)"])
        // A cancelled sleep only ends the hold early; nothing else depends on it.
        try? await Task.sleep(for: Self.seconds.map { .seconds($0) } ?? .seconds(86_400 * 365))
        if Self.seconds != nil { logger.notice("released", metadata: ["at": "\(rawValue)"]) }
    }
}
