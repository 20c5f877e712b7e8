import Foundation
import HKIDMedia

/// `--report report.html`: one self-contained page for a batch replay.
/// (Placeholder: replaced by the full report with plots and thumbnails.)
struct ReportWriter {
    let results: [ReplayResult]

    func write(to path: String) throws {
        let rows = results.map { "<tr><td>\($0.file)</td><td>\($0.passed ? "ok" : "FAIL")</td></tr>" }.joined()
        try DurableFile.write(Data("<!doctype html><table>\(rows)</table>".utf8), to: path)
    }
}
