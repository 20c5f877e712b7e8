import Foundation

/// A detection result: the SDK's `DSLHKIDCardResult`.
public struct LivenessResult: Sendable, Hashable {
    public var code: ResultCode
    /// Media time since the session's first frame.
    public var t: MediaTime
    /// JSON with the detection evidence (see `DetectionEvidence`).
    public var delta: String
    /// Stills in SDK order: card first, head last (SPEC section 4).
    public var images: [ResultImage]

    public init(code: ResultCode, t: MediaTime, delta: String, images: [ResultImage]) {
        self.code = code
        self.t = t
        self.delta = delta
        self.images = images
    }

    public var success: Bool { code == .success }
    public var retCode: Int { code.rawValue }
    public var message: String { code.message }
    /// The SDK's flat image list.
    public var imageDataArray: [Data] { images.map(\.data) }
}
