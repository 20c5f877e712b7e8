/// A raw frame that someone else owns, valid only for the duration of the
/// call it is passed to (like the SDK's `addDetectBufferData` buffer, or a
/// mapped GstBuffer). Nothing is copied on the `addFrame` path.
public struct FrameView {
    public var format: FramePixelFormat
    public var width: Int
    public var height: Int
    /// One pointer per plane (`format.planeCount`).
    public var planes: [UnsafePointer<UInt8>]
    /// Bytes per row of each plane.
    public var strides: [Int]
    /// Presentation timestamp in nanoseconds, on any origin (the session
    /// measures `t` from its first frame); must not be negative.
    public var pts: Int64

    public init(format: FramePixelFormat, width: Int, height: Int,
                planes: [UnsafePointer<UInt8>], strides: [Int], pts: Int64) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.strides = strides
        self.pts = pts
    }

    func validate() throws(LivenessError) {
        guard width > 0, height > 0 else { throw .invalidFrame("size \(width)x\(height)") }
        // Every timer runs on pts; GStreamer's "no timestamp" (-1) would
        // freeze the clock, so the caller must stamp such frames itself.
        guard pts >= 0 else { throw .invalidFrame("no timestamp (pts \(pts))") }
        guard planes.count >= format.planeCount, strides.count >= format.planeCount else {
            throw .invalidFrame("\(format) needs \(format.planeCount) planes, got \(planes.count) planes and \(strides.count) strides")
        }
        for index in 0..<format.planeCount where strides[index] <= 0 {
            throw .invalidFrame("stride \(strides[index]) of plane \(index)")
        }
    }
}
