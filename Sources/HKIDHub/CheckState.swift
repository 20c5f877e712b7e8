/// Where a check is in its life: `queued` until a worker claims it,
/// `running` while a worker holds its lease, then `done` (with a result and a
/// signed bundle) or `failed` (with a reason).
public enum CheckState: String, Sendable, Codable, CaseIterable {
    case queued, running, done, failed

    public var isFinal: Bool { self == .done || self == .failed }
}
