/// A point on the media timeline, in nanoseconds.
///
/// Every timer of the flow runs on media time (frame timestamps), never on the
/// wall clock, so replaying a recording at any speed gives the same events.
/// Integer nanoseconds rather than `Double` seconds so that "0.3 s at 30 fps"
/// lands exactly on frame 9 instead of on a rounding error.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Rounds to the nearest nanosecond.
    public init(seconds: Double) {
        self.nanoseconds = Int64((seconds * 1e9).rounded())
    }

    public static let zero = MediaTime(nanoseconds: 0)

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        MediaTime(nanoseconds: lhs.nanoseconds &- rhs.nanoseconds)
    }

    public var description: String { "\(seconds)s" }
}
