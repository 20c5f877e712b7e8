import Foundation
import HKIDLiveness
import HKIDRegression

/// The yaw/pitch-over-time chart of one replayed file, as inline SVG:
/// measured angles as lines (broken where no card was tracked), ground truth
/// as thin dashed lines, the front-on band and the ± rotation threshold, and
/// every event as a labelled vertical line.
struct ReportPlot {
    var measurements: [(t: MediaTime, card: CardMeasurement?)]
    var truth: [FrameTruth]?
    var events: [LivenessEvent]
    var frontDegrees: Double
    var rotationDegrees: Double

    // Geometry of the drawing, in SVG user units (about pixels at 1200 px).
    private let width = 1160.0
    private let plotHeight = 230.0
    private let left = 46.0
    private let right = 44.0
    private let labelRow = 16.0
    private let axisHeight = 30.0
    private let maxLabelRows = 5

    /// A marker on the time axis.
    struct Marker {
        var t: Double
        var label: String
        var color: String
    }

    static func marker(for event: LivenessEvent) -> Marker? {
        switch event {
        case .operation(let command):
            let status = command.currentStatus
            let color = status.isAlert ? ReportStyle.warn : status == .valid ? ReportStyle.pass : ReportStyle.neutral
            return Marker(t: command.t.seconds, label: status.name, color: color)
        case .result(let result):
            let color = result.success ? ReportStyle.pass : result.code == .first ? ReportStyle.yaw : ReportStyle.fail
            let label = "R\(result.retCode)" + (result.success ? " success" : " \(result.message)")
            return Marker(t: result.t.seconds, label: label, color: color)
        case .frame:
            return nil
        }
    }

    var duration: Double {
        let times = measurements.map(\.t.seconds) + events.map(\.t.seconds) + (truth ?? []).map(\.t)
        return max(times.max() ?? 1, 0.5)
    }

    /// The angle range shown: ±45° unless the data goes further, in steps of 15°.
    var range: Double {
        var extreme = rotationDegrees + 10
        for m in measurements { if let c = m.card, c.found { extreme = max(extreme, abs(c.yaw), abs(c.pitch)) } }
        for f in truth ?? [] where f.visible { extreme = max(extreme, abs(f.yaw), abs(f.pitch)) }
        return min(90, max(45, (extreme / 15).rounded(.up) * 15))
    }

