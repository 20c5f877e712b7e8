@testable import HKIDLiveness
import Testing

/// The value-type state machine on its own, as a replay tool would use it.
@Suite("State machine")
struct StateMachineTests {
    @Test func pureMachineGivesFlowEvents() {
        var machine = LivenessStateMachine(configuration: LivenessConfiguration(cardType: .hkid2003))
        var events = machine.start(at: nil)
        for frame in MeasurementScript(fps: 10).front(0.5).turn(.pitch, to: 30, over: 0.5).frames {
            events += machine.process(frame.card, at: frame.pts)
        }
        #expect(events == [
            .operation(.begin, .place, at: .zero),
            .result(.first, at: MediaTime(seconds: 0.3)),
            .operation(.orth, .up, at: MediaTime(seconds: 0.3)),
            .operation(.reset, .upDone, at: MediaTime(seconds: 0.9)),
        ])
        #expect(machine.phase == .awaitingReturn)
    }

    @Test func copiesAreIndependent() {
        var machine = LivenessStateMachine()
        _ = machine.start(at: nil)
        let script = MeasurementScript(fps: 10).front(0.2)
        for frame in script.frames { _ = machine.process(frame.card, at: frame.pts) }
        var branch = machine
        let more = script.continued().front(0.2).frames
        let branched = more.flatMap { branch.process($0.card, at: $0.pts) }
        #expect(branched.count == 2)                    // result 1, ORTH
        #expect(machine.phase == .awaitingFront)        // the original did not move
    }

    @Test func idleMachineIgnoresMeasurements() {
        var machine = LivenessStateMachine()
        #expect(machine.process(CardMeasurement(), at: .zero).isEmpty)
        #expect(machine.advance(to: MediaTime(seconds: 100)).isEmpty)
        #expect(machine.phase == .idle)
    }
}
