@testable import HKIDLiveness
import Testing

/// SPEC section 5 step 7: FAR / NEAR / OVERSPEED once when they start, VALID
/// once 0.2 s after the last one cleared, the flow paused in between.
@Suite("Alerts")
struct AlertTests {
    static let scenarios: [Scenario] = [
        // FAR from the first frame; clear from 0.5, VALID at 0.7; the front-on
        // dwell only starts with VALID, so result 1 comes 0.3 s later.
        Scenario("FAR then VALID, before result 1", .english(),
                 MeasurementScript(fps: 10)
                    .with(.width(0.2)).hold(0.5)
                    .with(.width(0.5)).hold(1.0),
                 ["BEGIN@0.0", "FAR@0.0", "VALID@0.7", "result1@1.0", "ORTH@1.0"]),

        Scenario("width exactly at the FAR limit is no alert", .english(),
                 MeasurementScript(fps: 10).with(.width(0.25)).hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        // NEAR by a corner on the border at 0.5-0.7; clear from 0.8, VALID at 1.0.
        Scenario("NEAR by border contact, then VALID", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .with(.touchingBorder(true)).hold(0.3)
                    .with(.touchingBorder(false)).hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "NEAR@0.5", "VALID@1.0"]),

        Scenario("NEAR by width", .english(),
                 MeasurementScript(fps: 10)
                    .with(.width(0.95)).hold(0.5),
                 ["BEGIN@0.0", "NEAR@0.0"]),

        // One 300 deg/s frame at 0.5 (yaw 30). Slow again from 0.6, VALID at
        // 0.8; the streak restarts with VALID: 30 at 0.8 and 0.9 -> RESET at 0.9.
        Scenario("OVERSPEED then VALID, then the rotation counts", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.yaw, to: 30, over: 0.1)
                    .hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "OVERSPEED@0.5", "VALID@0.8", "RESET@0.9"]),

        Scenario("OVERSPEED check switched off", .english(.hkid2018) { $0.checksOverspeed = false },
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.yaw, to: 30, over: 0.1)
                    .hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.6"]),

        // FAR at 0.0, then NEAR while FAR's VALID is pending: both alerts once,
        // one VALID after the last clears (NEAR clear from 0.4 -> VALID at 0.6).
        Scenario("two alerts, one VALID", .english(),
                 MeasurementScript(fps: 10)
                    .with(.width(0.2)).hold(0.2)
                    .with(.width(0.5)).hold(0.1)
                    .with(.width(0.95)).hold(0.1)
                    .with(.width(0.5)).hold(0.3),
                 ["BEGIN@0.0", "FAR@0.0", "NEAR@0.3", "VALID@0.6"]),

        // A corner grazing the border on alternate frames is one NEAR, not one
        // per graze: the episode lasts until VALID (clear from 1.0 -> 1.2).
        Scenario("a flickering alert is announced once per episode", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .with(.touchingBorder(true)).hold(0.1)
                    .with(.touchingBorder(false)).hold(0.1)
                    .with(.touchingBorder(true)).hold(0.1)
                    .with(.touchingBorder(false)).hold(0.1)
                    .with(.touchingBorder(true)).hold(0.1)
                    .with(.touchingBorder(false)).hold(0.5)
                    .with(.touchingBorder(true)).hold(0.1),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "NEAR@0.5", "VALID@1.2", "NEAR@1.5"]),

        // A holding alert is not repeated: FAR for 1 s is one FAR.
        Scenario("an alert is emitted once while it holds", .english(),
                 MeasurementScript(fps: 10).with(.width(0.1)).hold(1.0),
                 ["BEGIN@0.0", "FAR@0.0"]),

        // A lost card neither holds nor clears an alert: VALID needs 0.2 s of a
        // tracked card without alert (clear from 0.6 -> 0.8).
        Scenario("a missing card does not clear an alert", .english(),
                 MeasurementScript(fps: 10)
                    .with(.width(0.2)).hold(0.2)
                    .missing(0.4)
                    .with(.width(0.5)).hold(0.3),
                 ["BEGIN@0.0", "FAR@0.0", "VALID@0.8"]),
    ]

    @Test(arguments: scenarios)
    func alerts(_ scenario: Scenario) {
        #expect(run(scenario.script, scenario.configuration) == scenario.expected)
    }

    @Test func validRepeatsTheHintOfTheCurrentStep() {
        let session = makeSession()
        let events = session.startDetect() + session.play(
            MeasurementScript(fps: 10).front(0.5).with(.touchingBorder(true)).hold(0.1).with(.touchingBorder(false)).hold(0.3))
        let commands = events.compactMap { event -> OperationCommand? in
            guard case .operation(let command) = event else { return nil }
            return command
        }
        #expect(commands.map(\.currentStatus) == [.begin, .orth, .near, .valid])
        #expect(commands.map(\.hintKey) == [.place, .right, .near, .right])
        #expect(commands.last?.nextOperationHint == "Slowly rotate the card to the right")
    }
}
