import Foundation
import Testing

/// Every bad input ends within seconds with one line on stderr that names
/// the input and the reason, and a non-zero exit status.
@Suite("bad input")
struct BadInputTests {
    @Test("a missing file")
    func missing() throws {
        let run = try CLI.run(["replay", "/nonexistent/clip.mp4", "--json"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: /nonexistent/clip.mp4: no such file")
        #expect(run.stdout.isEmpty)
    }

    @Test("a directory instead of a file")
    func directory() throws {
        let folder = try CLI.temporaryDirectory()
        let run = try CLI.run(["replay", folder])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: \(folder): is a directory, not a video file")
    }

    @Test("a text file named .mp4")
    func notVideo() throws {
        let path = try CLI.temporaryDirectory() + "/notes.mp4"
        try Data(String(repeating: "meeting notes\n", count: 300).utf8).write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 2)
        #expect(run.stderrLine.hasPrefix("hkid-liveness: \(path): "))
        // The session had started: BEGIN, then the end line, and nothing else.
        #expect(run.jsonLines.map { $0["type"] as? String } == ["operation", "end"])
    }

    @Test("a truncated MP4 still yields the events of the frames before the cut")
    func truncated() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLI.sample("genuine-2018.mp4")))
        let path = try CLI.temporaryDirectory() + "/cut.mp4"
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 2)
        #expect(run.stderrLine.hasPrefix("hkid-liveness: \(path): the file is truncated: decoding stopped at "))
        let statuses = run.jsonLines.compactMap { $0["status"] as? String }
        #expect(statuses.starts(with: ["BEGIN", "ORTH"]), "events before the cut must still be printed: \(statuses)")
        #expect(run.jsonLines.last?["type"] as? String == "end")
    }

    @Test("an unknown element in --pipeline")
    func unknownElement() throws {
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--pipeline", "filesrc name=src ! nosuchdecoder ! appsink name=sink"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: --pipeline: no element \"nosuchdecoder\"")
    }

    @Test("a missing --pipeline-file")
    func missingPipelineFile() throws {
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--pipeline-file", "/nonexistent.pipeline"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: /nonexistent.pipeline: no such file")
    }

    @Test("malformed options are refused before any work, with exit 64", arguments: [
        (["--overtime", "0"], "--overtime must be a positive number of seconds, not 0.0"),
        (["--overtime=-5"], "--overtime must be a positive number of seconds, not -5.0"),
        (["--overtime", "soon"], "The value 'soon' is invalid for '--overtime <overtime>'"),
        (["--card", "2020"], "The value '2020' is invalid for '--card <card>'. Please provide one of '2018' and '2003'."),
        (["--lang", "fr"], "The value 'fr' is invalid for '--lang <lang>'. Please provide one of 'zh-HK', 'en' or 'zh-CN'."),
        (["--jobs", "0", "--expect"], "--jobs must be at least 1"),
        (["--annotate", "/tmp/a.mp4", "--expect"], "--annotate takes exactly one input file, without --expect or --report"),
    ])
    func malformedOptions(arguments: [String], message: String) throws {
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4")] + arguments)
        #expect(run.status == 64)
        #expect(run.stderrLine == "hkid-liveness: " + message)
        #expect(run.stdout.isEmpty)
    }

    @Test("an unwritable --images folder is refused up front")
    func unwritableImages() throws {
        let file = try CLI.temporaryDirectory() + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--images", file])
        #expect(run.status == 64)
        #expect(run.stderrLine == "hkid-liveness: --images \(file): is a file, not a folder")
    }
}

@Suite("start-up")
struct StartupTests {
    @Test("--version names the version and exits 0")
    func version() throws {
        let run = try CLI.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout == "hkid-liveness 1.0.0\n")
    }
}
