import CCardVision

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
    /// How Y'CbCr levels are to be read (ignored for BGR and grey): video
    /// is mostly `.limited`, camera buffers and JPEG `.full`. Glare is judged
    /// on the level's place in its own scale, and stills are converted with it.
    public var colorRange: FrameColorRange
    public var colorMatrix: FrameColorMatrix
    /// Where 4:2:0 colour samples sit against the luma grid (ignored for
    /// BGR and grey): `.mpeg2` for most video, `.jpeg` from an MJPEG webcam.
    public var chromaSite: FrameChromaSite

    public init(format: FramePixelFormat, width: Int, height: Int,
                planes: [UnsafePointer<UInt8>], strides: [Int], pts: Int64,
                colorRange: FrameColorRange = .full, colorMatrix: FrameColorMatrix = .bt601,
                chromaSite: FrameChromaSite = .mpeg2) {
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.strides = strides
        self.pts = pts
        self.colorRange = colorRange
        self.colorMatrix = colorMatrix
        self.chromaSite = chromaSite
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

/// The span of Y'CbCr levels: full 0-255, or limited ("studio swing",
/// luma 16-235, chroma 16-240) as most H.264 and MPEG-4 video.
public enum FrameColorRange: Sendable, Hashable, CaseIterable {
    case full
    case limited

    var cValue: hkcv_color_range { self == .limited ? HKCV_RANGE_LIMITED : HKCV_RANGE_FULL }
}

/// The Y'CbCr matrix: BT.601 (SD video, JPEG) or BT.709 (HD video).
public enum FrameColorMatrix: Sendable, Hashable, CaseIterable {
    case bt601
    case bt709

    var cValue: hkcv_color_matrix { self == .bt709 ? HKCV_MATRIX_BT709 : HKCV_MATRIX_BT601 }
}

/// Where 4:2:0 colour samples sit against the luma grid. The edge fit
/// reads a card's side on the colour planes when it has no edge in luma
/// (a green title band before a grey wall) and places it to a fraction of
/// a pixel, so it must know where each colour sample stands.
public enum FrameChromaSite: Sendable, Hashable, CaseIterable {
    /// On the even luma columns, halfway between two rows: H.264, MPEG-2, MPEG-4.
    case mpeg2
    /// Halfway between two columns and two rows: JPEG, an MJPEG webcam.
    case jpeg
    /// On the even luma columns and rows.
    case cosited

    /// From GStreamer's chroma-site flags; a siting co-sited only vertically,
    /// which no common stream uses, is read as `.mpeg2`.
    public init(cositedHorizontally: Bool, cositedVertically: Bool) {
        switch (cositedHorizontally, cositedVertically) {
        case (true, true): self = .cosited
        case (false, false): self = .jpeg
        default: self = .mpeg2
        }
    }

    var cValue: hkcv_chroma_site {
        switch self {
        case .mpeg2: HKCV_CHROMA_SITE_MPEG2
        case .jpeg: HKCV_CHROMA_SITE_JPEG
        case .cosited: HKCV_CHROMA_SITE_COSITED
        }
    }
}

/// Pixel layouts `addFrame` accepts (those the vision shim reads).
public enum FramePixelFormat: Sendable, Hashable, CaseIterable {
    /// One plane: luma.
    case gray8
    /// Three planes: Y, U, V (U and V at half size).
    case i420
    /// Two planes: Y, interleaved UV at half size.
    case nv12
    /// One plane, 3 bytes per pixel.
    case bgr
    /// One plane, 4 bytes per pixel (BGRx works too).
    case bgra

    public var planeCount: Int {
        switch self {
        case .gray8, .bgr, .bgra: 1
        case .nv12: 2
        case .i420: 3
        }
    }

    /// Rows in plane `index` of a frame `height` rows high.
    func rows(ofPlane index: Int, height: Int) -> Int {
        index == 0 ? height : (height + 1) / 2
    }

    var cValue: hkcv_pixel_format {
        switch self {
        case .gray8: HKCV_PIXEL_GRAY8
        case .i420: HKCV_PIXEL_I420
        case .nv12: HKCV_PIXEL_NV12
        case .bgr: HKCV_PIXEL_BGR
        case .bgra: HKCV_PIXEL_BGRA
        }
    }
}
