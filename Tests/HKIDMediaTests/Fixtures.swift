import Foundation
import HKIDMedia

/// Small videos made on the spot with the real encoder, so the decoding
/// tests need no binary fixtures and cover VideoWriter as well.
enum Fixtures {
    /// This test process's directory, removed when it exits.
    static let directory: String = {
        let path = NSTemporaryDirectory() + "hkid-media-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Fixtures.directory) }
        return path
    }()

    /// A 320x240 video of `frames` frames at `fps` whose luma encodes the
    /// frame index (a bright square moving right), written once per process.
    /// Made once per process (a static let is initialised exactly once,
    /// even when parallel tests ask for it at the same moment).
    static func movingSquare() throws -> String { try squareVideo.get() }
    static let squareFrames = 90
    private static let squareVideo = Result { try makeMovingSquare(frames: squareFrames, fps: 15, name: "square.mp4") }

    private static func makeMovingSquare(frames: Int, fps: Int, name: String) throws -> String {
        let path = directory + "/" + name
        let (width, height) = (320, 240)
        let writer = try VideoWriter(path: path, settings: .init(width: width, height: height, framesPerSecond: fps))
        var y = [UInt8](repeating: 40, count: width * height)
        let chroma = [UInt8](repeating: 128, count: width * height / 4)
        for index in 0..<frames {
            y.withUnsafeMutableBufferPointer { plane in
                for i in plane.indices { plane[i] = 40 }
                let x0 = (index * 4) % (width - 40)
                for row in 100..<140 { for col in x0..<(x0 + 40) { plane[row * width + col] = 230 } }
                // Fresh noise in a corner gives every frame real weight in
                // the file, as camera footage has, so a cut lands mid-stream.
                var seed = UInt32(index &+ 1) &* 2_654_435_761
                for row in 0..<64 { for col in 0..<64 {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    plane[row * width + col] = UInt8(truncatingIfNeeded: seed >> 24) / 4
                } }
            }
            try y.withUnsafeBufferPointer { yp in
                try chroma.withUnsafeBufferPointer { cp in
                    try writer.write(y: yp.baseAddress!, yStride: width, u: cp.baseAddress!, uStride: width / 2,
                                     v: cp.baseAddress!, vStride: width / 2,
                                     pts: Int64(index) * 1_000_000_000 / Int64(fps))
                }
            }
        }
        try writer.finish()
        return path
    }

    /// The first `fraction` of `source`'s bytes, as a new file.
    static func truncated(_ source: String, fraction: Double) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let path = directory + "/truncated-\(Int(fraction * 100)).mp4"
        try data.prefix(Int(Double(data.count) * fraction)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func file(named name: String, contents: Data) throws -> String {
        let path = directory + "/" + name
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }
}
