import CCardVision
import Foundation
import Logging

/// A `cv_still`: the tracker's kept still, taken out of it.
///
/// `@unchecked Sendable` because the shim documents `cv_still` as usable
/// from any number of threads (it never changes, and its lazily rectified
/// pixels are guarded inside the shim), unlike the tracker it came from.
final class TrackerStill: KeptStill, @unchecked Sendable {
    private let handle: OpaquePointer
    private let logger: Logger

    /// nil when the tracker keeps no still.
    init?(takenFrom tracker: OpaquePointer, logger: Logger) {
        var still: OpaquePointer?
        guard cv_tracker_take_still(tracker, &still) == CV_OK, let still else { return nil }
        handle = still
        self.logger = logger
    }

    deinit {
        cv_still_release(handle)
    }

    func encode(_ kind: StillKind) -> Data? {
        var buffer = cv_buffer()
        let status = cv_still_encode(handle, kind.cValue, &buffer)
        defer { cv_buffer_free(&buffer) }
        guard status == CV_OK, let data = buffer.data else {
            logger.warning("cv_still_encode failed",
                           metadata: ["kind": "\(kind)", "status": "\(String(cString: cv_status_string(status.rawValue)))"])
            return nil
        }
        return Data(bytes: data, count: buffer.size)
    }
}
