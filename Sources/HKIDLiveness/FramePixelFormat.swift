import CCardVision

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

    var cValue: cv_pixel_format {
        switch self {
        case .gray8: CV_PIXEL_GRAY8
        case .i420: CV_PIXEL_I420
        case .nv12: CV_PIXEL_NV12
        case .bgr: CV_PIXEL_BGR
        case .bgra: CV_PIXEL_BGRA
        }
    }
}
