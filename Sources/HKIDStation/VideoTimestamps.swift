import Foundation

/// The SDK's video timestamp string `start|first motion|second motion|stop`,
/// wall-clock milliseconds since the Unix epoch (the iOS sample's
/// `dRecStartTimeStamp|dORTHTimeStamp|dRecStartExposureTimeStamp|dRecEndTimeStamp`).
///
/// Our moments: start = the recording (or, without one, the session) began;
/// first motion = ORTH was issued (result 1, the holder is asked for the
/// first rotation); second motion = RESET was issued (the first rotation was
/// seen, the sample turned its torch on here); stop = the session ended.
/// A moment that never came is 0.
public struct VideoTimestamps: Sendable, Equatable, Codable {
    public var start: Int64 = 0
    public var firstMotion: Int64 = 0
    public var secondMotion: Int64 = 0
    public var stop: Int64 = 0

    public init() {}

    public var sdkString: String { "\(start)|\(firstMotion)|\(secondMotion)|\(stop)" }

    public static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
