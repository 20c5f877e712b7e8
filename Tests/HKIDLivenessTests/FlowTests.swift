@testable import HKIDLiveness
import Testing

/// The flow of SPEC section 5 steps 1-6, at 10 fps unless noted:
/// frame i is at t = i / 10 s.
@Suite("Flow")
struct FlowTests {
    static let genuine = MeasurementScript(fps: 10)
        .front(0.5)                         // 0.0-0.4: front-on for 0.3 s at 0.3
        .turn(.yaw, to: 30, over: 0.5)      // 0.5-0.9: 6, 12, 18, 24, 30 -> 24 and 30 at 0.8, 0.9
        .turn(.yaw, to: 0, over: 0.5)       // 1.0-1.4: 24, 18, 12, 6, 0 -> front-on from 1.3
        .hold(0.3)                          // 1.5-1.7: 0.2 s front-on at 1.5
        .turn(.yaw, to: -30, over: 0.5)     // 1.8-2.2: -24, -30 at 2.1, 2.2

    static let scenarios: [Scenario] = [
        Scenario("genuine 2018", .english(.hkid2018), genuine,
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5", "COMPLETE@2.2", "result0@2.2"]),

        Scenario("genuine 2003 (tilt up, then down)", .english(.hkid2003),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.pitch, to: 30, over: 0.5)
                    .turn(.pitch, to: 0, over: 0.5)
                    .hold(0.3)
                    .turn(.pitch, to: -30, over: 0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5", "COMPLETE@2.2", "result0@2.2"]),

        // 30 fps: 0.3 s is frame 9; yaw steps of 2 degrees reach 20 on frame 24
        // and stay >= 20 on 25 (0.833); front-on again (8 < 10) from frame 40,
        // 0.2 s later is frame 46 (1.533); -20, -22 on frames 63, 64 (2.133).
        Scenario("genuine 2018 at 30 fps", .english(.hkid2018),
                 MeasurementScript(fps: 30)
                    .front(0.5)
                    .turn(.yaw, to: 30, over: 0.5)
                    .turn(.yaw, to: 0, over: 0.5)
                    .hold(0.3)
                    .turn(.yaw, to: -30, over: 0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.833", "LEFTDOWN@1.533", "COMPLETE@2.133", "result0@2.133"]),

        Scenario("2018 card tilted (wrong axis) never advances", .english(.hkid2018),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.pitch, to: 30, over: 0.5)
                    .hold(0.5)
                    .turn(.pitch, to: 0, over: 0.5)
                    .turn(.pitch, to: -30, over: 0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        Scenario("2003 card rotated (wrong axis) never advances", .english(.hkid2003),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.yaw, to: 30, over: 0.5)
                    .hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"]),

        // -6..-30 at 0.5-0.9 does nothing; back to 0 by 1.4; +24, +30 at 1.8, 1.9.
        Scenario("wrong sign first, then the right one", .english(.hkid2018),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.yaw, to: -30, over: 0.5)
                    .turn(.yaw, to: 0, over: 0.5)
                    .turn(.yaw, to: 30, over: 0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@1.9"]),

        // After LEFTDOWN at 1.5, turning right again never completes.
        Scenario("wrong sign in the second rotation", .english(.hkid2018),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .turn(.yaw, to: 30, over: 0.5)
                    .turn(.yaw, to: 0, over: 0.5)
                    .hold(0.3)
                    .turn(.yaw, to: 30, over: 0.5)
                    .hold(0.5),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5"]),

        // 20 is enough (>=), on two consecutive frames only.
        Scenario("a single frame past the threshold is not a rotation", .english(.hkid2018),
                 MeasurementScript(fps: 10)
                    .front(0.5)
                    .with(.yaw(25)).hold(0.1)
                    .with(.yaw(0)).hold(0.1)
                    .with(.yaw(20)).hold(0.2),
                 ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.8"]),

        // Front-on 0.2 s, then one frame lost: the dwell restarts at 0.4.
        Scenario("a lost frame restarts the front-on dwell", .english(),
                 MeasurementScript(fps: 10)
                    .front(0.2)
                    .missing(0.1)
                    .front(0.5),
                 ["BEGIN@0.0", "result1@0.6", "ORTH@0.6"]),

        Scenario("front-on needs |yaw| < 10, not <= 10", .english(),
                 MeasurementScript(fps: 10)
                    .with(.yaw(10)).hold(0.5)
                    .with(.yaw(9.9)).hold(0.4),
                 ["BEGIN@0.0", "result1@0.8", "ORTH@0.8"]),
    ]

    @Test(arguments: scenarios)
    func flow(_ scenario: Scenario) {
        #expect(run(scenario.script, scenario.configuration) == scenario.expected)
    }

    @Test func hintsFollowTheCardTypeAndLanguage() {
        let session2018 = makeSession(.english(.hkid2018))
        let events2018 = session2018.startDetect() + session2018.play(Self.genuine)
        let hints2018 = events2018.compactMap { event -> String? in
            guard case .operation(let command) = event else { return nil }
            return command.nextOperationHint
        }
        #expect(hints2018 == [
            "Place the front of the card inside the frame",
            "Slowly rotate the card to the right",
            "Right rotation recognised, bring the card back to the front",
            "Slowly rotate the card to the left",
            "Detection complete",
        ])

        let session2003 = makeSession(LivenessConfiguration(cardType: .hkid2003))
        let events2003 = session2003.startDetect() + session2003.play(
            MeasurementScript(fps: 10).front(0.5).turn(.pitch, to: 30, over: 0.5).turn(.pitch, to: 0, over: 0.5).hold(0.3))
        let hints2003 = events2003.compactMap { event -> HintKey? in
            guard case .operation(let command) = event else { return nil }
            return command.hintKey
        }
        #expect(hints2003 == [.place, .up, .upDone, .down])
        guard case .operation(let begin) = events2003.first else {
            Issue.record("no BEGIN")
            return
        }
        #expect(begin.nextOperationHint == "請將身份證正面置於掃描框內")
    }

    @Test func resultsCarryStillsAndEvidence() throws {
        let session = makeSession()
        let results = (session.startDetect() + session.play(Self.genuine)).compactMap { event -> LivenessResult? in
            guard case .result(let result) = event else { return nil }
            return result
        }
        try #require(results.count == 2)
        let (first, success) = (results[0], results[1])
        #expect(first.code == .first && first.message == "first" && !first.success)
        #expect(first.images.map(\.kind) == [.card])
        #expect(success.success && success.retCode == 0 && success.message == "")
        #expect(success.images.map(\.kind) == [.card, .head])
        #expect(success.imageDataArray.count == 2)

        let delta = try #require(success.delta.data(using: .utf8))
        let evidence = try JSONDecoder().decode(DetectionEvidence.self, from: delta)
        #expect(evidence.cardType == "2018")
        #expect(evidence.frontOn?.t == 0.3)
        #expect(evidence.firstRotation == .init(t: 0.9, yaw: 30, pitch: 0))
        #expect(evidence.firstRotationPeak == 30)
        #expect(evidence.backToFront?.t == 1.5)
        #expect(evidence.secondRotation == .init(t: 2.2, yaw: -30, pitch: 0))
        #expect(evidence.secondRotationPeak == 30)
        #expect(evidence.peakSpeed == 60)
        #expect(evidence.framesAnalysed == 23)
        #expect(success.delta == evidence.jsonString())
    }

    /// A program that keeps no pictures turns the stills off: the same
    /// results, in the same order, with no images.
    @Test func resultsWithoutStillsWhenTurnedOff() throws {
        var configuration = LivenessConfiguration.english()
        configuration.encodesResultStills = false
        let session = makeSession(configuration)
        let results = (session.startDetect() + session.play(Self.genuine)).compactMap { event -> LivenessResult? in
            guard case .result(let result) = event else { return nil }
            return result
        }
        #expect(results.map(\.retCode) == [1, 0])
        #expect(results.allSatisfy { $0.images.isEmpty && $0.imageDataArray.isEmpty })
    }
}

import Foundation
