/// SPEC section 6: one JSON object per line, keys in the spec's order.
///
/// Shared by the CLI (`--json`) and station daemons. Results that end the
/// session also carry `liveness` (our extension, docs/spec-extensions.md). Image files are written
/// by whoever stores them, so their paths come in as an argument. Numbers are
/// rounded for stable output: times to the millisecond, angles and pixel
/// coordinates to 0.1, ratios to 0.001, trailing zeros dropped.
public struct EventLineEncoder: Sendable {
    public init() {}

    /// The line for one event, without a trailing newline. `imagePaths`
    /// names the files the result's images were written to; results list
    /// them under `images` (card first, then head), an empty object when none.
    public func line(for event: LivenessEvent, imagePaths: [StillKind: String] = [:]) -> String {
        switch event {
        case .operation(let command):
            return JSONText.object([
                ("type", JSONText.string("operation")),
                ("status", JSONText.string(command.currentStatus.name)),
                ("value", String(command.currentStatus.rawValue)),
                ("hint", JSONText.string(command.nextOperationHint)),
                ("t", time(command.t)),
            ])
        case .result(let result):
            let images = imagePaths.keys.sorted().map { ($0.rawValue, JSONText.string(imagePaths[$0]!)) }
            var members = [
                ("type", JSONText.string("result")),
                ("success", result.success ? "true" : "false"),
                ("retCode", String(result.retCode)),
                ("message", JSONText.string(result.message)),
                ("t", time(result.t)),
                ("images", JSONText.object(images)),
            ]
            // Our extension (docs/spec-extensions.md): results that end the
            // session say what the liveness checks decided.
            if let liveness = result.liveness {
                members.append(("liveness", self.liveness(liveness)))
            }
            return JSONText.object(members)
        case .frame(let trace):
            return JSONText.object([
                ("type", JSONText.string("frame")),
                ("t", time(trace.t)),
                ("card", trace.card.map(card) ?? "null"),
            ])
        }
    }

    /// The closing line: frames received, analysed, dropped, and the wall
    /// time the run took (measured by the caller). With `liveness` (our
    /// extension) it also says what the liveness checks made of the whole
    /// input, which matters when no result ended the session (a recording
    /// that stops mid-flow).
    public func endLine(counters: FrameCounters, seconds: Double, liveness: LivenessReport? = nil) -> String {
        var members = [
            ("type", JSONText.string("end")),
            ("frames", String(counters.received)),
            ("analysed", String(counters.analysed)),
            ("dropped", String(counters.dropped)),
            ("seconds", JSONText.number(seconds, decimals: 3)),
        ]
        if let liveness { members.append(("liveness", self.liveness(liveness))) }
        return JSONText.object(members)
    }

    private func time(_ t: MediaTime) -> String {
        JSONText.number(t.seconds, decimals: 3)
    }

    /// `{"mode","verdict","spoofScore","checks":[{"name","score","threshold","verdict","frames"}]}`;
    /// the raw evidence stays in `delta`.
    private func liveness(_ report: LivenessReport) -> String {
        let checks = report.checks.map { check in
            JSONText.object([
                ("name", JSONText.string(check.name)),
                ("score", check.score.map { JSONText.number($0, decimals: 3) } ?? "null"),
                ("threshold", JSONText.number(check.threshold, decimals: 3)),
                ("verdict", JSONText.string(check.verdict.rawValue)),
                ("frames", String(check.frames)),
            ])
        }
        return JSONText.object([
            ("mode", JSONText.string(report.mode.rawValue)),
            ("verdict", JSONText.string(report.verdict.rawValue)),
            ("spoofScore", JSONText.number(report.spoofScore, decimals: 3)),
            ("checks", "[" + checks.joined(separator: ",") + "]"),
        ])
    }

    private func card(_ m: CardMeasurement) -> String {
        let corners = m.corners.map {
            "[" + JSONText.number($0.x, decimals: 1) + "," + JSONText.number($0.y, decimals: 1) + "]"
        }
        return JSONText.object([
            ("corners", "[" + corners.joined(separator: ",") + "]"),
            ("yaw", JSONText.number(m.yaw, decimals: 1)),
            ("pitch", JSONText.number(m.pitch, decimals: 1)),
            ("roll", JSONText.number(m.roll, decimals: 1)),
            ("width_ratio", JSONText.number(m.widthRatio, decimals: 3)),
            ("glare", JSONText.number(m.glare, decimals: 3)),
            ("sharpness", JSONText.number(m.sharpness, decimals: 3)),
            ("speed", JSONText.number(m.speed, decimals: 1)),
        ])
    }
}

/// The few JSON spellings the event stream needs, written by hand so that
/// key order and number formatting are exactly the spec's and never depend
/// on a Foundation version.
enum JSONText {
    /// `value` rounded to `decimals` places, trailing zeros dropped but at
    /// least one decimal kept (`0.0`, `1.53`, `14.0`), so numbers read as
    /// floats and the same input always prints the same bytes. Non-finite
    /// values print as `null`.
    static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * Double(scale)).rounded()
        guard abs(scaled) < 9e15 else { return String(value) }
        let units = Int64(scaled)
        let magnitude = units.magnitude
        var fraction = String(magnitude % UInt64(scale))
        fraction = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        if fraction.isEmpty { fraction = "0" }
        let sign = units < 0 ? "-" : ""
        return "\(sign)\(magnitude / UInt64(scale)).\(fraction)"
    }

    /// A JSON string literal. Non-ASCII text (the Chinese hints) stays UTF-8.
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// An object from key/value pairs whose values are already JSON, in the given order.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
