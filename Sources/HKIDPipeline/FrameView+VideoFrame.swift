import HKIDLiveness
import HKIDMedia

extension FrameView {
    /// Views a decoded GStreamer frame for analysis, without copying pixels.
    /// Valid only while `frame` is alive; nil for pixel formats the shim
    /// cannot read (the pipeline description should convert those).
    public init?(_ frame: VideoFrame) {
        let format: FramePixelFormat
        switch frame.format {
        case .i420: format = .i420
        case .nv12: format = .nv12
        case .gray8: format = .gray8
        case .bgr: format = .bgr
        case .bgra: format = .bgra
        case .other: return nil
        }
        self.init(format: format, width: frame.width, height: frame.height,
                  planes: frame.planes, strides: frame.strides, pts: frame.pts,
                  colorRange: frame.fullRange ? .full : .limited, colorMatrix: frame.bt709 ? .bt709 : .bt601,
                  chromaSite: FrameChromaSite(cositedHorizontally: frame.chromaCositedHorizontally,
                                              cositedVertically: frame.chromaCositedVertically))
    }
}
