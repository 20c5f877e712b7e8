import Foundation
import HKIDRegression

/// The table printed after a batch replay: one row per file, what was
/// expected, what happened, the first difference, and how accurate the
/// tracker was against ground truth when the file has it.
struct SummaryTable {
    let results: [ReplayResult]
    let checking: Bool

    func print() {
        var rows: [[String]] = [["file", "expected", "got", "first difference", "IoU", "yaw err", "pitch err", "frames", "s"]]
        for r in results {
            let expected = r.expectation.map { Self.code($0.retCode) } ?? "-"
            let got = r.observed.finalCode.map(Self.code) ?? (r.sourceError == nil ? "none" : "error")
            let difference = r.sourceError ?? r.verdict?.difference ?? (checking ? "" : "-")
            let a = r.accuracy
            rows.append([
                (r.file as NSString).lastPathComponent, expected, got, difference.isEmpty ? "matches" : difference,
                a.map { String(format: "%.3f", $0.meanJaccard) } ?? "-",
                a.map { String(format: "%.1f/%.1f", $0.yawMedianError, $0.yawP90Error) } ?? "-",
                a.map { String(format: "%.1f/%.1f", $0.pitchMedianError, $0.pitchP90Error) } ?? "-",
                "\(r.counters.analysed)", String(format: "%.2f", r.seconds),
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (index, row) in rows.enumerated() {
            let cells = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            Output.line(cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            if index == 0 { Output.line(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        let failed = results.filter { !$0.passed }.count
        let withTruth = results.compactMap(\.accuracy).filter { $0.visibleFrames > 0 || $0.falseDetections > 0 }
        var footer = checking ? "\(results.count - failed) passed, \(failed) failed" : "\(results.count) replayed"
        if !withTruth.isEmpty {
            let withCard = withTruth.filter { $0.detectedFrames > 0 }
            let iou = withCard.map(\.meanJaccard).reduce(0, +) / Double(max(1, withCard.count))
            let recall = Double(withTruth.map(\.detectedFrames).reduce(0, +)) / Double(max(1, withTruth.map(\.visibleFrames).reduce(0, +)))
            footer += String(format: "; mean IoU %.3f, recall %.3f, false detections %d", iou, recall,
                             withTruth.map(\.falseDetections).reduce(0, +))
        }
        Output.line(footer)
    }

    static func code(_ code: Int) -> String {
        switch code {
        case 0: "0 success"
        case 1: "1 first"
        case 2: "2 exposure"
        case 3: "3 lost"
        case 4: "4 overtime"
        case 5: "5 spoof"
        default: "\(code)"
        }
    }
}
