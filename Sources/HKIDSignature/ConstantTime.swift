/// Comparisons of secrets (bearer tokens, signatures as hex) whose time does
/// not depend on where the two first differ, so a caller cannot find a
/// secret byte by byte by timing the refusals.
public enum ConstantTime {
    /// True when `a` and `b` are the same bytes; the time depends on their
    /// lengths only.
    public static func equal(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
