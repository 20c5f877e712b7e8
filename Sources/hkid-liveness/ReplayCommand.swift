import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import HKIDRegression

/// `hkid-liveness replay FILE...`: recorded videos through the detector,
/// every frame, as fast as they decode.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded videos through the detector, every frame, as fast as they decode.",
        discussion: """
            With one file, prints its event stream. With --expect (or --expect-dir), checks each file \
            against NAME.expect.json, runs files in parallel and prints a summary table; exits 1 on any mismatch.
            """)

    @Argument(help: "Video files (MP4, Matroska, anything GStreamer decodes).")
    var files: [String]

    @OptionGroup var session: SessionOptions
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup var logging: LoggingOptions

    @Flag(help: "Check each file against the NAME.expect.json beside it.")
    var expect = false

    @Option(help: "Check each file against NAME.expect.json in this folder.")
    var expectDir: String?

    @Option(help: "Files replayed at the same time (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Write the video with the tracked quad, angles and hints drawn on it (one input file only).")
    var annotate: String?

    @Option(help: "Write a self-contained HTML report of every file replayed.")
    var report: String?

    var checksExpectations: Bool { expect || expectDir != nil }

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one video file") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        if annotate != nil && (files.count != 1 || checksExpectations || report != nil) {
            throw ValidationError("--annotate takes exactly one input file, without --expect or --report")
        }
        if let annotate { try OutputFile.checkWritable(annotate, option: "--annotate") }
        if let report { try OutputFile.checkWritable(report, option: "--report") }
    }

    func run() throws {
        logging.bootstrap()
        // Replay is throughput: the decoders keep the other cores busy, so
        // OpenCV's pool would only add hand-offs (docs/decisions.md).
        VisionThreads.limit(to: 1)
        let description = try pipeline.description(else: .replay)
        if checksExpectations || files.count > 1 || report != nil {
            let batch = BatchReplay(files: files, options: session, description: description,
                                    expectations: checksExpectations ? expectationPaths() : nil, jobs: jobs)
            let results = batch.run()
            if let report { try ReportWriter(results: results).write(to: report) }
            // An unreadable input outranks a mismatch: its outcome says nothing.
            if results.contains(where: { $0.sourceError != nil }) { throw ExitStatus.inputFailed }
            if results.contains(where: { !$0.passed }) { throw ExitStatus.mismatch }
            return
        }
        try replaySingle(files[0], description: description)
    }

    private func replaySingle(_ file: String, description: PipelineDescription) throws {
        let printer = EventPrinter(json: session.json)
        let images = session.images.map { ImageFolder(path: $0) }
        let source: FrameSource
        do {
            source = try FrameSource(description, input: file)
        } catch {
            Output.error("hkid-liveness: \(error)")
            throw ExitStatus.inputFailed
        }
        var annotator = try annotate.map { try Annotator(path: $0) }
        var configuration = session.configuration()
        // Stills cost a face search and JPEGs; nobody sees them here without --images.
        configuration.encodesResultStills = images != nil
        let liveness = LivenessSession(configuration: configuration)
        var replay = SessionReplay(session: liveness)
        // A trace and a picture of the video cover the whole file: the card is
        // followed to its end, after the session has decided (no more events).
        replay.continuesAfterEnd = annotator != nil || session.trace
        let outcome = try replay.run(source, onEvent: { event in
            var paths: [StillKind: String] = [:]
            if case .result(let result) = event, let images { paths = try images.store(result) }
            printer.print(event, imagePaths: paths)
            annotator?.note(event)
        }, onFrame: annotator.map { annotator in { frame, analysis in try annotator.draw(frame, analysis) } })
        try annotator?.finish()
        annotator = nil
        printer.printEnd(counters: outcome.counters, seconds: outcome.seconds, liveness: liveness.liveness)
        liveness.close()
        if let error = outcome.error {
            Output.error("hkid-liveness: \(error)")
            throw ExitStatus.inputFailed
        }
    }

    private func expectationPaths() -> [String: String] {
        Dictionary(uniqueKeysWithValues: files.map { file in
            let beside = Expectation.path(forVideo: file)
            guard let folder = expectDir else { return (file, beside) }
            return (file, (folder as NSString).appendingPathComponent((beside as NSString).lastPathComponent))
        })
    }
}

/// Checks an output path before hours of work go into it.
enum OutputFile {
    static func checkWritable(_ path: String, option: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(option) \(path): the folder \(directory) does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw ValidationError("\(option) \(path): the folder \(directory) is not writable")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ValidationError("\(option) \(path): is a folder")
        }
    }
}
