import CGStreamer

/// Pixel layouts the analysis understands. Anything else is `.other` and the
/// pipeline description should convert it (`videoconvert ! video/x-raw,format=I420`).
public enum PixelFormat: Sendable, Equatable {
    case i420, nv12, gray8, bgr, bgra
    case other(String)

    init(_ format: GstVideoFormat) {
        switch format {
        case GST_VIDEO_FORMAT_I420: self = .i420
        case GST_VIDEO_FORMAT_NV12: self = .nv12
        case GST_VIDEO_FORMAT_GRAY8: self = .gray8
        case GST_VIDEO_FORMAT_BGR: self = .bgr
        case GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_BGRA: self = .bgra
        default: self = .other(gst_video_format_to_string(format).map { String(cString: $0) } ?? "unknown")
        }
    }
}

/// One decoded frame, read-only and zero-copy: it owns a reference to its
/// GstSample and keeps the buffer mapped until it is released, so the planes
/// can be handed to the analysis (or to another thread) without copying.
public final class VideoFrame: @unchecked Sendable {
    // @unchecked Sendable is safe because every stored property is immutable
    // after init, GstSample's reference count is atomic, and the mapping is
    // read-only memory that stays valid until deinit, which runs exactly once.
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Presentation timestamp in nanoseconds: the buffer's stream time, or
    /// its running time when made `inRunningTime` (a looping file's stream
    /// time starts again at each wrap; its running time goes on).
    public let pts: Int64
    /// Duration in nanoseconds, -1 when the stream does not say.
    public let duration: Int64
    /// Up to three planes (Y, U, V for I420; Y, UV for NV12; one for packed formats).
    public let planes: [UnsafePointer<UInt8>]
    public let strides: [Int]
    /// Whether Y'CbCr levels span 0-255 (else luma 16-235, most video), and
    /// whether they use the BT.709 matrix (else BT.601): the caps'
    /// colorimetry, or GStreamer's defaults for the frame size when the
    /// stream names none.
    public let fullRange: Bool
    public let bt709: Bool
    /// Whether 4:2:0 colour samples sit on the even luma columns (rows),
    /// else halfway between two: the caps' chroma-site (MPEG-2's, on the
    /// columns and between the rows, when the stream names none; JPEG's,
    /// between both, from an MJPEG webcam).
    public let chromaCositedHorizontally: Bool
    public let chromaCositedVertically: Bool

    private let sample: OpaquePointer
    private var mapping: hk_video_frame

    /// Takes ownership of one reference to `sample`. Returns nil when the
    /// sample carries no video buffer (e.g. caps that aren't raw video).
    init?(adopting sample: OpaquePointer, inRunningTime: Bool = false) {
        var mapping = hk_video_frame()
        guard hk_video_frame_map(sample, &mapping) != 0 else {
            gst_sample_unref(sample)
            return nil
        }
        self.sample = sample
        self.mapping = mapping
        width = Int(mapping.width)
        height = Int(mapping.height)
        format = PixelFormat(mapping.format)
        var time = mapping.pts
        if inRunningTime, hk_clock_time_is_valid(time) != 0, let segment = gst_sample_get_segment(sample) {
            time = gst_segment_to_running_time(segment, GST_FORMAT_TIME, time)
        }
        pts = hk_clock_time_is_valid(time) != 0 ? Int64(time) : -1
        duration = hk_clock_time_is_valid(mapping.duration) != 0 ? Int64(mapping.duration) : -1
        fullRange = mapping.full_range != 0
        bt709 = mapping.bt709 != 0
        chromaCositedHorizontally = mapping.chroma_h_cosited != 0
        chromaCositedVertically = mapping.chroma_v_cosited != 0
        let count = Int(mapping.n_planes)
        planes = withUnsafeBytes(of: mapping.planes) { raw in
            (0..<count).map { raw.load(fromByteOffset: $0 * MemoryLayout<UnsafePointer<UInt8>>.stride, as: UnsafePointer<UInt8>.self) }
        }
        strides = withUnsafeBytes(of: mapping.strides) { raw in
            (0..<count).map { Int(raw.load(fromByteOffset: $0 * MemoryLayout<Int32>.stride, as: Int32.self)) }
        }
    }

    deinit {
        hk_video_frame_unmap(&mapping)
        gst_sample_unref(sample)
    }
}
