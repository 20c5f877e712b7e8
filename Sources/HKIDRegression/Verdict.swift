/// What a replay produced, reduced to what an expectation speaks of.
public struct ObservedSession: Sendable, Equatable {
    /// Operation statuses in order, alerts excluded (BEGIN, ORTH, ...).
    public var statuses: [String]
    /// Alert statuses in order (FAR, NEAR, OVERSPEED, VALID).
    public var alerts: [String]
    /// Result codes in order (1 first, then the final one), with their media times.
    public var results: [(code: Int, t: Double)]
    /// The first source error, when the video could not be read to the end.
    public var error: String?

    public init(statuses: [String], alerts: [String], results: [(code: Int, t: Double)], error: String? = nil) {
        self.statuses = statuses
        self.alerts = alerts
        self.results = results
        self.error = error
    }

    public var finalCode: Int? { results.last(where: { $0.code != 1 })?.code }

    public static func == (a: ObservedSession, b: ObservedSession) -> Bool {
        a.statuses == b.statuses && a.alerts == b.alerts && a.error == b.error
            && a.results.map(\.code) == b.results.map(\.code) && a.results.map(\.t) == b.results.map(\.t)
    }
}

/// Whether a replay matched its expectation, and if not, the first thing
/// that differed, in words for the summary table.
public struct Verdict: Sendable, Equatable {
    public var matches: Bool { difference == nil }
    public var difference: String?

    public init(expectation: Expectation, observed: ObservedSession) {
        difference = Self.firstDifference(expectation, observed)
    }

    private static func firstDifference(_ expected: Expectation, _ observed: ObservedSession) -> String? {
        if let error = observed.error { return "source failed: \(error)" }
        // Statuses: the expected ones must appear in this order; extra ones
        // between them are allowed (a later status can only come after its step).
        var next = expected.statuses.startIndex
        for status in observed.statuses where next < expected.statuses.endIndex && status == expected.statuses[next] {
            next += 1
        }
        if next < expected.statuses.endIndex {
            let got = observed.statuses.joined(separator: ",")
            return "missing status \(expected.statuses[next]) (got \(got.isEmpty ? "none" : got))"
        }
        // Alerts: exactly this sequence, so a spurious alert shows.
        if observed.alerts != expected.alerts {
            let index = zip(observed.alerts, expected.alerts).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(observed.alerts.count, expected.alerts.count)
            let want = index < expected.alerts.count ? expected.alerts[index] : "nothing"
            let got = index < observed.alerts.count ? observed.alerts[index] : "nothing"
            return "alert \(index + 1): expected \(want), got \(got)"
        }
        guard let final = observed.finalCode else { return "no final result (expected retCode \(expected.retCode))" }
        if final != expected.retCode { return "retCode \(final), expected \(expected.retCode)" }
        return nil
    }
}
