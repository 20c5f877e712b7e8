import Foundation

/// Text escaping and the style sheet of the `--report` page.
enum HTML {
    /// Escapes text for element content and for double- or single-quoted
    /// attribute values alike.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // Control characters other than tab and newline are not allowed in HTML text.
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number for SVG coordinates: one decimal, no locale.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}

/// Colours carry meaning on the page: green passes, red fails, amber warns;
/// blue is yaw, purple is pitch, everywhere.
enum ReportStyle {
    static let yaw = "#1d6fd8"
    static let pitch = "#9b3fc6"
    static let pass = "#1a7f37"
    static let fail = "#cf222e"
    static let warn = "#b7791f"
    static let neutral = "#57606a"
    static let grid = "#d8dee4"
    static let band = "#e6f4ea"

    static let css = """
        :root {
          --ink: #1f2328; --muted: #57606a; --line: #d8dee4; --paper: #ffffff; --page: #f4f6f8;
          --pass: \(pass); --pass-bg: #dafbe1; --fail: \(fail); --fail-bg: #ffebe9;
          --warn: \(warn); --warn-bg: #fff4d6; --yaw: \(yaw); --pitch: \(pitch);
        }
        * { box-sizing: border-box; }
        html { background: var(--page); }
        body { margin: 0; color: var(--ink); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto,
               "Noto Sans", "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; }
        main { max-width: 1240px; margin: 0 auto; padding: 28px 32px 48px; }
        h1 { font-size: 24px; margin: 0 0 2px; letter-spacing: -0.01em; }
        h2 { font-size: 18px; margin: 0; word-break: break-all; }
        h3 { font-size: 12px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); }
        .sub { color: var(--muted); margin: 0 0 20px; }
        .num, td.num { font-variant-numeric: tabular-nums; }
        code, .mono { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }

        .totals { display: grid; grid-template-columns: repeat(6, minmax(0, 1fr)); gap: 12px; margin-bottom: 20px; }
        .stat { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
        .stat .label { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
        .stat .value { font-size: 26px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; }
        .stat.good .value { color: var(--pass); } .stat.bad .value { color: var(--fail); }

        table { border-collapse: collapse; width: 100%; }
        th { text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase;
             letter-spacing: 0.04em; border-bottom: 1px solid var(--line); padding: 6px 10px; }
        td { border-bottom: 1px solid #eef1f4; padding: 6px 10px; vertical-align: top; }
        tr:last-child td { border-bottom: none; }
        .card { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; }
        .overview { padding: 6px 8px; margin-bottom: 28px; }
        .overview a { color: var(--ink); text-decoration: none; border-bottom: 1px dotted var(--muted); }
        .overview td.diff { color: var(--muted); }
        .overview tr.failed td.diff { color: var(--fail); }

        .badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 700;
                 letter-spacing: 0.04em; vertical-align: 2px; white-space: nowrap; }
        .badge.pass { color: var(--pass); background: var(--pass-bg); border: 1px solid #a6e3b5; }
        .badge.fail { color: var(--fail); background: var(--fail-bg); border: 1px solid #ffc1bc; }
        .badge.none { color: var(--muted); background: #eef1f4; border: 1px solid var(--line); }

        section.file { padding: 20px 22px 22px; margin-bottom: 24px; border-left: 5px solid var(--line); }
        section.file.passed { border-left-color: var(--pass); }
        section.file.failed { border-left-color: var(--fail); }
        .file-head { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
        .file-head .path { color: var(--muted); font-size: 12.5px; word-break: break-all; }
        .desc { color: var(--muted); margin: 4px 0 14px; }

        .facts { display: grid; grid-template-columns: 1fr 1fr 2fr; gap: 12px; margin-bottom: 16px; }
        .fact { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
        .fact .label { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
        .fact .value { font-size: 16px; font-weight: 600; }
        .fact.bad { border-color: #ffc1bc; background: var(--fail-bg); }
        .fact.bad .value { color: var(--fail); }
        .fact.good .value { color: var(--pass); }
        .metrics { display: flex; flex-wrap: wrap; gap: 6px 22px; color: var(--muted); font-size: 13px; margin: -4px 0 14px; }
        .metrics b { color: var(--ink); font-weight: 600; font-variant-numeric: tabular-nums; }

        .plot { margin: 0 0 6px; }
        .plot svg { display: block; width: 100%; height: auto; }
        .legend { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 12.5px; color: var(--muted); margin: 0 0 6px; }
        .legend span { display: inline-flex; align-items: center; gap: 6px; }
        .legend i { display: inline-block; width: 22px; height: 0; border-top: 2.5px solid; }
        .legend i.dash { border-top: 1.5px dashed; }
        .legend i.box { height: 10px; border: 1px solid #b7dfc3; background: \(band); }
        .legend i.miss { height: 10px; border: none; background: repeating-linear-gradient(135deg, #e9ecef 0 3px, #f8f9fa 3px 6px); }

        .columns { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 20px; margin-top: 14px; }
        .events td { padding: 3px 10px; vertical-align: baseline; }
        .events td.t { width: 72px; text-align: right; color: var(--muted); }
        .events td.kind { width: 80px; }
        .kind { font-size: 11px; font-weight: 700; letter-spacing: 0.05em; text-transform: uppercase; }
        .kind.status { color: var(--neutral, #57606a); }
        .kind.alert { color: var(--warn); }
        .kind.ok { color: var(--pass); }
        .kind.bad { color: var(--fail); }
        .kind.info { color: var(--yaw); }
        .events .name { font-weight: 600; white-space: nowrap; }
        .events .hint { color: var(--muted); }
        .empty { color: var(--muted); font-style: italic; }
        .error { color: var(--fail); background: var(--fail-bg); border: 1px solid #ffc1bc; border-radius: 8px;
                 padding: 8px 12px; margin-bottom: 14px; word-break: break-word; }

        .stills { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
        .stills figure { margin: 0; }
        .stills img { display: block; height: 150px; width: auto; max-width: 100%; border: 1px solid var(--line);
                      border-radius: 6px; background: #eef1f4; }
        .stills figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
        footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 32px; }
        @media print { html { background: #fff; } section.file { break-inside: avoid; } }
        """
}
