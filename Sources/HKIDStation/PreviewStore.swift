import Foundation
import Synchronization

/// The newest preview JPEG from the camera, with a sequence number so a
/// streaming client can tell a new picture from the one it already sent.
public final class PreviewStore: Sendable {
    public struct Picture: Sendable {
        public let jpeg: Data
        public let sequence: Int
        public let capturedAt: ContinuousClock.Instant
    }

    private let latest = Mutex<Picture?>(nil)

    public init() {}

    func publish(_ jpeg: Data) {
        latest.withLock { current in
            current = Picture(jpeg: jpeg, sequence: (current?.sequence ?? 0) + 1, capturedAt: .now)
        }
    }

    public var picture: Picture? { latest.withLock { $0 } }
}
