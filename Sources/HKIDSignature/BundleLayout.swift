/// The names inside a session bundle (a zip). Both the station that writes
/// bundles and the verifier that reads them use these, so they cannot drift.
public enum BundleLayout {
    /// The canonical manifest bytes, exactly as signed.
    public static let manifest = "manifest.json"
    /// The base64 Ed25519 signature of `manifest.json`, one line.
    public static let signature = "manifest.sig"
    /// One SPEC section 6 JSON object per line.
    public static let events = "events.jsonl"
    /// The recording (H.264 in Matroska).
    public static let video = "video.mkv"
    /// The still of the first front-on view (result 1).
    public static let firstCard = "first-card.jpg"
    /// The final rectified card still (result 0, or the best still on overtime).
    public static let card = "card.jpg"
    /// The portrait crop (result 0).
    public static let head = "head.jpg"
}
