import Foundation
import Testing

@Suite("--report")
struct ReportTests {
    /// A file name that breaks HTML unless escaped.
    static let hostileStem = "x<b>&\"y"

    @Test("writes one self-contained page with a section, a plot and stills per file, names escaped")
    func report() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A second sample under a hostile name, with its expectation beside it.
        let hostile = folder + "/\(Self.hostileStem).mp4"
        try FileManager.default.copyItem(atPath: CLI.sample("lost-after-first-2003.mp4"), toPath: hostile)
        try FileManager.default.copyItem(atPath: CLI.sample("lost-after-first-2003.expect.json"),
                                         toPath: folder + "/\(Self.hostileStem).expect.json")
        let report = folder + "/report.html"

        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), hostile, "--expect", "--jobs", "2",
                                           "--report", report])
        // Both files match their expectations (the copy keeps its own).
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let html = try String(contentsOfFile: report, encoding: .utf8)

        // Self-contained: nothing fetched from anywhere.
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(!html.contains("src=\"http"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("<script src"))
        #expect(!html.contains("url(http"))
        #expect(!html.contains("@import"))

        // One section per file, each with its own SVG plot.
        let sections = html.components(separatedBy: "<section").dropFirst()
        try #require(sections.count == 2, "expected 2 sections, found \(sections.count)")
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
        for section in sections {
            #expect(section.contains("<svg"), "a section without a plot")
            #expect(section.contains("class=\"badge pass\">PASS") || section.contains("class=\"badge fail\">FAIL"))
        }
        let genuine = try #require(sections.first { $0.contains("genuine-2018.mp4") })
        let hostileSection = try #require(sections.first { !$0.contains("genuine-2018.mp4") })

        // The success sample carries the card and head stills as JPEG data URIs.
        let marker = "data:image/jpeg;base64,"
        let stills = genuine.components(separatedBy: marker).dropFirst()
        #expect(stills.count == 2, "success carries a card still and a head crop")
        for still in stills {
            let base64 = String(still.prefix { $0 != "\"" })
            let jpeg = try #require(Data(base64Encoded: base64), "a still is not valid base64")
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]), "a still is not a JPEG")
        }
        // Result 1's still for the lost session.
        #expect(hostileSection.contains(marker))

        // The hostile name appears only escaped.
        #expect(!html.contains(Self.hostileStem))
        #expect(!html.contains("<b>&"))
        #expect(html.contains("x&lt;b&gt;&amp;&quot;y.mp4"))
        #expect(hostileSection.contains("<h2>x&lt;b&gt;&amp;&quot;y.mp4</h2>"))
    }

    @Test("an unwritable --report path is refused before any work")
    func unwritable() throws {
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--report", "/nonexistent/r.html"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--report /nonexistent/r.html"), "stderr: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/r.html"))
    }
}
