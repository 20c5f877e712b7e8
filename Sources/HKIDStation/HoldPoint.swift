import Foundation
import Logging

/// Named moments of a session's end at which the daemon can be told to stop
/// and wait forever (`HKID_STATION_HOLD_AT=<name>`), so that a crash test can
/// `kill -9` it exactly there instead of racing the clock. Unset, as in
/// production, every hold is a no-op.
///
/// The moments, in the order `finish` passes them:
/// - `before-mark`: recording and event log finalised, the index still says `active`;
/// - `before-seal`: the index has the final status, nothing is sealed;
/// - `during-seal`: manifest and signature written, `bundle.zip` still partial;
/// - `after-seal`: `bundle.zip` in place, the index not yet told it is ready.
enum HoldPoint: String, Sendable, CaseIterable {
    case beforeMark = "before-mark"
    case beforeSeal = "before-seal"
    case duringSeal = "during-seal"
    case afterSeal = "after-seal"

    static let environmentKey = "HKID_STATION_HOLD_AT"

    private static let configured: HoldPoint? = ProcessInfo.processInfo.environment[environmentKey]
        .flatMap(HoldPoint.init(rawValue:))

    /// Blocks the calling thread for good when this is the configured point.
    func holdBlocking(logger: Logger) {
        guard Self.configured == self else { return }
        logger.notice("holding", metadata: ["at": "\(rawValue)", "because": "\(Self.environmentKey)"])
        while true { sleep(3600) }
    }

    /// The same, suspending the calling task instead of blocking its thread.
    func hold(logger: Logger) async {
        guard Self.configured == self else { return }
        logger.notice("holding", metadata: ["at": "\(rawValue)", "because": "\(Self.environmentKey)"])
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }
}
