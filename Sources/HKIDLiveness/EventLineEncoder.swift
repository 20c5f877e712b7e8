/// SPEC section 6: one JSON object per line, keys in the spec's order.
///
/// Shared by the CLI (`--json`) and station daemons. Image files are written
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
            return JSONText.object([
                ("type", JSONText.string("result")),
                ("success", result.success ? "true" : "false"),
                ("retCode", String(result.retCode)),
                ("message", JSONText.string(result.message)),
                ("t", time(result.t)),
                ("images", JSONText.object(images)),
            ])
        case .frame(let trace):
            return JSONText.object([
                ("type", JSONText.string("frame")),
                ("t", time(trace.t)),
                ("card", trace.card.map(card) ?? "null"),
            ])
        }
    }

    /// The closing line: frames received, analysed, dropped, and the wall
    /// time the run took (measured by the caller).
    public func endLine(counters: FrameCounters, seconds: Double) -> String {
        JSONText.object([
            ("type", JSONText.string("end")),
            ("frames", String(counters.received)),
            ("analysed", String(counters.analysed)),
            ("dropped", String(counters.dropped)),
            ("seconds", JSONText.number(seconds, decimals: 3)),
        ])
    }

    private func time(_ t: MediaTime) -> String {
        JSONText.number(t.seconds, decimals: 3)
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
