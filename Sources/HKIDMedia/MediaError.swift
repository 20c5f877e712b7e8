/// Why a pipeline could not deliver frames, in words a user can act on.
///
/// `description` is the one line the CLI prints: it names the input first and
/// then GStreamer's own reason, e.g.
/// `samples/missing.mp4: Resource not found.`
public struct MediaError: Error, CustomStringConvertible, Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// The pipeline description does not parse or names an element that is not installed.
        case invalidPipeline
        /// The input cannot be opened (missing, a directory, unreadable).
        case unreadableInput
        /// The input opened but GStreamer failed while decoding it (not video, truncated, unsupported).
        case decodeFailed
        /// No frame, EOS or error arrived for longer than the stall timeout.
        case stalled
        /// An output (encoded video) could not be written.
        case writeFailed
    }

    public let kind: Kind
    /// The file, device or pipeline the error is about.
    public let input: String
    public let reason: String
    /// GStreamer's debug detail (element path, source line); for logs, not for users.
    public let detail: String?

    public init(_ kind: Kind, input: String, reason: String, detail: String? = nil) {
        self.kind = kind
        self.input = input
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(input): \(reason)" }
}
