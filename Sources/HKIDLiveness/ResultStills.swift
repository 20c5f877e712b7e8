import Foundation
import Synchronization

/// The stills a result carries, encoded once by whoever needs them first:
/// the delivery queue for frames offered by a live source, so the frame that
/// decided the result is not held up by ~8 ms of warp, face search and JPEG;
/// the caller of `addFrame`, which returns the result with its images.
final class ResultStills: Sendable {
    let kinds: [StillKind]
    private let still: any KeptStill
    private let images = Mutex<[ResultImage]?>(nil)

    init(_ still: any KeptStill, kinds: [StillKind]) {
        self.still = still
        self.kinds = kinds
    }

    /// Encodes on first use; a second caller waits for the first.
    func encoded() -> [ResultImage] {
        images.withLock { images in
            if let images { return images }
            let encoded = kinds.compactMap { kind in still.encode(kind).map { ResultImage(kind: kind, data: $0) } }
            images = encoded
            return encoded
        }
    }
}

/// An event on its way to observers, whose result stills may not be encoded yet.
struct QueuedEvent: Sendable {
    let event: LivenessEvent
    var stills: ResultStills? = nil

    /// The event as observers and callers see it: a result with its images.
    var resolved: LivenessEvent {
        guard let stills, case .result(var result) = event else { return event }
        result.images = stills.encoded()
        return .result(result)
    }
}
