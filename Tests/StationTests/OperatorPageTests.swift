import Foundation
import Synchronization
import Testing

/// The operator page in a real headless Chromium against a running daemon:
/// the page follows the active session by itself, shows the hint in the
/// session's language and draws the tracked quad, then shows the result with
/// the still and head images. A screenshot of each moment is kept for people
/// in `.build/operator-page/` — the assertions read the DOM after the page's
/// own JavaScript has run.
@Suite(.serialized) struct OperatorPageTests {
    /// Where the screenshots stay for people to look at.
    static func screenshotFolder() -> String {
        let folder = StationProcess.repository.appendingPathComponent(".build/operator-page").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Loads the page, lets its scripts run for `milliseconds` of real time,
    /// and returns the DOM; also writes a screenshot.
    static func render(_ url: String, screenshot: String, milliseconds: Int = 3000, size: String = "1280,900") throws -> String {
        let browser = try #require(chromium, "chromium is not installed: `scripts/install-deps.sh browser` (make test does it)")
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=\(size)",
                     // Real time, not --virtual-time-budget: virtual time
                     // stands still while the event stream is open, which
                     // would hold the dump until the session ends.
                     "--timeout=\(milliseconds)"]
        let dom = try run(browser, flags + ["--dump-dom", url])
        _ = try run(browser, flags + ["--screenshot=\(screenshot)", url])
        return dom
    }

