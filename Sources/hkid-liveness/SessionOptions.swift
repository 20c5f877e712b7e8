import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia

/// Options every command that runs a liveness session shares.
struct SessionOptions: ParsableArguments {
    @Option(help: "Card type: 2018 (turn right, then left) or 2003 (tilt up, then down).")
    var card: CardType = .hkid2018

    @Option(help: "Seconds before the session ends with result 4 (overtime).")
    var overtime: Double = 30

    @Option(help: "Language of the hint texts: zh-HK, en or zh-CN.")
    var lang: HintLanguage = .zhHK

    @Option(help: "Write the result stills (card, head) as JPEG files into this folder.")
    var images: String?

    @Flag(help: "Also print a frame line for every analysed frame; a replay traces the card to the end of the file, after the session has ended.")
    var trace = false

    @Flag(help: "Print the JSON event stream of SPEC section 6 (one object per line) instead of text.")
    var json = false

    @Option(help: "Camera horizontal field of view in degrees, for the pose.")
    var hfov: Double = 62

    @Option(help: "Liveness checks: enforce (a copy, print or screen ends the session with result 5 spoof) or report (the verdict is only reported, in each final result's liveness).")
    var liveness: LivenessMode = .enforce

    @Option(help: "Rotations asked for: fixed (the SDK's: right then left, up then down; for replaying recordings) or random (the first direction drawn per session; for live counters, against replayed recordings).")
    var challenge: Challenge = .fixed

    @Option(help: "Seed for --challenge random, so that the draws repeat (default: the system's random source).")
    var challengeSeed: UInt64?

    @Option(help: "With --challenge random: ask for this first rotation instead of drawing it (right or left for --card 2018, up or down for 2003), to replay a recorded session with the direction it was asked for (its bundle manifest's liveness.firstRotation).")
    var firstRotation: RotationDirection?

    func validate() throws {
        if let firstRotation {
            let allowed = card.rotationDirections
            guard challenge == .random else {
                throw ValidationError("--first-rotation needs --challenge random: the fixed challenge always asks for \(allowed[0].rawValue) first")
            }
            guard allowed.contains(firstRotation) else {
                throw ValidationError("--first-rotation must be \(allowed.map(\.rawValue).joined(separator: " or ")) for --card \(card.rawValue), not \(firstRotation.rawValue)")
            }
        }
        guard overtime.isFinite, overtime > 0 else {
            throw ValidationError("--overtime must be a positive number of seconds, not \(overtime)")
        }
        guard hfov > 10, hfov < 170 else { throw ValidationError("--hfov must be between 10 and 170 degrees") }
        if let images { try ImageFolder.checkWritable(images) }
    }

    func configuration(cardType: CardType? = nil, overtime: Double? = nil) -> LivenessConfiguration {
        var configuration = LivenessConfiguration()
        configuration.cardType = cardType ?? card
        configuration.overtimeSeconds = overtime ?? self.overtime
        configuration.language = lang
        configuration.emitsFrameTrace = trace
        configuration.tracesAfterEnd = trace
        configuration.hfovDegrees = hfov
        configuration.liveness = liveness
        configuration.challenge = challenge
        configuration.challengeSeed = challengeSeed
        configuration.firstRotation = firstRotation
        return configuration
    }
}

// The library's own enums are the options' values: their raw values are
// what the user types (2018, zh-HK, enforce, random, right).
extension CardType: ExpressibleByArgument {}
extension HintLanguage: ExpressibleByArgument {}
extension LivenessMode: ExpressibleByArgument {}
extension Challenge: ExpressibleByArgument {}
extension RotationDirection: ExpressibleByArgument {}

/// `--pipeline-file` and `--pipeline` for commands that read frames.
struct PipelineOptions: ParsableArguments {
    @Option(help: "A gst-launch description file (see pipelines/): an element named src takes the input, an appsink named sink gives frames.")
    var pipelineFile: String?

    @Option(help: "A gst-launch description given inline, with the same two names as --pipeline-file.")
    var pipeline: String?

    func validate() throws {
        if pipelineFile != nil && pipeline != nil {
            throw ValidationError("give --pipeline-file or --pipeline, not both")
        }
    }

    /// Whether the user named a pipeline rather than taking a built-in one.
    var isCustom: Bool { pipelineFile != nil || pipeline != nil }

    /// The description to run: the user's, else `builtIn`. A pipeline file
    /// that cannot be read is an input failure (one line, exit 2).
    func description(else builtIn: PipelineDescription) throws -> PipelineDescription {
        do {
            if let file = pipelineFile { return try PipelineDescription(contentsOf: file) }
        } catch {
            Output.error("hkid-liveness: \(error)")
            throw ExitStatus.inputFailed
        }
        if let text = pipeline { return PipelineDescription(text: text, origin: "--pipeline") }
        return builtIn
    }
}
