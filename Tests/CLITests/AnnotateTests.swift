import Foundation
import Testing

@Suite("--annotate")
struct AnnotateTests {
    /// Decodes a video with GStreamer and counts the frames that reach the sink.
    static func decodedFrames(_ path: String) throws -> Int {
        let gst = try #require(["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }, "gst-launch-1.0 is not installed (scripts/install-deps.sh)")
        let run = try CLI.run(tool: gst, ["-v", "filesrc", "location=\(path)", "!", "decodebin", "!",
                                        "fakesink", "silent=false", "sync=false"])
        #expect(run.status == 0, "gst-launch-1.0 could not decode \(path): \(run.stderr)")
        // With silent=false and -v, fakesink reports every buffer as a "chain" message.
        return run.stdout.split(separator: "\n").filter { $0.contains("last-message = chain") }.count
    }

    @Test("writes a video that decodes, frame for frame")
    func annotates() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = CLI.sample("genuine-2018.mp4")
        let output = folder + "/annotated.mp4"

        let run = try CLI.run(["replay", input, "--annotate", output, "--json"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        #expect(size > 10_000, "annotated video is only \(size) bytes")
        // The event stream is unchanged by annotating.
        #expect(run.stdout.contains("\"retCode\":0"))

        // Every input frame is in the output, including those after the session ended.
        let frames = try Self.decodedFrames(input)
        #expect(frames > 100)
        #expect(try Self.decodedFrames(output) == frames)

        // And the detector itself can read it back.
        let again = try CLI.run(["replay", output, "--json"])
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(again.stdout.split(separator: "\n").last?.contains("\"type\":\"end\"") == true)
    }

    @Test("an unwritable --annotate path exits 64 with one error line naming it, and creates nothing")
    func unwritable() throws {
        let path = "/nonexistent/x.mp4"
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--annotate", path])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        // ArgumentParser follows a validation error with its usage hint; the
        // error itself is the first line, and the only one naming the path.
        #expect(run.stderr == "hkid-liveness: --annotate \(path): the folder /nonexistent does not exist\n")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent"))
    }
}