    /// Loads the page with windows of `windows` ms in turn until `ready`
    /// holds of its DOM (a loaded machine may need longer for the page's
    /// fetches and the session's events), and returns the last DOM either
    /// way, for the caller's expectations to judge.
    static func render(_ url: String, screenshot: String, size: String = "1280,900",
                       windows: [Int] = [3000, 8000, 15000], until ready: (String) -> Bool) throws -> String {
        var dom = ""
        for window in windows {
            dom = try render(url, screenshot: screenshot, milliseconds: window, size: size)
            if ready(dom) { break }
        }
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

    /// The text content of the element with this id, from a DOM dump: up to
    /// the close of its own tag, with inner tags (the id's span) dropped.
    static func element(_ id: String, in dom: String) -> String? {
        guard let start = dom.range(of: "id=\"\(id)\"") else { return nil }
        let tagStart = dom[..<start.lowerBound].lastIndex(of: "<").map { dom.index(after: $0) } ?? start.lowerBound
        let tag = dom[tagStart...].prefix { $0.isLetter || $0.isNumber }
        guard let open = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = dom[dom.index(after: open)...]
        guard let close = rest.range(of: "</\(tag)>") else { return nil }
        return String(rest[..<close.lowerBound]).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
            .replacingOccurrences(of: "&nbsp;", with: "\u{a0}")
    }

    /// The class attribute of the step `n` list item.
    static func stepClass(_ n: Int, in dom: String) -> String? {
        guard let range = dom.range(of: #"<li data-step="\#(n)"( class="[a-z]*")?"#, options: .regularExpression) else { return nil }
        let text = dom[range]
        guard let classStart = text.range(of: #"class=""#) else { return "" }
        return String(text[classStart.upperBound...].dropLast())
    }

    @Test func pageFollowsTheSessionAndShowsTheResult() async throws {
        // The camera is a FIFO the test feeds with the slow sample's decoded
        // frames: its first frame (the card held still, front-on) until the
        // test has looked at the page, then the rest of the video at real
        // time. The session waits at ORTH for as long as the test needs, so
        // a loaded machine cannot let it finish before the page is seen.
        let folder = Self.screenshotFolder()
        let feeder = try HeldFrameFeeder(sample: StationProcess.sample("slow-occluded-2018.mp4"),
                                         fifo: StationProcess.temporaryDirectory() + "/camera.fifo", width: 1280, height: 720)
        let station = StationProcess(arguments: ["--source", "pipeline", "--pipeline",
                                                 "filesrc location=\(feeder.fifo) ! rawvideoparse width=1280 height=720 "
                                                 + "format=i420 framerate=30/1 ! identity sync=true"])
        defer {
            // The station first: its filesrc must not sit in a read on a FIFO
            // nobody writes while it shuts down.
            station.stop()
            feeder.stop()
        }
        try station.start()
        let page = "http://127.0.0.1:\(station.port)/"

        // Overtime far beyond any wait here, so holding the card cannot end the session.
        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"zh-HK","overtimeSeconds":600}"#)
        let id = try #require(started.json["id"] as? String)
        // Held front-on, the session asks for the first rotation until the
        // feeder lets go; a slow browser only needs a longer window to show
        // it. The quad fades 600 ms after the last frame event, so a loaded
        // machine may also need another try to catch it drawn.
        let rotateRight = "請緩慢向右翻轉"
        func quadDrawn(_ dom: String) -> Bool { dom.range(of: #"id="quad" points="[0-9]"#, options: .regularExpression) != nil }
        let during = try Self.render(page, screenshot: folder + "/during.png", windows: [3000, 5000, 8000, 15000]) {
            Self.element("hint", in: $0) == rotateRight && quadDrawn($0)
        }
        #expect(Self.element("status", in: during) == "檢測 \(id) · 2018 · zh-HK", "the page is not following the session")
        #expect(Self.element("hint", in: during) == rotateRight, "hint during the session: \(Self.element("hint", in: during) ?? "none")")
        #expect(quadDrawn(during), "no tracked quad drawn over the preview")

        feeder.release()
        let ended = try await station.waitUntilEnded(id, timeout: .seconds(60))
        #expect(ended["status"] as? String == "completed")
        // The finished page needs the session's result and both images; a
        // loaded machine may need a longer window for those fetches.
        let after = try Self.render(page, screenshot: folder + "/after.png") {
            Self.element("hint", in: $0) == "識別完成" && $0.contains(#"alt="head""#)
        }
        #expect(Self.element("hint", in: after) == "識別完成")
        #expect(Self.element("resultTitle", in: after)?.hasPrefix("✔") == true)
        #expect(after.contains(#"alt="card""#) && after.contains(#"alt="head""#), "the result shows no still and head image")
        for name in ["during.png", "after.png"] {
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "\(name) is not a real screenshot")
        }
    }

    /// A zh-HK session cancelled after its first still, looked at on a
    /// counter screen and a phone: the status lines speak the page's
    /// language, the steps it reached stay marked (before: all grey), the
    /// step labels and the frame count never break inside a word. The
    /// screenshots are for people to look at (`.build/operator-page/`).
    @Test func aCancelledSessionKeepsItsStepsInThePagesLanguage() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("still-card-2018.mp4"),
                                                 "--restart-file-on-session"])
        try station.start()
        defer { station.stop() }
        let id = try #require(try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"zh-HK"}"#)
            .json["id"] as? String)
        try await station.waitUntilORTH(id)
        #expect(try await station.post("/v1/sessions/\(id)/cancel").status == 200)
        _ = try await station.waitUntilEnded(id)

        let folder = Self.screenshotFolder()
        for (size, name) in [("1280,900", "cancelled-1280x900.png"), ("390,844", "cancelled-390x844.png")] {
            let expected = "檢測 \(id) 已結束：已取消"
            let dom = try Self.render("http://127.0.0.1:\(station.port)/", screenshot: folder + "/" + name, size: size) {
                Self.element("status", in: $0) == expected
            }
            #expect(Self.element("status", in: dom) == expected, "\(size)")
            #expect(Self.element("cardLabel", in: dom) == "證件")
            let meta = Self.element("resultMeta", in: dom) ?? ""
            let parts = meta.split(separator: "·").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(parts.count == 4 && parts[0] == "檢測 \(id)" && parts[1] == "已取消" && parts[3] == "操作員已取消", "\(meta)")
            #expect(meta.range(of: #"已分析\s\d+\s幀，略過\s\d+\s幀"#, options: .regularExpression) != nil, "\(meta)")
            #expect(Self.stepClass(1, in: dom) == "done", "\(size): step 1 was passed")
            #expect(Self.stepClass(2, in: dom) == "stopped", "\(size): the session stopped at step 2")
            #expect(Self.stepClass(3, in: dom) == "")
            // Each part of a label is its own unbreakable span.
            #expect(dom.contains(#"<span>第一次翻轉</span><span>向右</span>"#))
            #expect(dom.contains(#"<span class="id">\#(id)</span>"#), "only the id may break anywhere")
            let png = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "\(name) is not a real screenshot")
        }
    }

    /// What the page's own layout check (`?layout-check`) found overflowing
    /// its box, from a DOM dump; nil when the check did not run.
    static func overflow(in dom: String) -> String? {
        guard let range = dom.range(of: #"data-overflow="[^"]*""#, options: .regularExpression) else { return nil }
        return String(dom[range].dropFirst("data-overflow=\"".count).dropLast())
    }

    /// A counter screen (1280x900) and a phone (390x844), in English and in
    /// Chinese, during a session and after it: no step, status line or
    /// result line is wider than its box, and the page never scrolls
    /// sideways (before: the English step row cut step 4 off at 1280x900).
    /// Screenshots of each stay in `.build/operator-page/`.
    @Test func nothingOverflowsOnACounterScreenOrAPhoneInEitherLanguage() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("still-card-2018.mp4"),
                                                 "--restart-file-on-session"])
        try station.start()
        defer { station.stop() }
        let folder = Self.screenshotFolder()
        let page = "http://127.0.0.1:\(station.port)/?layout-check"
        for language in ["en", "zh-HK"] {
            let id = try #require(try await station.post("/v1/sessions", json: #"{"language":"\#(language)","overtimeSeconds":600}"#)
                .json["id"] as? String)
            try await station.waitUntilORTH(id)
            for moment in ["during", "after"] {
                if moment == "after" {
                    #expect(try await station.post("/v1/sessions/\(id)/cancel").status == 200)
                    _ = try await station.waitUntilEnded(id)
                }
                for (size, name) in [("1280,900", "1280x900"), ("390,844", "390x844")] {
                    let dom = try Self.render(page, screenshot: "\(folder)/\(moment)-\(language)-\(name).png", size: size,
                                              windows: [4000, 8000, 15000]) {
                        (Self.element("status", in: $0) ?? "").contains(id) && Self.overflow(in: $0) != nil
                    }
                    #expect(Self.overflow(in: dom) == "", "\(language) \(moment) at \(name): overflowing \(Self.overflow(in: dom) ?? "(the check did not run)")")
                    let status = Self.element("status", in: dom) ?? ""
                    #expect(status.contains(id), "\(language) \(moment) at \(name): the page is not on the session: \(status)")
                    if language == "en" {
                        #expect(!status.contains("："), "\(moment) at \(name): a full-width colon on the English page: \(status)")
                        #expect(dom.contains(#"<option value="2018">2018 smart ID card (new)</option>"#)
                                || dom.contains(#"<option value="2018" selected="">2018 smart ID card (new)</option>"#),
                                "\(moment) at \(name): the card-type menu is not in English")
                        #expect(dom.contains(#"<option value="en" selected="">English</option>"#),
                                "\(moment) at \(name): the language menu does not show English")
                    }
                }
            }
        }
    }
}