    func svg(title: String, id: String) -> String {
        let duration = self.duration, range = self.range
        let markers = events.compactMap(Self.marker(for:)).sorted { $0.t < $1.t }
        let plotRight = width - right
        func x(_ t: Double) -> Double { left + (plotRight - left) * max(0, min(t, duration)) / duration }

        // Labels go in rows above the plot, each in the first row where it
        // does not overlap the previous label.
        var rowEnds: [Double] = []
        var placed: [(marker: Marker, row: Int, x: Double)] = []
        for marker in markers {
            let px = x(marker.t)
            let textWidth = Double(marker.label.count) * 6.4 + 8
            if let row = rowEnds.firstIndex(where: { $0 < px }) {
                rowEnds[row] = px + textWidth
                placed.append((marker, row, px))
            } else if rowEnds.count < maxLabelRows {
                rowEnds.append(px + textWidth)
                placed.append((marker, rowEnds.count - 1, px))
            } else {
                let row = rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] }!
                rowEnds[row] = px + textWidth
                placed.append((marker, row, px))
            }
        }
        let top = 6 + Double(max(rowEnds.count, 1)) * labelRow + 6
        let bottom = top + plotHeight
        let height = bottom + axisHeight
        func y(_ degrees: Double) -> Double { top + plotHeight * (range - max(-range, min(range, degrees))) / (2 * range) }
        let n = HTML.number

        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" "
        s += "aria-label=\"\(HTML.escape(title))\" font-family=\"system-ui, 'DejaVu Sans', sans-serif\" font-size=\"11\">"
        s += "<title>\(HTML.escape(title))</title>"
        let clip = "\(id)-clip"
        s += "<defs><clipPath id=\"\(clip)\"><rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotRight - left))\" height=\"\(n(plotHeight))\"/></clipPath>"
        s += "<pattern id=\"\(clip)-miss\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        s += "<rect width=\"6\" height=\"6\" fill=\"#f6f8fa\"/><rect width=\"3\" height=\"6\" fill=\"#e6e9ed\"/></pattern></defs>"

        // Frame, no-card stretches, front-on band.
        s += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotRight - left))\" height=\"\(n(plotHeight))\" fill=\"#fff\"/>"
        for (from, to) in missingStretches() {
            s += "<rect x=\"\(n(x(from)))\" y=\"\(n(top))\" width=\"\(n(max(1, x(to) - x(from))))\" height=\"\(n(plotHeight))\" fill=\"url(#\(clip)-miss)\"><title>no card</title></rect>"
        }
        s += "<rect x=\"\(n(left))\" y=\"\(n(y(frontDegrees)))\" width=\"\(n(plotRight - left))\" height=\"\(n(y(-frontDegrees) - y(frontDegrees)))\" fill=\"\(ReportStyle.band)\"/>"

        // Horizontal grid every 15°, labelled on the left.
        var degrees = -range
        while degrees <= range + 0.001 {
            let gy = y(degrees)
            let stroke = degrees == 0 ? "#8c959f" : ReportStyle.grid
            s += "<line x1=\"\(n(left))\" x2=\"\(n(plotRight))\" y1=\"\(n(gy))\" y2=\"\(n(gy))\" stroke=\"\(stroke)\" stroke-width=\"1\"/>"
            s += "<text x=\"\(n(left - 6))\" y=\"\(n(gy + 4))\" text-anchor=\"end\" fill=\"#57606a\">\(degrees > 0 ? "+" : "")\(Int(degrees))°</text>"
            degrees += 15
        }
        // Rotation threshold, labelled on the right.
        for sign in [1.0, -1.0] {
            let ty = y(sign * rotationDegrees)
            s += "<line x1=\"\(n(left))\" x2=\"\(n(plotRight))\" y1=\"\(n(ty))\" y2=\"\(n(ty))\" stroke=\"#cf222e\" stroke-opacity=\"0.55\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>"
            s += "<text x=\"\(n(plotRight + 4))\" y=\"\(n(ty + 4))\" fill=\"#cf222e\">\(sign > 0 ? "+" : "−")\(n(rotationDegrees))°</text>"
        }
        s += "<text x=\"\(n(plotRight + 4))\" y=\"\(n(y(0) + 4))\" fill=\"#1a7f37\">±\(n(frontDegrees))°</text>"

        // Time axis: ticks every 1, 2, 5 or 10 s.
        let step = [0.5, 1, 2, 5, 10, 30, 60].first { duration / $0 <= 16 } ?? 120
        var t = 0.0
        while t <= duration + 1e-9 {
            let tx = x(t)
            s += "<line x1=\"\(n(tx))\" x2=\"\(n(tx))\" y1=\"\(n(top))\" y2=\"\(n(bottom))\" stroke=\"#eef1f4\" stroke-width=\"1\"/>"
            s += "<line x1=\"\(n(tx))\" x2=\"\(n(tx))\" y1=\"\(n(bottom))\" y2=\"\(n(bottom + 4))\" stroke=\"#8c959f\"/>"
            s += "<text x=\"\(n(tx))\" y=\"\(n(bottom + 16))\" text-anchor=\"middle\" fill=\"#57606a\">\(n(t)) s</text>"
            t += step
        }

        // Ground truth, then measurements on top.
        if let truth {
            let frames = truth.map { (t: $0.t, yaw: $0.visible ? $0.yaw : nil, pitch: $0.visible ? $0.pitch : nil) }
            s += path(frames.map { ($0.t, $0.yaw) }, x: x, y: y, color: ReportStyle.yaw, width: 1.2, dash: "4 3", clip: clip, opacity: 0.85)
            s += path(frames.map { ($0.t, $0.pitch) }, x: x, y: y, color: ReportStyle.pitch, width: 1.2, dash: "4 3", clip: clip, opacity: 0.85)
        }
        let found = measurements.map { m in (t: m.t.seconds, card: m.card.flatMap { $0.found ? $0 : nil }) }
        s += path(found.map { ($0.t, $0.card?.pitch) }, x: x, y: y, color: ReportStyle.pitch, width: 2, dash: nil, clip: clip, opacity: 1)
        s += path(found.map { ($0.t, $0.card?.yaw) }, x: x, y: y, color: ReportStyle.yaw, width: 2, dash: nil, clip: clip, opacity: 1)

        // Events: a vertical line through the plot, the label in its row above.
        for (marker, row, px) in placed {
            let labelY = 6 + Double(row) * labelRow + 11
            s += "<line x1=\"\(n(px))\" x2=\"\(n(px))\" y1=\"\(n(labelY + 3))\" y2=\"\(n(bottom))\" stroke=\"\(marker.color)\" stroke-width=\"1\" stroke-opacity=\"0.75\"/>"
            s += "<text x=\"\(n(px + 3))\" y=\"\(n(labelY))\" fill=\"\(marker.color)\" font-weight=\"600\">\(HTML.escape(marker.label))"
            s += "<title>\(HTML.escape(marker.label)) at \(String(format: "%.3f", marker.t)) s</title></text>"
        }
        s += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotRight - left))\" height=\"\(n(plotHeight))\" fill=\"none\" stroke=\"#afb8c1\"/>"
        s += "</svg>"
        return s
    }

    /// A polyline broken wherever the value is missing.
    private func path(_ points: [(Double, Double?)], x: (Double) -> Double, y: (Double) -> Double,
                      color: String, width: Double, dash: String?, clip: String, opacity: Double) -> String {
        var d = "", pen = false
        for (t, value) in points {
            guard let value else { pen = false; continue }
            d += (pen ? "L" : "M") + HTML.number(x(t)) + " " + HTML.number(y(value))
            pen = true
        }
        guard !d.isEmpty else { return "" }
        var s = "<path d=\"\(d)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(HTML.number(width))\" "
        s += "stroke-linejoin=\"round\" stroke-linecap=\"round\" clip-path=\"url(#\(clip))\""
        if let dash { s += " stroke-dasharray=\"\(dash)\"" }
        if opacity < 1 { s += " stroke-opacity=\"\(opacity)\"" }
        return s + "/>"
    }

    /// Stretches of media time in which the tracker found no card.
    private func missingStretches() -> [(Double, Double)] {
        let times = measurements.map(\.t.seconds)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        let frame = gaps.isEmpty ? 1.0 / 30 : gaps[gaps.count / 2]
        var stretches: [(Double, Double)] = []
        var start: Double?
        for (index, m) in measurements.enumerated() {
            let missing = !(m.card?.found ?? false)
            if missing, start == nil { start = m.t.seconds }
            if !missing, let from = start {
                stretches.append((from, m.t.seconds))
                start = nil
            }
            if index == measurements.count - 1, let from = start { stretches.append((from, m.t.seconds + frame)) }
        }
        return stretches
    }
}
