import Foundation

/// One JPEG still attached to a result.
public struct ResultImage: Sendable, Hashable {
    public var kind: StillKind
    /// JPEG bytes, as `cv_tracker_encode_still` produced them.
    public var data: Data

    public init(kind: StillKind, data: Data) {
        self.kind = kind
        self.data = data
    }
}