/// A camera the test holds: a FIFO fed with a recording's decoded I420
/// frames (gst-launch decodes into a pipe, one frame read at a time). Until
/// `release` it repeats the first frame; then it plays the rest, paced by
/// the reader (the station's `identity sync=true`), and repeats the last
/// frame until `stop`. The FIFO is opened read-write so neither side blocks
/// in open and the station never sees EOF.
final class HeldFrameFeeder: @unchecked Sendable {
    let fifo: String
    private let frameBytes: Int
    private let decoder = Process()
    private let decoded = Pipe()
    private let descriptor: Int32
    private let state = Mutex((released: false, stopped: false))
    private let finished = DispatchSemaphore(value: 0)

    init(sample: String, fifo: String, width: Int, height: Int) throws {
        self.fifo = fifo
        frameBytes = width * height * 3 / 2
        guard mkfifo(fifo, 0o600) == 0 else { throw StationTestError("mkfifo \(fifo): errno \(errno)") }
        descriptor = open(fifo, O_RDWR | O_NONBLOCK)
        guard descriptor >= 0 else { throw StationTestError("open \(fifo): errno \(errno)") }
        decoder.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        decoder.arguments = ["-q", "filesrc", "location=\(sample)", "!", "decodebin", "!", "videoconvert", "!",
                             "video/x-raw,format=I420,width=\(width),height=\(height)", "!", "fdsink", "fd=1"]
        decoder.standardOutput = decoded
        decoder.standardError = FileHandle.nullDevice
        try decoder.run()
        guard let first = nextFrame() else { throw StationTestError("\(sample) decoded to no \(width)x\(height) frame") }
        Thread { [self] in
            var frame = first
            while !state.withLock({ $0.stopped }) {
                if state.withLock({ $0.released }), let next = nextFrame() { frame = next }
                write(frame)
            }
            finished.signal()
        }.start()
    }

    /// Lets the rest of the recording play.
    func release() { state.withLock { $0.released = true } }

    func stop() {
        guard !state.withLock({ let was = $0.stopped; $0.stopped = true; return was }) else { return }
        finished.wait()
        // SIGKILL, not terminate(): a child Foundation spawns inherits the
        // spawning thread's blocked signals, and gst-launch, sitting in a
        // write to the pipe nobody reads any more, then never sees SIGTERM
        // (a fresh-clone make test hung here with SIGTERM pending).
        if decoder.isRunning { kill(decoder.processIdentifier, SIGKILL) }
        decoder.waitUntilExit()
        close(descriptor)
        unlink(fifo)
    }

    private func nextFrame() -> Data? {
        var frame = Data()
        while frame.count < frameBytes {
            guard let chunk = try? decoded.fileHandleForReading.read(upToCount: frameBytes - frame.count), !chunk.isEmpty else {
                return nil
            }
            frame.append(chunk)
        }
        return frame
    }

    /// Writes the whole frame as the reader makes room, giving up when stopped.
    private func write(_ frame: Data) {
        frame.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 { offset += written; continue }
                guard errno == EAGAIN || errno == EINTR else { return }
                if state.withLock({ $0.stopped }) { return }
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 50)
            }
        }
    }
}
