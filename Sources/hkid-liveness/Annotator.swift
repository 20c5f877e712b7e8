import CCardRender
import Foundation
import HKIDLiveness
import HKIDMedia

/// `--annotate OUT.mp4`: the input video with what the detector saw and
/// said drawn on every frame — the tracked quad, the three angles, width
/// ratio, glare, the current hint and alert, and the progress through the
/// four steps.
final class Annotator {
    private let path: String
    private var writer: VideoWriter?
    private var y: [UInt8] = [], u: [UInt8] = [], v: [UInt8] = []
    private var status = "-"
    private var hint = ""
    private var alert: String?
    private var result: String?
    private var step = 0
    private var firstPTS: Int64?

    init(path: String) throws {
        self.path = path
    }

    /// Follows the event stream to know what to print on the next frames.
    func note(_ event: LivenessEvent) {
        switch event {
        case .operation(let command):
            let status = command.currentStatus
            if status.isAlert {
                alert = status == .valid ? nil : status.name
                return
            }
            self.status = status.name
            // Hints are drawn in ASCII (OpenCV's fonts have no CJK), so the
            // English text is used whatever --lang says.
            hint = command.hintKey.text(in: .en)
            step = [.begin: 0, .orth: 1, .reset: 2, .leftDown: 3, .complete: 4][status] ?? step
        case .result(let r):
            result = r.success ? "RESULT 0 success" : "RESULT \(r.retCode) \(r.message)"
        case .frame:
            break
        }
    }

    func draw(_ frame: VideoFrame, _ analysis: FrameAnalysis) throws {
        guard frame.format == .i420 else { return }
        let width = frame.width, height = frame.height
        if writer == nil {
            // x264 needs even sizes; a stray odd column or row is cropped.
            var settings = VideoWriter.Settings(width: width & ~1, height: height & ~1, framesPerSecond: 30)
            settings.bitrate = 2_500
            settings.preset = "veryfast"
            writer = try VideoWriter(path: path, settings: settings)
            y = .init(repeating: 0, count: width * height)
            u = .init(repeating: 0, count: (width / 2) * (height / 2))
            v = u
        }
        copyPlane(frame.planes[0], stride: frame.strides[0], into: &y, width: width, rows: height)
        copyPlane(frame.planes[1], stride: frame.strides[1], into: &u, width: width / 2, rows: height / 2)
        copyPlane(frame.planes[2], stride: frame.strides[2], into: &v, width: width / 2, rows: height / 2)

        let m = analysis.measurement
        var lines = [String(format: "t %.3f s   %@", analysis.t.seconds, status), hint]
        if let m, m.found {
            lines.append(String(format: "yaw %+.1f  pitch %+.1f  roll %+.1f", m.yaw, m.pitch, m.roll))
            lines.append(String(format: "width %.2f  glare %.2f  speed %.0f deg/s", m.widthRatio, m.glare, m.speed))
        } else {
            lines.append("no card")
        }
        if let alert { lines.append("ALERT \(alert)") }
        if let result { lines.append(result) }
        try y.withUnsafeMutableBufferPointer { yp in
            try u.withUnsafeMutableBufferPointer { up in
                try v.withUnsafeMutableBufferPointer { vp in
                    var target = cr_frame()
                    target.format = CR_FRAME_I420
                    target.width = Int32(width)
                    target.height = Int32(height)
                    target.planes = (yp.baseAddress, up.baseAddress, vp.baseAddress)
                    target.strides = (Int32(width), Int32(width / 2), Int32(width / 2))
                    if let m, m.found {
                        let corners = m.corners.flatMap { [Float($0.x), Float($0.y)] }
                        let color = alert == nil ? cr_color(r: 40, g: 220, b: 90) : cr_color(r: 240, g: 170, b: 30)
                        corners.withUnsafeBufferPointer { _ = cr_draw_quad(&target, $0.baseAddress, color, 3) }
                    }
                    let cLines = lines.map { strdup($0) }
                    defer { cLines.forEach { free($0) } }
                    var pointers = cLines.map { UnsafePointer($0) }
                    _ = pointers.withUnsafeMutableBufferPointer { p in
                        cr_draw_text(&target, p.baseAddress, Int32(p.count), 16, 16, 0.8, cr_color(r: 255, g: 255, b: 255))
                    }
                    _ = cr_draw_progress(&target, 16, Int32(height - 30), Int32(width / 3), 12, Double(step) / 4,
                                         cr_color(r: 40, g: 220, b: 90))
                    let pts = frame.pts - (firstPTS ?? frame.pts)
                    if firstPTS == nil { firstPTS = frame.pts }
                    try writer!.write(y: yp.baseAddress!, yStride: width, u: up.baseAddress!, uStride: width / 2,
                                      v: vp.baseAddress!, vStride: width / 2, pts: pts)
                }
            }
        }
    }

    func finish() throws {
        try writer?.finish()
    }

    private func copyPlane(_ source: UnsafePointer<UInt8>, stride: Int, into target: inout [UInt8], width: Int, rows: Int) {
        target.withUnsafeMutableBufferPointer { dst in
            for row in 0..<rows {
                (dst.baseAddress! + row * width).update(from: source + row * stride, count: width)
            }
        }
    }
}
