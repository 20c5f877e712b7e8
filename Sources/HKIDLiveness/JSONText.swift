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
