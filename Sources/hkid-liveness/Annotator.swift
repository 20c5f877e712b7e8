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
    private var alertHint = ""
    private var result: String?
    private var resultSucceeded = false
    private var resultColor = cr_color(r: 255, g: 255, b: 255)
    /// A result other than "first" ended the session: later frames are shown
    /// but no longer analysed, so "no card" would be a lie.
    private var ended = false
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
            if status.isAlert || status == .valid {
                alert = status == .valid ? nil : status.name
                alertHint = command.hintKey.text(in: .en)
                return
            }
            self.status = status.name
            // Hints are drawn in ASCII (OpenCV's fonts have no CJK), so the
            // English text is used whatever --lang says.
            hint = command.hintKey.text(in: .en)
            step = [.begin: 0, .orth: 1, .reset: 2, .leftDown: 3, .complete: 4][status] ?? step
        case .result(let r):
            result = String(format: "RESULT %d %@ at %.2f s", r.retCode, r.success ? "success" : r.message, r.t.seconds)
            resultSucceeded = r.success
            // Green success, blue for "first" (progress, not failure), red for a failure.
            resultColor = r.success ? cr_color(r: 40, g: 220, b: 90)
                : r.code == .first ? cr_color(r: 40, g: 120, b: 240) : cr_color(r: 235, g: 60, b: 50)
            if r.code.endsSession {
                // Nothing is analysed any more: an alert can no longer clear,
                // and the last hint no longer applies.
                ended = true
                alert = nil
                if !r.success { hint = "Session over (\(r.message))" }
            }
        case .frame:
            break
        }
    }

    func draw(_ frame: VideoFrame, _ analysis: FrameAnalysis) throws {
        guard frame.format == .i420 else { return }
        let width = frame.width, height = frame.height
        if writer == nil {
            // x264 needs even sizes; a stray odd column or row is cropped.
            var settings = VideoWriter.Settings(width: width & ~1, height: height & ~1, framesPerSecond: Self.framesPerSecond(of: frame))
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
        // Text grows with the picture: 0.8 at 540 lines, 1.6 at 1080.
        let scale = min(3, max(0.6, Double(height) / 540 * 0.8))
        let lineHeight = Int(22 * scale), padding = Int(8 * scale), margin = Int(16 * scale)
        func boxHeight(_ lines: Int) -> Int { lines * lineHeight + padding }

        var lines = [String(format: "t %.3f s   %@", analysis.t.seconds, status), hint]
        if let m, m.found {
            lines.append(String(format: "yaw %+.1f  pitch %+.1f  roll %+.1f deg", m.yaw, m.pitch, m.roll))
            lines.append(String(format: "width %.2f  glare %.2f  speed %.0f deg/s", m.widthRatio, m.glare, m.speed))
        } else if ended {
            lines.append("session ended: frames not analysed")
        } else {
            lines.append("no card")
        }
        // Alert and result go in their own boxes below, each with a coloured
        // bar on its left: amber for an alert, green or red for a result.
        var boxes: [(lines: [String], color: cr_color)] = [(lines, cr_color(r: 255, g: 255, b: 255))]
        if let alert { boxes.append((["ALERT \(alert)", alertHint], cr_color(r: 245, g: 170, b: 20))) }
        if let result {
            boxes.append(([result], resultColor))
        }
        let quadColor = alert != nil ? cr_color(r: 245, g: 170, b: 20)
            : ended && !resultSucceeded ? cr_color(r: 235, g: 60, b: 50) : cr_color(r: 40, g: 220, b: 90)
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
                        corners.withUnsafeBufferPointer { _ = cr_draw_quad(&target, $0.baseAddress, quadColor, max(2, Int32(3 * scale))) }
                    }
                    var top = margin
                    for (index, box) in boxes.enumerated() {
                        let x = index == 0 ? margin : margin + Int(8 * scale)
                        if index > 0 {
                            // Text is drawn in luma only, so colour comes from the bar.
                            _ = cr_draw_progress(&target, Int32(margin), Int32(top), Int32(max(2, 6 * scale)),
                                                 Int32(boxHeight(box.lines.count)), 1, box.color)
                        }
                        drawText(&target, box.lines, x: x, y: top, scale: scale)
                        top += boxHeight(box.lines.count) + Int(6 * scale)
                    }
                    // Progress through the four steps, labelled, at the bottom.
                    let barHeight = Int(12 * scale), barY = height - margin - barHeight
                    let now = ["hold front-on", "first rotation", "back to front", "second rotation"]
                    drawText(&target, [step >= 4 ? "all 4 steps done" : ended ? "stopped after \(step)/4 steps" : "\(step)/4 steps done, now: \(now[step])"], x: margin,
                             y: barY - boxHeight(1) - Int(4 * scale), scale: scale * 0.8)
                    _ = cr_draw_progress(&target, Int32(margin), Int32(barY), Int32(width / 3), Int32(barHeight),
                                         Double(step) / 4, cr_color(r: 40, g: 220, b: 90))
                    let pts = frame.pts - (firstPTS ?? frame.pts)
                    if firstPTS == nil { firstPTS = frame.pts }
                    try writer!.write(y: yp.baseAddress!, yStride: width, u: up.baseAddress!, uStride: width / 2,
                                      v: vp.baseAddress!, vStride: width / 2, pts: pts)
                }
            }
        }
    }

    /// The input's rate from its buffer duration (25 fps stays 25 fps);
    /// 30 when the stream does not say.
    static func framesPerSecond(of frame: VideoFrame) -> Int {
        frame.duration > 0 ? max(1, Int((1e9 / Double(frame.duration)).rounded())) : 30
    }

    func finish() throws {
        try writer?.finish()
    }

    private func drawText(_ target: inout cr_frame, _ lines: [String], x: Int, y: Int, scale: Double) {
        let cLines = lines.map { strdup($0) }
        defer { cLines.forEach { free($0) } }
        var pointers = cLines.map { UnsafePointer($0) }
        _ = pointers.withUnsafeMutableBufferPointer { p in
            cr_draw_text(&target, p.baseAddress, Int32(p.count), Int32(x), Int32(y), scale, cr_color(r: 255, g: 255, b: 255))
        }
    }

    private func copyPlane(_ source: UnsafePointer<UInt8>, stride: Int, into target: inout [UInt8], width: Int, rows: Int) {
        target.withUnsafeMutableBufferPointer { dst in
            for row in 0..<rows {
                (dst.baseAddress! + row * width).update(from: source + row * stride, count: width)
            }
        }
    }
}
