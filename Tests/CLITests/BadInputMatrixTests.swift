import Foundation
import Testing

/// The bad-input matrix (issue 7): inputs a counter or a batch of thousands
/// of recordings will meet. A broken input ends quickly with exit 2 and one
/// line on stderr naming the file and the reason; a bad command line with
/// exit 64 and one line; an odd but valid video (huge, 4:4:4, 10-bit,
/// variable frame rate, rotated) is analysed like any other. No case leaves
/// a half-written file behind.
///
/// Fixtures are made here with gst-launch-1.0 into temporary folders, with
/// tiny frame counts so that the whole matrix stays well under a minute.
@Suite("bad-input matrix")
struct BadInputMatrixTests {
    // MARK: Helpers

    /// Runs gst-launch-1.0 with `pipeline` (a gst-launch description, split
    /// on spaces; no quoting needed in the fixtures below) and fails the test
    /// when it does not write `output`.
    static func gst(_ pipeline: String, output: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gst-launch-1.0", "-q"] + pipeline.split(separator: " ").map(String.init)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }  // SIGTERM may be blocked in the child
        process.waitUntilExit()
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber)?.intValue ?? 0
        #expect(process.terminationStatus == 0 && size > 0, "fixture not made: gst-launch-1.0 \(pipeline)")
    }

    /// Every file (recursively) in `folder`: what a run left behind.
    static func files(in folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
    }

    /// Width and height of the first video stream of `file`, from the caps
    /// that `gst-launch-1.0 -v` prints after decoding.
    static func videoSize(of file: String) throws -> (Int, Int)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gst-launch-1.0", "-v", "filesrc", "location=\(file)", "!", "qtdemux", "!", "fakesink"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let match = text.firstMatch(of: /width=\(int\)(\d+), height=\(int\)(\d+)/) else { return nil }
        return (Int(match.1)!, Int(match.2)!)
    }

    /// The `end` line's frame count; nil when there is none.
    static func endFrames(_ run: CLI.Run) -> Int? {
        run.jsonLines.last { $0["type"] as? String == "end" }?["frames"] as? Int
    }

    /// A small MP4 of the test pattern: `frames` frames of `caps`.
    static func testPattern(_ folder: String, _ name: String, caps: String, frames: Int = 10,
                            encoder: String = "x264enc") throws -> String {
        let path = "\(folder)/\(name)"
        try gst("videotestsrc num-buffers=\(frames) ! \(caps) ! \(encoder) ! mp4mux ! filesink location=\(path)", output: path)
        return path
    }

    // MARK: Files that are not videos

    @Test("an empty file")
    func emptyFile() throws {
        let path = try CLI.temporaryDirectory() + "/empty.mp4"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: \(path): is empty")
        #expect(run.stdout.isEmpty, "refused before the session started")
    }

    @Test("random bytes named .mp4")
    func randomBytes() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/random.mp4"
        // Deterministic noise (an LCG), so that the outcome cannot change
        // from run to run by typefinding some format in lucky bytes.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<200_000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["replay", path, "--json", "--images", folder + "/stills", "--annotate", folder + "/out.mp4"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: \(path): Could not determine type of stream.")
        #expect(run.jsonLines.map { $0["type"] as? String } == ["operation", "end"])
        #expect(Self.files(in: folder) == ["random.mp4", "stills"], "no output may be left: \(Self.files(in: folder))")
    }

    /// A file that decodebin takes for a subtitle stream exposes a text pad
    /// and nothing else; no stream flows that could post "not-linked". Before,
    /// the replay waited for the 10 s stall timeout.
    @Test("bytes GStreamer takes for subtitles: no video stream, at once")
    func subtitlesOnly() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/lyrics.mp4"
        try FileManager.default.copyItem(atPath: CLI.fixture("taken-for-subtitles.mp4"), toPath: path)
        let run = try CLI.run(["replay", path, "--json", "--annotate", folder + "/out.mp4"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: \(path): has no video stream")
        #expect(Self.endFrames(run) == 0)
        #expect(Self.files(in: folder) == ["lyrics.mp4"])
    }

    @Test("an audio-only MP4")
    func audioOnly() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/voice.mp4"
        try Self.gst("audiotestsrc num-buffers=50 ! audioconvert ! avenc_aac ! mp4mux ! filesink location=\(path)", output: path)
        let run = try CLI.run(["replay", path, "--json", "--annotate", folder + "/out.mp4"])
        #expect(run.status == 2)
        // Before: a "Delayed linking failed" warning line, then the error.
        #expect(run.stderrLine == "hkid-liveness: \(path): has no video stream")
        #expect(Self.endFrames(run) == 0)
        #expect(Self.files(in: folder) == ["voice.mp4"])
    }

    // MARK: Truncated recordings

    /// no-card plays to its end (the session does not end early), so every
    /// cut is reached. At 90 % it loses only 0.17 s of a static scene, within
    /// the duration check's slack; the MP4 box structure catches it.
    @Test("a truncated MP4 cut at 10, 50 and 90 %", arguments: [10, 50, 90])
    func truncated(percent: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLI.sample("no-card.mp4")))
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/cut\(percent).mp4"
        try data.prefix(data.count * percent / 100).write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["replay", path, "--json", "--annotate", folder + "/out.mp4"])
        #expect(run.status == 2)
        #expect(run.stderrLine.hasPrefix("hkid-liveness: \(path): the file is truncated: decoding stopped at "))
        #expect(run.jsonLines.first?["status"] as? String == "BEGIN")
        #expect(run.jsonLines.last?["type"] as? String == "end")
        #expect((Self.endFrames(run) ?? 0) > 0, "every cut keeps some frames before it")
        // The annotated video of what played is finished properly (it is a
        // complete, playable file), and no temporary file is left.
        #expect(Self.files(in: folder) == ["cut\(percent).mp4", "out.mp4"])
        #expect(try Self.videoSize(of: folder + "/out.mp4") != nil, "the annotated video must be playable")
    }

    @Test("an MP4 with its index at the end, cut before it: no frame at all")
    func truncatedBeforeAnyFrame() throws {
        let folder = try CLI.temporaryDirectory()
        // mp4mux without faststart writes the moov box last.
        let whole = try Self.testPattern(folder, "whole.mp4", caps: "video/x-raw,width=320,height=240,framerate=30/1", frames: 30)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let path = folder + "/cut.mp4"
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 2)
        #expect(run.stderrLine == "hkid-liveness: \(path): the file is truncated: no playable stream left before the cut")
        #expect(Self.endFrames(run) == 0)
    }

    // MARK: Odd frame sizes and formats

    /// No encoder installed takes 1x1 (x264, vp8, mpeg4 and jpeg all refuse),
    /// so the frame travels as raw I420 in Matroska.
    @Test("a 1x1 video")
    func onePixel() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/dot.mkv"
        try Self.gst("videotestsrc num-buffers=3 ! video/x-raw,width=1,height=1,framerate=30/1,format=I420 ! matroskamux ! filesink location=\(path)", output: path)
        let run = try CLI.run(["replay", path, "--json", "--images", folder + "/stills"])
        #expect(run.status == 2)
        // Before: exit 1 and "Error: hkcv_tracker_process failed: ..." without the file name.
        #expect(run.stderrLine == "hkid-liveness: \(path): frames of 1x1 pixels cannot be analysed (image size is zero, odd where it must be even, or too large)")
        #expect(run.jsonLines.last?["type"] as? String == "end")
        #expect(Self.files(in: folder + "/stills").isEmpty)
    }

    @Test("an 8000x8000 video is analysed")
    func huge() throws {
        let folder = try CLI.temporaryDirectory()
        let path = try Self.testPattern(folder, "huge.mp4", caps: "video/x-raw,width=8000,height=8000,framerate=30/1",
                                        frames: 1, encoder: "x264enc speed-preset=ultrafast")
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        #expect(Self.endFrames(run) == 1)
    }

    @Test("4:4:4 and 10-bit H.264 are converted and analysed", arguments: ["Y444", "I420_10LE"])
    func unusualPixelFormats(format: String) throws {
        let folder = try CLI.temporaryDirectory()
        let path = try Self.testPattern(folder, "\(format).mp4", caps: "video/x-raw,width=320,height=240,framerate=30/1,format=\(format)")
        let run = try CLI.run(["replay", path, "--json"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        #expect(Self.endFrames(run) == 10)
    }

    // MARK: Timing and orientation

    /// Frames dropped at random before the encoder leave timestamp gaps: the
    /// MP4 has a variable frame rate. Every frame is analysed, on its own
    /// timestamp.
    @Test("a variable frame rate MP4")
    func variableFrameRate() throws {
        let folder = try CLI.temporaryDirectory()
        let path = folder + "/vfr.mp4"
        try Self.gst("videotestsrc num-buffers=90 ! video/x-raw,width=320,height=240,framerate=30/1 ! identity drop-probability=0.3 ! x264enc ! mp4mux ! filesink location=\(path)", output: path)
        let run = try CLI.run(["replay", path, "--json", "--trace"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        let times = run.jsonLines.filter { $0["type"] as? String == "frame" }.compactMap { $0["t"] as? Double }
        #expect(times.count == Self.endFrames(run))
        let steps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 > 0 }, "media time must increase")
        #expect(steps.contains { $0 > 0.05 }, "the fixture must have timestamp gaps: \(steps)")
    }

    /// A phone held upright records landscape frames and a 90 degree matrix
    /// in the track header. mp4mux ignores `taginject image-orientation`
    /// (1.22 writes an identity matrix), so the fixture's matrix is patched
    /// in; qtdemux reports it as image-orientation=rotate-90 and the replay
    /// pipeline's `videoflip video-direction=auto` must turn the frames.
    @Test("an MP4 with rotation metadata arrives portrait")
    func rotated() throws {
        let folder = try CLI.temporaryDirectory()
        let path = try Self.testPattern(folder, "phone.mp4", caps: "video/x-raw,width=320,height=240,framerate=30/1")
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let tkhd = try #require(data.firstRange(of: Data("tkhd".utf8)))
        // tkhd: type, version+flags (4), times and ids (20 for version 0,
        // 32 for 1), reserved (8), layer, group, volume, reserved (8): matrix.
        let version = data[tkhd.upperBound]
        let matrix = tkhd.upperBound + 4 + (version == 0 ? 20 : 32) + 8 + 8
        let rotate90: [Int32] = [0, 65536, 0, -65536, 0, 0, 0, 0, 0x4000_0000]
        let bytes = rotate90.flatMap { value in withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        data.replaceSubrange(matrix..<(matrix + 36), with: bytes)
        try data.write(to: URL(fileURLWithPath: path))

        let annotated = folder + "/annotated.mp4"
        let run = try CLI.run(["replay", path, "--json", "--annotate", annotated])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        let size = try Self.videoSize(of: annotated)
        #expect(size.map { [$0.0, $0.1] } == [240, 320], "frames must arrive portrait, got \(String(describing: size))")
    }

    // MARK: Unwritable outputs (tests run as root: a path under a file is unwritable for anyone)

    @Test("--images under a file")
    func imagesUnderAFile() throws {
        let folder = try CLI.temporaryDirectory()
        let file = folder + "/plain"
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--json", "--images", file + "/stills"])
        #expect(run.status == 64)
        #expect(run.stderrLine == "hkid-liveness: --images \(file)/stills: cannot create the folder")
        #expect(run.stdout.isEmpty)
        #expect(Self.files(in: folder) == ["plain"])
    }

    @Test("--annotate under a file")
    func annotateUnderAFile() throws {
        let folder = try CLI.temporaryDirectory()
        let file = folder + "/plain"
        FileManager.default.createFile(atPath: file, contents: Data())
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--json", "--annotate", file + "/out.mp4"])
        #expect(run.status == 64)
        #expect(run.stderrLine.hasPrefix("hkid-liveness: --annotate \(file)/out.mp4: "))
        #expect(run.stdout.isEmpty)
        #expect(Self.files(in: folder) == ["plain"])
    }

    // MARK: Malformed session options: one line, exit 64, nothing run

    @Test("--overtime and --card values", arguments: [
        (["--overtime", "0"], "hkid-liveness: --overtime must be a positive number of seconds, not 0.0"),
        (["--overtime=-1"], "hkid-liveness: --overtime must be a positive number of seconds, not -1.0"),
        (["--overtime", "abc"], "hkid-liveness: The value 'abc' is invalid for '--overtime <overtime>'"),
        (["--card", "2020"], "hkid-liveness: The value '2020' is invalid for '--card <card>'. Please provide one of '2018' and '2003'."),
    ])
    func sessionOptions(arguments: [String], message: String) throws {
        for command in ["replay", "run"] {
            let input = command == "replay" ? [CLI.sample("genuine-2018.mp4")] : ["--source", "videotestsrc"]
            let run = try CLI.run([command] + input + arguments, timeout: .seconds(30))
            #expect(run.status == 64, "\(command)")
            #expect(run.stderrLine == message, "\(command)")
            #expect(run.stdout.isEmpty, "\(command)")
        }
    }
}
