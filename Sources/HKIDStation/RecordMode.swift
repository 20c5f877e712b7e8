/// When a session is recorded, after the SDK sample's switches: its
/// `ALL_Save_Video` records the whole session, otherwise recording starts with
/// result 1 (the first front-on still, `bRecStaticImgOk`); we add "none".
public enum RecordMode: String, Codable, Sendable, CaseIterable {
    /// From `startDetect` to the end (the SDK's `ALL_Save_Video`).
    case wholeSession = "whole-session"
    /// From result 1 to the end (the SDK sample's default path).
    case afterFirst = "after-first"
    /// No video; the bundle holds stills and events only.
    case none

    /// Also accepts the SDK's constant name, so configuration copied from an
    /// iOS integration works.
    public init?(configValue: String) {
        switch configValue {
        case "ALL_Save_Video", "all": self = .wholeSession
        default: self.init(rawValue: configValue)
        }
    }
}
