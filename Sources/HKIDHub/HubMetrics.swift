import Foundation

/// `GET /metrics`: the queue as the database sees it (every hub answers the
/// same, whichever worker did the work), in Prometheus' text format.
/// Throughput is `rate(hkid_hub_checks_finished_total[5m])`.
enum HubMetrics {
    /// Upper bounds of the check-time histogram, seconds (claim to result).
    static let buckets: [Double] = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]

    static func exposition(_ statistics: QueueStatistics) -> String {
        var lines: [String] = []
        lines.append("# HELP hkid_hub_checks Checks in each state.")
        lines.append("# TYPE hkid_hub_checks gauge")
        for state in CheckState.allCases {
            lines.append("hkid_hub_checks{state=\"\(state.rawValue)\"} \(statistics.counts[state] ?? 0)")
        }
        lines.append("# HELP hkid_hub_queue_depth Checks waiting for a worker.")
        lines.append("# TYPE hkid_hub_queue_depth gauge")
        lines.append("hkid_hub_queue_depth \(statistics.counts[.queued] ?? 0)")
        lines.append("# HELP hkid_hub_oldest_queued_seconds Age of the oldest check waiting for a worker.")
        lines.append("# TYPE hkid_hub_oldest_queued_seconds gauge")
        lines.append("hkid_hub_oldest_queued_seconds \(format(statistics.oldestQueuedSeconds))")
        lines.append("# HELP hkid_hub_checks_finished_total Checks finished, done or failed.")
        lines.append("# TYPE hkid_hub_checks_finished_total counter")
        lines.append("hkid_hub_checks_finished_total{state=\"done\"} \(statistics.counts[.done] ?? 0)")
        lines.append("hkid_hub_checks_finished_total{state=\"failed\"} \(statistics.counts[.failed] ?? 0)")
        lines.append("# HELP hkid_hub_check_seconds Time from a check's last claim to its result.")
        lines.append("# TYPE hkid_hub_check_seconds histogram")
        for bucket in statistics.checkSecondsBuckets {
            lines.append("hkid_hub_check_seconds_bucket{le=\"\(format(bucket.le))\"} \(bucket.count)")
        }
        lines.append("hkid_hub_check_seconds_bucket{le=\"+Inf\"} \(statistics.checkSecondsCount)")
        lines.append("hkid_hub_check_seconds_sum \(format(statistics.checkSecondsSum))")
        lines.append("hkid_hub_check_seconds_count \(statistics.checkSecondsCount)")
        return lines.joined(separator: "\n") + "\n"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.6g", value)
    }
}
