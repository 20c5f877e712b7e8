import Foundation
import Testing

/// The operator page in a real headless Chromium against a running daemon:
/// the page follows the active session by itself, shows the hint in the
/// session's language and draws the tracked quad, then shows the result with
/// the still and head images. A screenshot of each moment is kept for people
/// (its path is printed) — the assertions read the DOM after the page's own
/// JavaScript has run.
@Suite(.serialized) struct OperatorPageTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Loads the page, lets its scripts run for `milliseconds` of real time,
    /// and returns the DOM; also writes a screenshot.
    static func render(_ url: String, screenshot: String, milliseconds: Int = 3000) throws -> String {
        let browser = try #require(chromium, "chromium is not installed: `scripts/install-deps.sh browser` (make test does it)")
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900",
                     // Real time, not --virtual-time-budget: virtual time
                     // stands still while the event stream is open, which
                     // would hold the dump until the session ends.
                     "--timeout=\(milliseconds)"]
        let dom = try run(browser, flags + ["--dump-dom", url])
        _ = try run(browser, flags + ["--screenshot=\(screenshot)", url])
        return dom
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The text content of the element with this id, from a DOM dump.
    static func element(_ id: String, in dom: String) -> String? {
        guard let start = dom.range(of: "id=\"\(id)\"") else { return nil }
        guard let open = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = dom[dom.index(after: open)...]
        guard let close = rest.range(of: "</") else { return nil }
        return String(rest[..<close.lowerBound])
    }

    @Test func pageFollowsTheSessionAndShowsTheResult() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("slow-occluded-2018.mp4"),
                                                 "--restart-file-on-session"])
        try station.start()
        defer { station.stop() }
        let folder = StationProcess.temporaryDirectory()
        let page = "http://127.0.0.1:\(station.port)/"

        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"zh-HK"}"#)
        let id = try #require(started.json["id"] as? String)
        // The slow sample holds still for 2 s and turns right until about
        // 6 s: the page is loaded while it asks for the first rotation.
        try await Task.sleep(for: .milliseconds(1000))
        // A loaded machine (CI runs the suites in parallel) can take longer
        // than one window to start the browser and replay the event history:
        // look again, longer, while the session still asks for the turn.
        let expectedHints = ["請緩慢向右翻轉", "向右翻識別成功，請把證件復位", "請緩慢向左翻轉"]
        var during = ""
        for window in [3000, 5000, 8000] {
            during = try Self.render(page, screenshot: folder + "/during.png", milliseconds: window)
            if expectedHints.contains(Self.element("hint", in: during) ?? "") { break }
        }
        #expect(Self.element("status", in: during) == "Session \(id) · 2018 · zh-HK", "the page is not following the session")
        let hint = Self.element("hint", in: during) ?? ""
        #expect(expectedHints.contains(hint), "hint during the session: \(hint)")
        let quad = during.range(of: #"id="quad" points="[0-9]"#, options: .regularExpression)
        #expect(quad != nil, "no tracked quad drawn over the preview")

        let ended = try await station.waitUntilEnded(id, timeout: .seconds(60))
        #expect(ended["status"] as? String == "completed")
        let after = try Self.render(page, screenshot: folder + "/after.png")
        #expect(Self.element("hint", in: after) == "識別完成")
        #expect(Self.element("resultTitle", in: after)?.hasPrefix("✔") == true)
        #expect(after.contains(#"alt="card""#) && after.contains(#"alt="head""#), "the result shows no still and head image")
        for name in ["during.png", "after.png"] {
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "\(name) is not a real screenshot")
        }
        print("operator page screenshots: \(folder)/during.png, \(folder)/after.png")
    }
}
