@testable import HKIDLiveness
import Testing

/// One row of a table-driven flow test: a configuration, what the camera
/// measured, and the exact events that must follow.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let configuration: LivenessConfiguration
    let script: MeasurementScript
    let expected: [String]

    init(_ name: String, _ configuration: LivenessConfiguration = .english(),
         _ script: MeasurementScript, _ expected: [String]) {
        self.name = name
        self.configuration = configuration
        self.script = script
        self.expected = expected
    }

    var testDescription: String { name }
}
