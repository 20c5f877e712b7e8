@testable import HKIDLiveness
import Testing

/// SPEC section 4: a session that has ended stays ended until `startDetect`.
@Suite("Restart")
struct RestartTests {
    struct Ending: Sendable, CustomTestStringConvertible {
        let name: String
        let configuration: LivenessConfiguration
        let script: MeasurementScript
        let code: ResultCode
        let expected: [String]
        var testDescription: String { name }
    }

    // Each attempt ends, then 0.5 s of a perfect card is ignored, then
    // startDetect (BEGIN at the last frame's time) and the card is seen anew.
    static let endings: [Ending] = [
        Ending(name: "after success", configuration: .english(), script: FlowTests.genuine, code: .success,
               expected: ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5", "COMPLETE@2.2", "result0@2.2",
                          "BEGIN@2.7", "result1@3.1", "ORTH@3.1"]),
        Ending(name: "after exposure", configuration: .english(),
               script: MeasurementScript(fps: 10).front(0.5).with(.glare(0.4)).hold(1.1), code: .exposure,
               expected: ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result2@1.5",
                          "BEGIN@2.0", "result1@2.4", "ORTH@2.4"]),
        Ending(name: "after lost", configuration: .english(),
               script: MeasurementScript(fps: 10).front(0.5).missing(1.5), code: .lost,
               expected: ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result3@1.9",
                          "BEGIN@2.4", "result1@2.8", "ORTH@2.8"]),
        Ending(name: "after overtime", configuration: .english { $0.overtimeSeconds = 2 },
               script: MeasurementScript(fps: 10).missing(2.1), code: .overtime,
               expected: ["BEGIN@0.0", "result4@2.0",
                          "BEGIN@2.5", "result1@2.9", "ORTH@2.9"]),
    ]

    @Test(arguments: endings)
    func restart(_ ending: Ending) {
        let session = makeSession(ending.configuration)
        var events = session.startDetect() + session.play(ending.script)
        #expect(session.phase == .ended(ending.code))

        let ignored = ending.script.continued().front(0.5)
        #expect(session.play(ignored).isEmpty, "an ended session stays ended")
        #expect(session.phase == .ended(ending.code))

        events += session.startDetect()
        events += session.play(ignored.continued().front(0.5))
        #expect(summaries(events) == ending.expected)
    }

    @Test func startDetectDuringAFlowStartsOver() {
        let session = makeSession()
        let first = MeasurementScript(fps: 10).front(0.5)
        var events = session.startDetect() + session.play(first)       // result 1 at 0.3
        events += session.startDetect()                                 // BEGIN at 0.4
        events += session.play(first.continued().front(0.5))            // 0.5-0.9 -> result 1 at 0.8
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "BEGIN@0.4", "result1@0.8", "ORTH@0.8"])
    }

    @Test func resetStatusStopsSilently() {
        let session = makeSession(.english { $0.overtimeSeconds = 1 })
        let events = session.startDetect()
        session.resetStatus()
        #expect(session.play(MeasurementScript(fps: 10).front(3.0)).isEmpty)
        #expect(session.phase == .idle)
        #expect(summaries(events) == ["BEGIN@0.0"])
    }

    @Test func cardTypeChangesAtTheNextStart() {
        let session = makeSession(.english(.hkid2018))
        var events = session.startDetect()
        session.setCardType(.hkid2003)
        // Still a 2018 attempt: yaw counts.
        let script = MeasurementScript(fps: 10).front(0.5).turn(.yaw, to: 30, over: 0.5)
        events += session.play(script)
        events += session.startDetect()
        // Now a 2003 attempt: yaw does not count, pitch does.
        events += session.play(script.continued().front(0.5).turn(.yaw, to: 30, over: 0.5)
                                 .turn(.yaw, to: 0, over: 0.5).turn(.pitch, to: 30, over: 0.5))
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9",
                                      "BEGIN@0.9", "result1@1.3", "ORTH@1.3", "RESET@2.9"])
    }
}
