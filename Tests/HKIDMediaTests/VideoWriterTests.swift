import Foundation
import Testing
@testable import HKIDMedia

@Suite("Video writer")
struct VideoWriterTests {
    @Test("an abandoned writer leaves no file behind, not even a partial one")
    func abandonedWriterLeavesNothing() throws {
        let path = Fixtures.directory + "/abandoned.mp4"
        do {
            let writer = try VideoWriter(path: path, settings: .init(width: 64, height: 64, framesPerSecond: 10))
            let plane = [UInt8](repeating: 99, count: 64 * 64)
            try plane.withUnsafeBufferPointer { p in
                try writer.write(y: p.baseAddress!, yStride: 64, u: p.baseAddress!, uStride: 32, v: p.baseAddress!, vStride: 32, pts: 0)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory).filter { $0.contains("abandoned") }
        #expect(leftovers.isEmpty)
    }

    @Test("an unwritable folder is refused up front")
    func unwritableFolder() {
        let error = #expect(throws: MediaError.self) {
            try VideoWriter(path: "/nonexistent-folder/out.mp4", settings: .init(width: 64, height: 64, framesPerSecond: 10))
        }
        #expect(error?.description == "/nonexistent-folder/out.mp4: the folder /nonexistent-folder does not exist")
    }

    /// gst-libav 1.22.0's MPEG-4 encoder hands out packets without
    /// timestamps; mp4mux then wrote every frame at 0 s, and a 5.7 s hard
    /// sample replayed as 40 ms (no hold, no overtime could ever complete).
    @Test("an encoded file keeps the timing of the frames written into it", arguments: [VideoWriter.Settings.Codec.h264, .mpeg4])
    func encodedFramesKeepTheirTiming(codec: VideoWriter.Settings.Codec) throws {
        let path = Fixtures.directory + "/timing-\(codec).mp4"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var settings = VideoWriter.Settings(width: 64, height: 48, framesPerSecond: 10)
        settings.codec = codec
        settings.deterministic = true
        let writer = try VideoWriter(path: path, settings: settings)
        for i in 0..<12 {
            // A moving bar, so that no two frames are alike.
            var y = [UInt8](repeating: 40, count: 64 * 48)
            for row in 0..<48 { for x in (i * 4)..<(i * 4 + 4) { y[row * 64 + x] = 220 } }
            let chroma = [UInt8](repeating: 128, count: 32 * 24)
            try y.withUnsafeBufferPointer { yp in
                try chroma.withUnsafeBufferPointer { c in
                    try writer.write(y: yp.baseAddress!, yStride: 64, u: c.baseAddress!, uStride: 32, v: c.baseAddress!, vStride: 32,
                                     pts: Int64(i) * 100_000_000)
                }
            }
        }
        try writer.finish()
        var times: [Int64] = []
        try FrameSource(.replay, input: path).run { frame in times.append(frame.pts) }
        // Every frame, 100 ms apart. (H.264 starts a little later: x264's
        // reordering delay is kept as a composition offset.)
        #expect(times.count == 12)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 100_000_000 })
        if codec == .mpeg4 { #expect(times.first == 0) }
    }
}
