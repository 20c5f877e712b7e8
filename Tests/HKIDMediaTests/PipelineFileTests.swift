import Foundation
import Testing
@testable import HKIDMedia

@Suite("pipelines/ files")
struct PipelineFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("each file in pipelines/ is exactly the built-in description the code runs", arguments: PipelineDescription.builtIn.keys.sorted())
    func filesMatchBuiltIns(name: String) throws {
        let loaded = try PipelineDescription(contentsOf: Self.root.appendingPathComponent("pipelines/\(name).pipeline").path)
        #expect(loaded.text == PipelineDescription.builtIn[name]?.text)
    }

    @Test("comments and blank lines are stripped, lines joined")
    func commentsStripped() {
        let text = PipelineDescription.stripComments("# header\nvideotestsrc   # source\n\n  ! appsink name=sink  # out\n")
        #expect(text == "videotestsrc ! appsink name=sink")
    }

    @Test("a missing pipeline file and an empty one are named")
    func badPipelineFiles() throws {
        let missing = #expect(throws: MediaError.self) { try PipelineDescription(contentsOf: "/nonexistent.pipeline") }
        #expect(missing?.description == "/nonexistent.pipeline: no such file")
        let empty = try Fixtures.file(named: "empty.pipeline", contents: Data("# only a comment\n".utf8))
        let emptyError = #expect(throws: MediaError.self) { try PipelineDescription(contentsOf: empty) }
        #expect(emptyError?.reason == "the pipeline file has no pipeline in it")
    }
}
