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
}
