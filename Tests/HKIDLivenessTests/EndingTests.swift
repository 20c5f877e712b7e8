@testable import HKIDLiveness
import Testing

/// The results that end a session: exposure (2), lost (3), overtime (4).
@Suite("Endings")
struct EndingTests {
    static let scenarios: [Scenario] = [
        // 0.9 s of glare, a break, 0.9 s again: never 1.0 s in a row.
        Scenario("glare shorter than 1.0 s", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .with(.glare(0.4)).hold(0.9)
                    .with(.glare(0)).hold(0.1)
                    .with(.glare(0.4)).hold(0.9),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        // Glare from 0.5: 1.0 s at 1.5.
        Scenario("glare for 1.0 s", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .with(.glare(0.4)).hold(1.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result2@1.5"]),

        // Glare also blocks the front-on still, and counts before result 1.
        Scenario("glare before result 1", .english(),
                 MeasurementScript(fps: 10).with(.glare(0.3)).hold(1.5),
                 ["BEGIN@0.0", "result2@1.0"]),

        Scenario("glare exactly at the limit is not glare", .english(),
                 MeasurementScript(fps: 10).with(.glare(0.25)).hold(1.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        Scenario("glare check switched off", .english(.hkid2018) { $0.checksGlare = false },
                 MeasurementScript(fps: 10).with(.glare(0.9)).hold(1.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        // Before result 1 a missing card is waited for: 3 s of nothing, then
        // front-on from 3.0 gives result 1 at 3.3.
        Scenario("card missing before result 1 is waited for", .english(),
                 MeasurementScript(fps: 10)
                    .missing(3.0)
                    .front(0.5),
                 ["BEGIN@0.0", "result1@3.3", "ORTH@3.3"]),

        // Last seen at 0.4; 1.5 s later is 1.9.
        Scenario("card lost after result 1", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .missing(2.0),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result3@1.9"]),

        // Gone 1.4 s (last seen 0.4, back at 1.9 = 1.5 s after, but seen): not lost.
        Scenario("card back just in time", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .missing(1.4)
                    .front(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        Scenario("overtime without a still", .english(.hkid2018) { $0.overtimeSeconds = 2 },
                 MeasurementScript(fps: 10).missing(3.0),
                 ["BEGIN@0.0", "result4@2.0"]),

        // Front-on only 0.2 s (no result 1), then gone: overtime at 2.0.
        Scenario("overtime with a still", .english(.hkid2018) { $0.overtimeSeconds = 2 },
                 MeasurementScript(fps: 10).front(0.2).missing(3.0),
                 ["BEGIN@0.0", "result4@2.0"]),

        // A frame at exactly the deadline is too late, even if it would complete.
        Scenario("overtime wins over a frame at the deadline", .english(.hkid2018) { $0.overtimeSeconds = 0.3 },
                 MeasurementScript(fps: 10).front(0.5),
                 ["BEGIN@0.0", "result4@0.3"]),
    ]

    @Test(arguments: scenarios)
    func endings(_ scenario: Scenario) {
        #expect(run(scenario.script, scenario.configuration) == scenario.expected)
    }

    @Test(arguments: [
        (MeasurementScript(fps: 10).missing(3.0), [StillKind]()),
        (MeasurementScript(fps: 10).front(0.2).missing(3.0), [StillKind.card]),
    ])
    func overtimeCarriesTheBestStillIfAny(_ script: MeasurementScript, _ kinds: [StillKind]) throws {
        let session = makeSession(.english { $0.overtimeSeconds = 2 })
        let events = session.startDetect() + session.play(script)
        guard case .result(let result) = try #require(events.last) else {
            Issue.record("last event is not a result")
            return
        }
        #expect(result.code == .overtime && result.message == "overtime" && !result.success)
        #expect(result.images.map(\.kind) == kinds)
    }

    @Test func exposureAndLostCarryNoImages() {
        for script in [MeasurementScript(fps: 10).front(0.5).with(.glare(0.5)).hold(1.5),
                       MeasurementScript(fps: 10).front(0.5).missing(2.0)] {
            let session = makeSession()
            let events = session.startDetect() + session.play(script)
            guard case .result(let result) = events.last else {
                Issue.record("last event is not a result")
                continue
            }
            #expect(result.images.isEmpty)
        }
    }

    @Test func stopOverTimerAndStartOverTime() {
        let session = makeSession(.english { $0.overtimeSeconds = 1 })
        var events = session.startDetect()
        session.stopOverTimer()
        let waiting = MeasurementScript(fps: 10).missing(2.0)
        events += session.play(waiting)                 // 0.0-1.9: no timer, no overtime
        session.startOverTime()                         // from 1.9
        session.setOverTimes(0.5)                       // applies to the running timer
        events += session.play(waiting.continued().missing(1.0))   // 2.0-2.9 -> 2.4
        #expect(summaries(events) == ["BEGIN@0.0", "result4@2.4"])
    }
}
