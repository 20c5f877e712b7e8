import ArgumentParser
import Foundation

/// `hkid-samples SCENARIO.yaml... --out samples/` renders scripted card
/// sessions to MP4 with their expectations.
@main
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hkid-samples",
        abstract: "Render scripted hand-held card sessions to MP4 sample videos with ground truth.")

    @Argument(help: "Scenario files (YAML), e.g. samples/scenarios/*.yaml.")
    var scenarios: [String]

    @Option(name: .shortAndLong, help: "Folder for NAME.mp4 and NAME.expect.json.")
    var out: String = "samples"

    @Option(help: "H.264 bit rate in kbit/s.")
    var bitrate: Int = 700

    func run() throws {
        for path in scenarios {
            let scenario = try Scenario.load(path)
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            let started = ContinuousClock.now
            var generator = SampleGenerator(scenario: scenario, name: name)
            generator.bitrate = bitrate
            generator.scenarioPath = path
            let output = try generator.generate(into: out)
            let seconds = (ContinuousClock.now - started).components
            print(String(format: "%@: %d frames, %.2f s, %d KB, rendered in %.1f s", output.video, output.frames,
                         scenario.duration, output.bytes / 1024, Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18))
        }
    }
}
