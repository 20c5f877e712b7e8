import CCardVision
import Foundation
import Logging
import Synchronization

/// The stills a result carries, encoded once by whoever needs them first:
/// the delivery queue for live frames (`addLiveFrame`), so the frame that
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

/// Which still image a result carries. The raw value is the key under
/// `images` in the JSON event stream.
public enum StillKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The rectified card face, perspective removed.
    case card
    /// The portrait crop from the card face.
    case head

    var cValue: hkcv_still_kind {
        switch self {
        case .card: HKCV_STILL_CARD
        case .head: HKCV_STILL_HEAD
        }
    }

    public static func < (lhs: StillKind, rhs: StillKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Where a session gets the stills for its results from.
///
/// In production this is the vision tracker, which keeps the best front-on
/// still of the frames it analysed. Sessions fed with measurements only (a
/// replayed trace, the tests) have no tracker; they can be given a provider
/// that stands in for it. Called only under the session's analysis lock, so
/// implementations need no synchronisation of their own.
protocol StillProvider: AnyObject {
    /// Sees every measurement the session analyses. The tracker has already
    /// seen the frame itself, so it ignores this.
    func consider(_ measurement: CardMeasurement, at t: MediaTime)
    /// The kept still, or nil when none is kept. Cheap (no pixels are
    /// copied), so it can be called on the frame that decides a result.
    func takeStill() -> (any KeptStill)?
    /// Forget the kept still (and any tracking) for a new attempt.
    func reset()
}

/// A still taken from its provider when a result was decided. It no longer
/// changes with the frames that follow, so it can be encoded on any thread
/// while they are analysed.
protocol KeptStill: Sendable {
    /// JPEG bytes, or nil when encoding failed.
    func encode(_ kind: StillKind) -> Data?
}

/// A `hkcv_still`: the tracker's kept still, taken out of it.
///
/// `@unchecked Sendable` because the shim documents `hkcv_still` as usable
/// from any number of threads (it never changes, and its lazily rectified
/// pixels are guarded inside the shim), unlike the tracker it came from.
final class TrackerStill: KeptStill, @unchecked Sendable {
    private let handle: OpaquePointer
    private let logger: Logger

    /// nil when the tracker keeps no still.
    init?(takenFrom tracker: OpaquePointer, logger: Logger) {
        var still: OpaquePointer?
        guard hkcv_tracker_take_still(tracker, &still) == HKCV_OK, let still else { return nil }
        handle = still
        self.logger = logger
    }

    deinit {
        hkcv_still_release(handle)
    }

    func encode(_ kind: StillKind) -> Data? {
        var buffer = hkcv_buffer()
        let status = hkcv_still_encode(handle, kind.cValue, &buffer)
        defer { hkcv_buffer_free(&buffer) }
        guard status == HKCV_OK, let data = buffer.data else {
            logger.warning("hkcv_still_encode failed",
                           metadata: ["kind": "\(kind)", "status": "\(String(cString: hkcv_status_string(status.rawValue)))"])
            return nil
        }
        return Data(bytes: data, count: buffer.size)
    }
}
