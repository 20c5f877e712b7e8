import Foundation
import Testing
@testable import HKIDMedia

@Suite("Frame source on real GStreamer pipelines")
struct FrameSourceTests {
    @Test("replay delivers every frame, in order, with its timestamp and I420 planes")
    func replayDeliversEveryFrame() throws {
        let path = try Fixtures.movingSquare()
        let source = try FrameSource(.replay, input: path)
        var timestamps: [Int64] = []
        var squareColumns: [Int] = []
        let ending = try source.run { frame in
            #expect(frame.format == .i420)
            #expect(frame.width == 320 && frame.height == 240)
            #expect(frame.planes.count == 3 && frame.strides[0] >= 320)
            timestamps.append(frame.pts)
            // Find the square's left edge on row 120 of the Y plane.
            let row = frame.planes[0] + 120 * frame.strides[0]
            squareColumns.append((0..<320).first { row[$0] > 150 } ?? -1)
        }
        #expect(ending == .endOfStream)
        #expect(timestamps.count == Fixtures.squareFrames)
        #expect(timestamps == timestamps.sorted())
        #expect(abs(timestamps[1] - timestamps[0] - 66_666_666) < 1_000_000)
        // Every frame arrives, none twice: the square advances 4 px a frame.
        #expect(squareColumns.enumerated().allSatisfy { abs($1 - ($0 * 4) % 280) <= 2 })
    }

    @Test("a missing file is named with the reason, before GStreamer runs")
    func missingFile() throws {
        let error = #expect(throws: MediaError.self) { try FrameSource(.replay, input: "/nonexistent/clip.mp4") }
        #expect(error?.description == "/nonexistent/clip.mp4: no such file")
        #expect(error?.kind == .unreadableInput)
    }

    @Test("a directory and an empty file are refused with their own reasons")
    func directoryAndEmptyFile() throws {
        let directoryError = #expect(throws: MediaError.self) { try FrameSource(.replay, input: Fixtures.directory) }
        #expect(directoryError?.reason == "is a directory, not a video file")
        let empty = try Fixtures.file(named: "empty.mp4", contents: Data())
        let emptyError = #expect(throws: MediaError.self) { try FrameSource(.replay, input: empty) }
        #expect(emptyError?.reason == "is empty")
    }

    @Test("a file that is not video ends with GStreamer's reason within seconds")
    func notVideo() throws {
        let path = try Fixtures.file(named: "notes.mp4", contents: Data(String(repeating: "not a video\n", count: 400).utf8))
        let started = ContinuousClock.now
        let source = try FrameSource(.replay, input: path)
        var frames = 0
        let error = #expect(throws: MediaError.self) { try source.run { _ in frames += 1 } }
        #expect(frames == 0)
        #expect(error?.kind == .decodeFailed)
        #expect(error?.description.hasPrefix(path + ": ") == true)
        #expect(error?.reason.isEmpty == false)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// Noise from a fixed hash, not a random generator: about one random
    /// file in 150 is taken by GStreamer's typefinders for H.263, AAC or
    /// subtitles, and such a run may not fail at all (one CI run did not).
    @Test("noise named .mp4 fails cleanly")
    func noise() throws {
        let bytes = Data((0..<50_000).map { (index: Int) in UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13) })
        let path = try Fixtures.file(named: "noise.mp4", contents: bytes)
        let source = try FrameSource(.replay, input: path)
        let error = #expect(throws: MediaError.self) { try source.run { _ in } }
        #expect(error?.reason == "Could not determine type of stream.")
    }

    /// Before, such a stream returned `.endOfStream` and a replay of it
    /// exited 0 as if a video had been analysed.
    @Test("a stream that ends before its first frame is an error")
    func endsBeforeTheFirstFrame() throws {
        let description = PipelineDescription(text: "videotestsrc num-buffers=0 ! video/x-raw,format=I420 ! appsink name=sink",
                                              origin: "empty.pipeline")
        let source = try FrameSource(description, input: nil)
        let error = #expect(throws: MediaError.self) { try source.run { _ in Issue.record("a frame arrived") } }
        #expect(error?.description == "empty.pipeline: no video frame could be decoded")
        #expect(error?.kind == .decodeFailed)
    }

