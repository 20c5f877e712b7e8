import CCardVision
import Foundation
import Logging

/// Owns one `hkcv_tracker` (the C shim's per-holder state).
///
/// Not Sendable: the shim forbids using one tracker from two threads at once,
/// and the session guarantees that by touching it only under its analysis lock.
final class CardTracker {
    private let handle: OpaquePointer
    private let logger: Logger
    /// The card type last handed to the shim (which has no getter for it).
    private(set) var cardType: CardType

    init(configuration: LivenessConfiguration, logger: Logger) throws(LivenessError) {
        var config = hkcv_config()
        hkcv_config_default(&config)
        config.card_type = configuration.cardType.cValue
        config.hfov_deg = configuration.hfovDegrees
        config.estimate_focal = configuration.estimatesFocalLength ? 1 : 0
        config.detect_long_side = Int32(configuration.detectLongSide)
        config.front_max_deg = configuration.frontMaxDegrees
        config.border_margin = configuration.borderMarginRatio
        config.glare_luma = Int32(configuration.glareLuma)
        config.still_width = Int32(configuration.stillWidth)
        config.jpeg_quality = Int32(configuration.jpegQuality)
        // The liveness evidence reads black level and colour only on frames
        // neither FAR nor NEAR nor over the exposure limit.
        config.material_min_width = configuration.farWidthRatio
        config.material_max_width = configuration.nearWidthRatio
        config.material_max_glare = configuration.glareLimit
        var err: Int32 = 0
        let created: OpaquePointer? = if let path = configuration.faceCascadePath {
            path.withCString { cPath in
                config.face_cascade_path = cPath
                return hkcv_tracker_create(&config, &err)
            }
        } else {
            hkcv_tracker_create(&config, &err)
        }
        guard let created else {
            throw LivenessError.vision(operation: "hkcv_tracker_create", status: err,
                                       reason: String(cString: hkcv_status_string(err)))
        }
        handle = created
        self.logger = logger
        cardType = configuration.cardType
    }

    deinit {
        hkcv_tracker_destroy(handle)
    }

    func process(_ frame: FrameView) throws(LivenessError) -> CardMeasurement {
        var image = hkcv_image()
        image.format = frame.format.cValue
        image.width = Int32(frame.width)
        image.height = Int32(frame.height)
        image.range = frame.colorRange.cValue
        image.chroma_site = frame.chromaSite.cValue
        image.matrix = frame.colorMatrix.cValue
        let planes = frame.planes
        let strides = frame.strides.map { Int32($0) }
        image.planes = (planes.count > 0 ? planes[0] : nil,
                        planes.count > 1 ? planes[1] : nil,
                        planes.count > 2 ? planes[2] : nil)
        image.strides = (strides.count > 0 ? strides[0] : 0,
                         strides.count > 1 ? strides[1] : 0,
                         strides.count > 2 ? strides[2] : 0)
        var out = hkcv_measurement()
        let status = hkcv_tracker_process(handle, &image, frame.pts, &out)
        try check(status, "hkcv_tracker_process")
        return CardMeasurement(out)
    }

    /// The liveness evidence gathered since the last reset.
    func liveness() -> LivenessEvidence {
        var out = hkcv_liveness()
        guard succeeded(hkcv_tracker_liveness(handle, &out), "hkcv_tracker_liveness") else { return LivenessEvidence() }
        return LivenessEvidence(out)
    }

    /// Drops the material evidence gathered so far (`hkcv_tracker_restart_material`):
    /// the session calls it when the card first stands front-on in view (ORTH).
    func restartMaterial() {
        _ = succeeded(hkcv_tracker_restart_material(handle), "hkcv_tracker_restart_material")
    }

    func setCardType(_ type: CardType) {
        if succeeded(hkcv_tracker_set_card_type(handle, type.cValue), "hkcv_tracker_set_card_type") { cardType = type }
    }

    /// Whether a call the session can go on without succeeded; logged when not.
    private func succeeded(_ status: hkcv_status, _ operation: String) -> Bool {
        guard status != HKCV_OK else { return true }
        logger.warning("\(operation) failed", metadata: ["status": "\(String(cString: hkcv_status_string(status.rawValue)))"])
        return false
    }

    private func check(_ status: hkcv_status, _ operation: String) throws(LivenessError) {
        guard status != HKCV_OK else { return }
        throw .vision(operation: operation, status: status.rawValue,
                      reason: String(cString: hkcv_status_string(status.rawValue)))
    }
}

extension CardTracker: StillProvider {
    func consider(_ measurement: CardMeasurement, at t: MediaTime) {}

    func takeStill() -> (any KeptStill)? {
        TrackerStill(takenFrom: handle, logger: logger)
    }

    func reset() {
        _ = succeeded(hkcv_tracker_reset(handle), "hkcv_tracker_reset")
    }
}

/// OpenCV's thread pool, which the vision shim shares with everything else
/// in the process that uses OpenCV.
public enum VisionThreads {
    /// Runs OpenCV's parallel loops on at most `threads` threads, process-wide
    /// (1: on the calling thread). A replay sets 1: the decoder already keeps
    /// the other cores busy, and handing each frame's flow and warps to the
    /// pool cost a quarter more CPU a frame (docs/decisions.md).
    public static func limit(to threads: Int) {
        hkcv_set_opencv_threads(Int32(max(1, threads)))
    }
}
