import Foundation
import Synchronization

/// Batch progress on stderr: a bar redrawn in place on a terminal, one plain
/// line per finished file otherwise (CI logs, pipes).
final class Progress: Sendable {
    private let total: Int
    private let done = Mutex(0)
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(total: Int) {
        self.total = total
        if isTerminal { draw(0) }
    }

    func finished(_ result: ReplayResult) {
        let count = done.withLock { done in
            done += 1
            return done
        }
        if isTerminal {
            draw(count)
        } else {
            let mark = result.passed ? "ok  " : "FAIL"
            Output.error(String(format: "%@ %@ (%.2f s) [%d/%d]", mark, (result.file as NSString).lastPathComponent,
                                result.seconds, count, total))
        }
    }

    func close() {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func draw(_ count: Int) {
        let width = 30
        let filled = total == 0 ? width : count * width / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\u{1B}[K\(bar) \(count)/\(total) files".utf8))
    }
}