    /// The edge fit places a side found in colour by where the colour
    /// samples sit: a frame says what its caps say (an MJPEG webcam's
    /// decoder gives JPEG's siting, H.264's is MPEG-2's). Decoders name a
    /// chroma-site without a colorimetry, which GstVideoInfo (1.22) would
    /// read as JPEG's; the caps without one come first.
    @Test("a frame carries its caps' chroma siting", arguments: [
        ("videotestsrc num-buffers=2 ! video/x-raw,format=I420 ! jpegenc ! jpegdec ! appsink name=sink", false, false),
        ("videotestsrc num-buffers=2 ! video/x-raw,format=I420,chroma-site=mpeg2 ! appsink name=sink", true, false),
        ("videotestsrc num-buffers=2 ! video/x-raw,format=I420,colorimetry=bt709,chroma-site=cosited ! appsink name=sink", true, true),
        ("videotestsrc num-buffers=2 ! video/x-raw,format=I420 ! appsink name=sink", true, false),
    ])
    func chromaSiting(pipeline: String, horizontally: Bool, vertically: Bool) throws {
        let source = try FrameSource(PipelineDescription(text: pipeline, origin: "siting.pipeline"), input: nil)
        var sitings: [[Bool]] = []
        try source.run { frame in sitings.append([frame.chromaCositedHorizontally, frame.chromaCositedVertically]) }
        #expect(sitings == [[horizontally, vertically], [horizontally, vertically]])
    }

    @Test("a truncated MP4 yields the frames before the cut, then an error", arguments: [0.5, 0.9])
    func truncated(fraction: Double) throws {
        let path = try Fixtures.truncated(try Fixtures.movingSquare(), fraction: fraction)
        let source = try FrameSource(.replay, input: path)
        var frames = 0
        do {
            try source.run { _ in frames += 1 }
            Issue.record("a truncated file played to the end without an error")
        } catch let error as MediaError {
            #expect(error.description.hasPrefix(path + ": the file is truncated: decoding stopped at "))
            #expect(error.description.hasSuffix(" of 6.00 s"))
        }
        #expect(frames > 0 && frames < Fixtures.squareFrames)
    }

    /// What decodebin leaves behind when it drops a demuxer's error (a cut
    /// MP4 under load): no streaming thread runs, no error, no EOS. Here
    /// nothing feeds the appsink at all. Before, this waited for the 10 s
    /// stall timeout.
    @Test("a pipeline in which nothing can flow ends at once")
    func nothingCanFlow() throws {
        let description = PipelineDescription(text: "identity ! appsink name=sink", origin: "dead.pipeline")
        let source = try FrameSource(description, input: nil)
        let error = #expect(throws: MediaError.self) { try source.run { _ in Issue.record("a frame arrived") } }
        #expect(error?.description == "dead.pipeline: no video frame could be decoded")
    }

    @Test("an unknown element is reported by name")
    func unknownElement() throws {
        let description = PipelineDescription(text: "filesrc name=src ! nosuchdecoder ! appsink name=sink", origin: "custom.pipeline")
        let error = #expect(throws: MediaError.self) { try FrameSource(description, input: "/etc/hostname") }
        #expect(error?.kind == .invalidPipeline)
        #expect(error?.description == "custom.pipeline: no element \"nosuchdecoder\"")
    }

    @Test("a pipeline without an appsink named sink is refused")
    func missingSink() throws {
        let description = PipelineDescription(text: "videotestsrc name=src ! fakesink name=sink", origin: "custom.pipeline")
        let error = #expect(throws: MediaError.self) { try FrameSource(description, input: nil) }
        #expect(error?.reason == "the element named 'sink' is not an appsink")
    }

    @Test("stop() from another thread ends a live source promptly")
    func stopLiveSource() throws {
        let source = try FrameSource(.testPattern, input: nil, stallTimeout: nil)
        let signal = source.stopSignal
        var frames = 0
        let ending = try source.run { _ in
            frames += 1
            if frames == 5 { Thread.detachNewThread { signal.stop() } }
        }
        #expect(ending == .stopped)
        #expect(frames >= 5 && frames < 30)
    }
}
