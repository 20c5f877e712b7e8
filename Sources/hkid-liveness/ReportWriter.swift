import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDRegression

/// `--report report.html`: one self-contained page for a batch replay — no
/// external resources (inline CSS, inline SVG, stills as data URIs), so it
/// can be mailed, attached to a CI run or opened from a USB stick.
///
/// The page has the totals, an overview table linking to every file, and per
/// file: the outcome against its expectation, the liveness verdict with each
/// check's score and threshold, the yaw/pitch plot with every event marked
/// (`ReportPlot`), the event timeline and the stills.
struct ReportWriter {
    let results: [ReplayResult]
    /// Drawn on the plots; the session defaults (SPEC section 5).
    var frontDegrees = LivenessConfiguration().frontMaxDegrees
    var rotationDegrees = LivenessConfiguration().rotationDegrees
    /// Shown in the header.
    var generated = Date()

    init(results: [ReplayResult]) {
        self.results = results
    }

    func write(to path: String) throws {
        try DurableFile.write(Data(html().utf8), to: path)
    }

    func html() -> String {
        var page = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>hkid-liveness replay report</title>
            <style>
            \(ReportStyle.css)
            </style>
            </head>
            <body>
            <main>

            """
        page += header()
        page += overview()
        for (index, result) in results.enumerated() {
            page += section(result, index: index)
        }
        page += "<footer>hkid-liveness \(HTML.escape(LivenessSession.version)) · angles in degrees, times in seconds of media time</footer>\n"
        page += "</main>\n</body>\n</html>\n"
        return page
    }

    // MARK: Header

    private var checking: Bool { results.contains { $0.expectation != nil } }

    private func header() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime]
        formatter.timeZone = .current
        let failed = results.filter { !$0.passed }.count
        let withTruth = results.compactMap(\.accuracy).filter { $0.visibleFrames > 0 || $0.falseDetections > 0 }
        let withCard = withTruth.filter { $0.detectedFrames > 0 }
        let iou = withCard.isEmpty ? nil : withCard.map(\.meanJaccard).reduce(0, +) / Double(withCard.count)
        let visible = withTruth.map(\.visibleFrames).reduce(0, +)
        let recall = visible == 0 ? nil : Double(withTruth.map(\.detectedFrames).reduce(0, +)) / Double(visible)
        let falseDetections = withTruth.isEmpty ? nil : withTruth.map(\.falseDetections).reduce(0, +)
        let frames = results.map(\.counters.analysed).reduce(0, +)

        func stat(_ label: String, _ value: String, _ tone: String = "") -> String {
            "<div class=\"stat \(tone)\"><div class=\"label\">\(label)</div><div class=\"value\">\(value)</div></div>"
        }
        var s = "<h1>Replay report</h1>\n"
        s += "<p class=\"sub\">\(results.count) file\(results.count == 1 ? "" : "s") replayed, \(frames) frames analysed · "
        s += "generated \(HTML.escape(formatter.string(from: generated)))</p>\n"
        s += "<div class=\"totals\">"
        s += stat(checking ? "Passed" : "Replayed", "\(results.count - failed)", failed == 0 ? "good" : "")
        s += stat("Failed", "\(failed)", failed > 0 ? "bad" : "")
        s += stat("Mean IoU", iou.map { String(format: "%.3f", $0) } ?? "–")
        s += stat("Recall", recall.map { String(format: "%.3f", $0) } ?? "–")
        s += stat("False detections", falseDetections.map(String.init) ?? "–", (falseDetections ?? 0) > 0 ? "bad" : "")
        s += stat("Frames", "\(frames)")
        s += "</div>\n"
        return s
    }

    private func overview() -> String {
        var s = "<div class=\"card overview\"><table>\n"
        s += "<tr><th>File</th><th></th><th>Expected</th><th>Got</th><th>Liveness</th><th>First difference</th><th class=\"num\">IoU</th><th class=\"num\">Frames</th></tr>\n"
        for (index, r) in results.enumerated() {
            s += "<tr class=\"\(r.passed ? "passed" : "failed")\">"
            s += "<td><a href=\"#\(anchor(index))\">\(HTML.escape(name(r)))</a></td>"
            s += "<td>\(badge(r))</td>"
            s += "<td>\(HTML.escape(expectedText(r)))</td><td>\(HTML.escape(gotText(r)))</td>"
            s += "<td class=\"liveness\">\(HTML.escape(livenessText(r)))</td>"
            s += "<td class=\"diff\">\(HTML.escape(differenceText(r)))</td>"
            s += "<td class=\"num\">\(r.accuracy.flatMap { $0.detectedFrames > 0 ? String(format: "%.3f", $0.meanJaccard) : nil } ?? "–")</td>"
            s += "<td class=\"num\">\(r.counters.analysed)</td></tr>\n"
        }
        s += "</table></div>\n"
        return s
    }

    // MARK: One file

    private func section(_ r: ReplayResult, index: Int) -> String {
        var s = "<section class=\"card file \(r.passed ? "passed" : "failed")\" id=\"\(anchor(index))\">\n"
        s += "<div class=\"file-head\"><h2>\(HTML.escape(name(r)))</h2>\(badge(r))"
        s += "<span class=\"path mono\">\(HTML.escape(r.file))</span></div>\n"
        if let description = r.expectation?.description, !description.isEmpty {
            s += "<p class=\"desc\">\(HTML.escape(description))</p>\n"
        } else {
            s += "<div style=\"height:12px\"></div>\n"
        }
        if let error = r.sourceError {
            s += "<div class=\"error\"><b>Input failed:</b> \(HTML.escape(error))</div>\n"
        }

        // Outcome: expected, got, first difference.
        let difference = differenceText(r)
        let differs = r.verdict.map { !$0.matches } ?? (r.sourceError != nil)
        s += "<div class=\"facts\">"
        s += "<div class=\"fact\"><div class=\"label\">Expected</div><div class=\"value\">\(HTML.escape(expectedText(r)))</div></div>"
        let codeTone: String
        if let expected = r.expectation?.retCode {
            codeTone = r.observed.finalCode == expected && r.sourceError == nil ? "good" : "bad"
        } else {
            codeTone = r.sourceError == nil ? "" : "bad"
        }
        s += "<div class=\"fact \(codeTone)\"><div class=\"label\">Got</div><div class=\"value\">\(HTML.escape(gotText(r)))</div></div>"
        s += "<div class=\"fact \(differs ? "bad" : "")\"><div class=\"label\">First difference</div><div class=\"value\">\(HTML.escape(difference))</div></div>"
        s += "</div>\n"
        s += metrics(r)
        s += liveness(r)

        // Plot.
        if !r.measurements.isEmpty || !r.events.isEmpty {
            let plot = ReportPlot(measurements: r.measurements, truth: r.expectation?.truth, events: r.events,
                                  frontDegrees: frontDegrees, rotationDegrees: rotationDegrees)
            s += "<h3>Card angles</h3>\n"
            s += legend(hasTruth: r.expectation?.truth != nil)
            s += "<div class=\"plot\">\(plot.svg(title: "Yaw and pitch of \(name(r)) over time", id: anchor(index)))</div>\n"
        }

        // Timeline and stills side by side.
        s += "<div class=\"columns\"><div>\n<h3>Events</h3>\n\(timeline(r))</div>\n"
        s += "<div>\n<h3>Stills</h3>\n\(stills(r))</div></div>\n"
        s += "</section>\n"
        return s
    }

    private func metrics(_ r: ReplayResult) -> String {
        var items = ["<span>frames <b>\(r.counters.analysed)</b></span>",
                     "<span>replayed in <b>\(String(format: "%.2f", r.seconds)) s</b></span>"]
        if let e = r.expectation {
            items.append("<span>card <b>\(HTML.escape(e.cardType))</b></span>")
            items.append("<span>overtime <b>\(HTML.number(e.overtime)) s</b></span>")
            items.append("<span>expected statuses <b>\(HTML.escape(e.statuses.joined(separator: " → ")))</b></span>")
            if !e.alerts.isEmpty { items.append("<span>expected alerts <b>\(HTML.escape(e.alerts.joined(separator: " → ")))</b></span>") }
        }
        if let a = r.accuracy, a.visibleFrames == 0 {
            items.append("<span>ground truth: <b>no card visible</b></span>")
            items.append("<span>false detections <b\(a.falseDetections > 0 ? " style=\"color:var(--fail)\"" : "")>\(a.falseDetections)</b></span>")
        } else if let a = r.accuracy {
            items.append("<span>IoU <b>\(String(format: "%.3f", a.meanJaccard))</b></span>")
            items.append("<span>recall <b>\(String(format: "%.3f", a.recall))</b> (\(a.detectedFrames)/\(a.visibleFrames))</span>")
            items.append("<span>yaw error <b>\(String(format: "%.1f° / %.1f°", a.yawMedianError, a.yawP90Error))</b> median / p90</span>")
            items.append("<span>pitch error <b>\(String(format: "%.1f° / %.1f°", a.pitchMedianError, a.pitchP90Error))</b></span>")
            if a.falseDetections > 0 { items.append("<span>false detections <b style=\"color:var(--fail)\">\(a.falseDetections)</b></span>") }
        }
        return "<div class=\"metrics\">\(items.joined())</div>\n"
    }

    /// The liveness verdict and every check, as an auditor reads `delta.liveness`.
    private func liveness(_ r: ReplayResult) -> String {
        guard let report = r.liveness else { return "" }
        let tone = report.verdict == .genuine ? "ok" : report.verdict == .spoof ? "bad" : "info"
        var s = "<h3>Liveness</h3>\n<table class=\"events liveness\">\n"
        s += "<tr><th>Check</th><th class=\"num\">Score</th><th class=\"num\">Threshold</th><th>Verdict</th><th class=\"num\">Frames</th></tr>\n"
        s += "<tr><td class=\"name\">verdict (\(HTML.escape(report.mode.rawValue)))</td>"
        s += "<td class=\"num\">\(String(format: "%.3f", report.spoofScore))</td><td class=\"num\">0.500</td>"
        s += "<td><span class=\"kind \(tone)\">\(HTML.escape(report.verdict.rawValue))</span></td>"
        s += "<td class=\"num\">\(report.evidence.map { String($0.frames) } ?? "–")</td></tr>\n"
        for check in report.checks {
            let checkTone = check.verdict == .pass ? "ok" : check.verdict == .fail ? "bad" : "info"
            s += "<tr><td class=\"name\">\(HTML.escape(check.name))</td>"
            s += "<td class=\"num\">\(check.score.map { String(format: "%.3f", $0) } ?? "–")</td>"
            s += "<td class=\"num\">\(String(format: "%.3f", check.threshold))</td>"
            s += "<td><span class=\"kind \(checkTone)\">\(HTML.escape(check.verdict.rawValue))</span></td>"
            s += "<td class=\"num\">\(check.frames)</td></tr>\n"
        }
        if report.checks.isEmpty {
            s += "<tr><td colspan=\"5\" class=\"hint\">no pixels were measured: nothing to judge</td></tr>\n"
        }
        return s + "</table>\n"
    }

    private func legend(hasTruth: Bool) -> String {
        var s = "<div class=\"legend\">"
        s += "<span><i style=\"border-color:\(ReportStyle.yaw)\"></i>yaw</span>"
        s += "<span><i style=\"border-color:\(ReportStyle.pitch)\"></i>pitch</span>"
        if hasTruth {
            s += "<span><i class=\"dash\" style=\"border-color:\(ReportStyle.yaw)\"></i>true yaw</span>"
            s += "<span><i class=\"dash\" style=\"border-color:\(ReportStyle.pitch)\"></i>true pitch</span>"
        }
        s += "<span><i class=\"box\"></i>front-on ±\(HTML.number(frontDegrees))°</span>"
        s += "<span><i class=\"dash\" style=\"border-color:\(ReportStyle.fail)\"></i>rotation ±\(HTML.number(rotationDegrees))°</span>"
        s += "<span><i class=\"miss\"></i>no card tracked</span>"
        return s + "</div>\n"
    }

    private func timeline(_ r: ReplayResult) -> String {
        let rows = r.events.compactMap { event -> String? in
            let t = String(format: "%.3f s", event.t.seconds)
            switch event {
            case .operation(let command):
                let status = command.currentStatus
                let kind = status.isAlert ? ("alert", "alert") : status == .valid ? ("alert", "ok") : ("status", "status")
                let hint = command.hintKey.text(in: .en)
                return row(t, kind.0, kind.1, "\(status.name) <span class=\"hint\">(\(status.rawValue))</span>", HTML.escape(hint))
            case .result(let result):
                let tone = result.success ? "ok" : result.code == .first ? "info" : "bad"
                let name = "retCode \(result.retCode)" + (result.message.isEmpty ? " success" : " " + HTML.escape(result.message))
                let images = result.images.map(\.kind.rawValue)
                var detail = images.isEmpty ? "no images" : "images: " + HTML.escape(images.joined(separator: ", "))
                if let liveness = result.liveness {
                    detail += " · liveness " + HTML.escape(liveness.verdict.rawValue) + String(format: " %.3f", liveness.spoofScore)
                }
                return row(t, "result", tone, name, detail)
            case .frame:
                return nil
            }
        }
        guard !rows.isEmpty else { return "<p class=\"empty\">No events.</p>\n" }
        return "<table class=\"events\">\n<tr><th class=\"num\">Time</th><th>Kind</th><th>Event</th><th>Hint / detail</th></tr>\n"
            + rows.joined() + "</table>\n"
    }

    private func row(_ t: String, _ kind: String, _ tone: String, _ name: String, _ detail: String) -> String {
        "<tr><td class=\"t num\">\(t)</td><td class=\"kind\"><span class=\"kind \(tone)\">\(kind)</span></td>"
            + "<td class=\"name\">\(name)</td><td class=\"hint\">\(detail)</td></tr>\n"
    }

    private func stills(_ r: ReplayResult) -> String {
        let images = r.stills
        guard !images.isEmpty else { return "<p class=\"empty\">No stills.</p>\n" }
        let result = r.events.compactMap { if case .result(let x) = $0, !x.images.isEmpty { x } else { nil } }.last
        let from = result.map { " · retCode \($0.retCode) at \(String(format: "%.2f", $0.t.seconds)) s" } ?? ""
        var s = "<div class=\"stills\">"
        for image in images {
            let caption = (image.kind == .card ? "card still" : "head") + from
            s += "<figure><img alt=\"\(HTML.escape(caption))\" src=\"data:image/jpeg;base64,\(image.data.base64EncodedString())\">"
            s += "<figcaption>\(HTML.escape(caption))</figcaption></figure>"
        }
        return s + "</div>\n"
    }

    // MARK: Texts shared by the overview and the sections

    private func anchor(_ index: Int) -> String { "file-\(index + 1)" }

    private func name(_ r: ReplayResult) -> String { (r.file as NSString).lastPathComponent }

    private func badge(_ r: ReplayResult) -> String {
        if r.sourceError != nil { return "<span class=\"badge fail\">ERROR</span>" }
        guard let verdict = r.verdict else { return "<span class=\"badge none\">NO EXPECTATION</span>" }
        return verdict.matches ? "<span class=\"badge pass\">PASS</span>" : "<span class=\"badge fail\">FAIL</span>"
    }

    private func expectedText(_ r: ReplayResult) -> String {
        r.expectation.map { SummaryTable.code($0.retCode) } ?? "–"
    }

    private func gotText(_ r: ReplayResult) -> String {
        r.observed.finalCode.map(SummaryTable.code) ?? (r.sourceError == nil ? "no final result" : "error")
    }

    private func livenessText(_ r: ReplayResult) -> String {
        guard let report = r.liveness else { return "–" }
        return report.verdict.rawValue + String(format: " %.3f", report.spoofScore)
    }

    private func differenceText(_ r: ReplayResult) -> String {
        if let error = r.sourceError { return error }
        guard let verdict = r.verdict else { return "not checked" }
        return verdict.difference ?? "none — matches"
    }
}
