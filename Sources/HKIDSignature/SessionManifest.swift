import Foundation

/// What a station signs about one session: the `custom` of the SDK's
/// `signatureWithVideoFile`, as a JSON object (SPEC section 8).
///
/// The signature covers the exact bytes of `canonicalJSON()`, so the manifest
/// is stored in the bundle as those bytes (`manifest.json`) and a verifier
/// never re-encodes before checking.
public struct SessionManifest: Codable, Sendable, Equatable {
    /// Names this layout; a verifier refuses formats it does not know.
    public static let currentFormat = "hkid-liveness-manifest/1"

    public var format: String
    public var sessionId: String
    /// "2018" or "2003".
    public var cardType: String
    /// The final result code (SPEC section 4), nil when the session ended without one (cancelled, interrupted).
    public var resultCode: Int?
    /// How the session ended: completed, failed, cancelled, interrupted.
    public var status: String
    /// The SDK's video timestamp string `start|first motion|second motion|stop`,
    /// milliseconds since the Unix epoch, 0 for a moment that never came.
    public var videoTimestamp: String
    /// SHA-256 (lowercase hex) of the recorded video, nil when nothing was recorded.
    public var videoSha256: String?
    /// SHA-256 of the result's card still, nil when the result carried none.
    public var imageSha256: String?
    /// Every file of the bundle except the manifest and its signature: name → SHA-256.
    public var files: [String: String]
    public var detectorVersion: String
    /// Which station key signed (see `StationKey.keyId`).
    public var keyId: String
    /// Milliseconds since the Unix epoch when the manifest was made.
    public var createdAt: Int64
    /// The liveness decision of the result that ended the session; nil in
    /// manifests written without one, and its verdict nil when no result
    /// ended the session. Signed with the rest.
    public var liveness: Liveness?
    /// Why a session that no result ended ended, in words (the index's
    /// `reason`: "cancelled by the operator", "storage full: …"); absent when
    /// its result ended it and in manifests made before it was added.
    public var reason: String?

    /// What the manifest says of the liveness checks.
    public struct Liveness: Codable, Sendable, Equatable {
        /// `enforce` or `report`.
        public var mode: String?
        /// `fixed` or `random`, and the first rotation asked for.
        public var challenge: String?
        public var firstRotation: String?
        /// `genuine`, `spoof`, `pending` (the flow never completed and a check
        /// had not seen enough) or `unmeasured`.
        public var verdict: String?
        /// 0...1, 0.5 at the decision boundary.
        public var spoofScore: Double?

        public init(mode: String?, challenge: String?, firstRotation: String?, verdict: String?, spoofScore: Double?) {
            self.mode = mode
            self.challenge = challenge
            self.firstRotation = firstRotation
            self.verdict = verdict
            self.spoofScore = spoofScore
        }
    }

    public init(sessionId: String, cardType: String, resultCode: Int?, status: String, videoTimestamp: String,
                videoSha256: String?, imageSha256: String?, files: [String: String], detectorVersion: String,
                keyId: String, createdAt: Int64, liveness: Liveness? = nil, reason: String? = nil) {
        format = Self.currentFormat
        self.sessionId = sessionId
        self.cardType = cardType
        self.resultCode = resultCode
        self.status = status
        self.videoTimestamp = videoTimestamp
        self.videoSha256 = videoSha256
        self.imageSha256 = imageSha256
        self.files = files
        self.detectorVersion = detectorVersion
        self.keyId = keyId
        self.createdAt = createdAt
        self.liveness = liveness
        self.reason = reason
    }

    /// The bytes that are signed: sorted keys, no whitespace, UTF-8.
    public func canonicalJSON() -> Data {
        CanonicalJSON.encode(self)
    }
}
