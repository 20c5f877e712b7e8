import CoreMetrics
import Foundation
import Metrics
import Prometheus

/// The station's Prometheus metrics, recorded through swift-metrics.
///
/// Each station owns its registry and passes its factory explicitly instead
/// of bootstrapping the process-wide `MetricsSystem`, so several stations (in
/// tests) do not share counters and a host application keeps its own
/// bootstrap.
public final class StationMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let framesAnalysed: Metrics.Counter
    private let framesDropped: Metrics.Counter
    private let analysisTime: Metrics.Timer
    private let storageErrors: Metrics.Counter

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Frame analysis takes milliseconds; the default buckets start too coarse.
        factory.durationHistogramBuckets["hkid_station_frame_analysis_seconds"] = [
            .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(33),
            .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(500), .seconds(1),
        ]
        self.factory = factory
        framesAnalysed = Metrics.Counter(label: "hkid_station_frames_analysed_total", factory: factory)
        framesDropped = Metrics.Counter(label: "hkid_station_frames_dropped_total", factory: factory)
        analysisTime = Metrics.Timer(label: "hkid_station_frame_analysis_seconds", factory: factory)
        storageErrors = Metrics.Counter(label: "hkid_station_storage_errors_total", factory: factory)
    }

    /// One finished session, by how it ended and its result code ("none" without one).
    public func sessionEnded(status: SessionStatus, resultCode: Int?) {
        Metrics.Counter(label: "hkid_station_sessions_total",
                dimensions: [("status", status.rawValue), ("result", resultCode.map(String.init) ?? "none")],
                factory: factory).increment()
    }

    public func frameAnalysed(taking duration: Duration) {
        framesAnalysed.increment()
        analysisTime.recordNanoseconds(duration.components.seconds * 1_000_000_000
                                       + duration.components.attoseconds / 1_000_000_000)
    }

    public func frameDropped() { framesDropped.increment() }

    /// A storage operation failed (the index, the event log, a seal); each is also logged.
    public func storageFailed() { storageErrors.increment() }

    /// The text exposition format for `GET /metrics`.
    public func exposition() -> String { registry.emitToString() }
}
