import Foundation
@testable import HKIDLiveness
import Testing

/// `challenge: random` (issue 13): the first rotation's direction is drawn at
/// every startDetect, announced through ORTH / LEFTDOWN with the matching
/// hints, recorded in `delta.challenge`, and a recording made for the other
/// draw never completes.
@Suite("Challenge")
struct ChallengeTests {
    /// The flow of `FlowTests.genuine` with the first rotation's sign given:
    /// +1 is the SDK's direction (right / up), -1 the opposite.
    static func recording(_ card: CardType, firstSign: Double) -> MeasurementScript {
        let axis: MeasurementScript.Axis = card == .hkid2018 ? .yaw : .pitch
        return MeasurementScript(fps: 10)
            .front(0.5)
            .turn(axis, to: 30 * firstSign, over: 0.5)
            .turn(axis, to: 0, over: 0.5)
            .hold(0.3)
            .turn(axis, to: -30 * firstSign, over: 0.5)
    }

    static func commands(_ events: [LivenessEvent]) -> [String] {
        events.compactMap { event in
            guard case .operation(let command) = event else { return nil }
            return "\(command.currentStatus.name):\(command.hintKey.rawValue)"
        }
    }

    static func random(_ card: CardType, seed: UInt64, overtime: Double = 30) -> LivenessConfiguration {
        .english(card) {
            $0.challenge = .random
            $0.challengeSeed = seed
            $0.overtimeSeconds = overtime
        }
    }

    /// The first seed (from 0) whose session draws `first` at its first startDetect.
    static func seed(drawing first: RotationDirection, card: CardType) throws -> UInt64 {
        for seed in UInt64(0)..<64 {
            let session = makeSession(random(card, seed: seed))
            session.startDetect()
            if session.evidence.challenge?.first == first { return seed }
        }
        throw DrawNotFound()
    }

    struct DrawNotFound: Error {}

    /// Both draws of each card type, driven through `LivenessSession` with
    /// measurements: the announced direction, its hints, the flow to success,
    /// the challenge in delta.
    @Test(arguments: [
        (CardType.hkid2018, RotationDirection.right, ["BEGIN:place", "ORTH:right", "RESET:right_done", "LEFTDOWN:left", "COMPLETE:complete"]),
        (CardType.hkid2018, RotationDirection.left, ["BEGIN:place", "ORTH:left", "RESET:place", "LEFTDOWN:right", "COMPLETE:complete"]),
        (CardType.hkid2003, RotationDirection.up, ["BEGIN:place", "ORTH:up", "RESET:up_done", "LEFTDOWN:down", "COMPLETE:complete"]),
        (CardType.hkid2003, RotationDirection.down, ["BEGIN:place", "ORTH:down", "RESET:place", "LEFTDOWN:up", "COMPLETE:complete"]),
    ])
    func randomChallengeDrivesTheFlow(card: CardType, first: RotationDirection, hints: [String]) throws {
        let seed = try Self.seed(drawing: first, card: card)
        let session = makeSession(Self.random(card, seed: seed))
        let events = session.startDetect() + session.play(Self.recording(card, firstSign: first == .right || first == .up ? 1 : -1))
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5", "COMPLETE@2.2", "result0@2.2"])
        #expect(Self.commands(events) == hints)
        guard case .result(let success) = events.last else { Issue.record("no result"); return }
        let delta = try JSONDecoder().decode(DetectionEvidence.self, from: Data(success.delta.utf8))
        #expect(delta.challenge == RotationChallenge(kind: .random, first: first, second: first.opposite))
        #expect(delta.firstRotationPeak == 30 && delta.secondRotationPeak == 30)
        #expect(success.delta.contains(#""challenge":{"first":"\#(first.rawValue)","kind":"random","second":"\#(first.opposite.rawValue)"}"#))
    }

    /// `firstRotation` replaces the draw (a replay of a recorded random
    /// challenge asks what the holder was asked): with a seed whose draw is
    /// the other direction, the session still asks for the given one at
    /// every startDetect, and the recording made for it completes.
    @Test(arguments: [
        (CardType.hkid2018, RotationDirection.right, ["BEGIN:place", "ORTH:right", "RESET:right_done", "LEFTDOWN:left", "COMPLETE:complete"]),
        (CardType.hkid2018, RotationDirection.left, ["BEGIN:place", "ORTH:left", "RESET:place", "LEFTDOWN:right", "COMPLETE:complete"]),
        (CardType.hkid2003, RotationDirection.down, ["BEGIN:place", "ORTH:down", "RESET:place", "LEFTDOWN:up", "COMPLETE:complete"]),
    ])
    func aGivenFirstRotationReplacesTheDraw(card: CardType, first: RotationDirection, hints: [String]) throws {
        let seed = try Self.seed(drawing: first.opposite, card: card)
        var configuration = Self.random(card, seed: seed)
        configuration.firstRotation = first
        let session = makeSession(configuration)
        let events = session.startDetect() + session.play(Self.recording(card, firstSign: first.sign))
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9", "LEFTDOWN@1.5", "COMPLETE@2.2", "result0@2.2"])
        #expect(Self.commands(events) == hints)
        #expect(session.evidence.challenge == RotationChallenge(kind: .random, first: first, second: first.opposite))
        for _ in 0..<8 {
            session.startDetect()
            #expect(session.evidence.challenge?.first == first)
        }
        // The fixed challenge ignores it: the SDK's direction.
        var fixed = LivenessConfiguration.english(card)
        fixed.firstRotation = first
        let sdk = makeSession(fixed)
        sdk.startDetect()
        #expect(sdk.evidence.challenge == RotationChallenge.fixed(card))
        #expect(card.rotationDirections == [RotationChallenge.fixed(card).first, RotationChallenge.fixed(card).second])
    }

    /// A recording made for the other draw turns the wrong way first. Under
    /// `enforce` that ends the session with 5 on the second frame past the
    /// threshold (a `challenge` check in `delta.liveness`): otherwise a
    /// recording that turns one way, the other, and back again would pass
    /// either draw. Under `report` the wrong turn does nothing, its second
    /// turn (the asked-for first one) reaches RESET, and overtime ends it.
    @Test(arguments: [RotationDirection.right, .left])
    func recordingForTheOtherDrawIsRefused(asked: RotationDirection) throws {
        let seed = try Self.seed(drawing: asked, card: .hkid2018)
        let recordedFirst: Double = asked == .right ? -1 : 1
        let recording = Self.recording(.hkid2018, firstSign: recordedFirst).hold(1.0)

        let enforced = makeSession(Self.random(.hkid2018, seed: seed, overtime: 3))
        let events = enforced.startDetect() + enforced.play(recording)
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result5@0.9"])
        #expect(enforced.phase == .ended(.spoof))
        let challenge = enforced.evidence.liveness?.checks.first { $0.name == "challenge" }
        #expect(challenge?.verdict == .fail && challenge?.score == 30 && challenge?.threshold == 20)
        #expect(enforced.evidence.liveness?.verdict == .spoof)

        var reportOnly = Self.random(.hkid2018, seed: seed, overtime: 3)
        reportOnly.liveness = .report
        let reported = makeSession(reportOnly)
        let reportedEvents = reported.startDetect() + reported.play(recording)
        #expect(summaries(reportedEvents) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@2.2", "result4@3.0"])
        #expect(reported.phase == .ended(.overtime))
    }

    /// The fixed flow keeps the SDK's rule: a wrong direction first is
    /// simply not counted (dev_wrong_direction_first completes).
    @Test func fixedFlowWaitsThroughAWrongFirstTurn() {
        let session = makeSession(.english(.hkid2018) { $0.overtimeSeconds = 3 })
        let events = session.startDetect() + session.play(Self.recording(.hkid2018, firstSign: -1).hold(1.0))
        #expect(summaries(events) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@2.2", "result4@3.0"])
    }

    /// Each startDetect draws again; the same seed gives the same draws.
    @Test func drawsPerAttemptAndReproducibly() {
        func draws(seed: UInt64) -> [RotationDirection] {
            let session = makeSession(Self.random(.hkid2018, seed: seed))
            return (0..<16).compactMap { _ in
                session.startDetect()
                return session.evidence.challenge?.first
            }
        }
        let a = draws(seed: 7)
        #expect(a == draws(seed: 7))
        #expect(a.count == 16 && Set(a) == [.right, .left])
        #expect(a != draws(seed: 8))
    }

    /// The default is the SDK's flow: right then left, the same events and
    /// hints as before the challenge existed, and a left-first recording
    /// never gets past ORTH.
    @Test func fixedDefaultIsUnchanged() throws {
        #expect(LivenessConfiguration().challenge == .fixed)
        let session = makeSession()
        let events = session.startDetect() + session.play(FlowTests.genuine)
        #expect(summaries(events) == FlowTests.scenarios[0].expected)
        #expect(Self.commands(events) == ["BEGIN:place", "ORTH:right", "RESET:right_done", "LEFTDOWN:left", "COMPLETE:complete"])
        #expect(session.evidence.challenge == RotationChallenge(kind: .fixed, first: .right, second: .left))

        // Restarts never draw: always right first.
        for _ in 0..<8 {
            session.startDetect()
            #expect(session.evidence.challenge?.first == .right)
        }

        let reversed = makeSession(.english { $0.overtimeSeconds = 2 })
        let stuck = reversed.startDetect() + reversed.play(MeasurementScript(fps: 10).front(0.5).turn(.yaw, to: -30, over: 0.5).hold(1.5))
        #expect(summaries(stuck) == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "result4@2.0"])
    }

    /// The pure machine takes the challenge at start; one for the other card
    /// type's axis falls back to the SDK's flow.
    @Test func machineTakesTheChallengeAtStart() {
        var machine = LivenessStateMachine(configuration: .english(.hkid2003))
        var events = machine.start(at: nil, challenge: .random(.hkid2003, reversed: true))
        for frame in Self.recording(.hkid2003, firstSign: -1).frames {
            events += machine.process(frame.card, at: frame.pts)
        }
        #expect(events.contains(.operation(.orth, .down, at: MediaTime(seconds: 0.3))))
        #expect(events.contains(.operation(.reset, .place, at: MediaTime(seconds: 0.9))))
        #expect(events.contains(.operation(.leftDown, .up, at: MediaTime(seconds: 1.5))))
        #expect(events.last == .result(.success, at: MediaTime(seconds: 2.2)))

        _ = machine.start(at: nil, challenge: .random(.hkid2018, reversed: true))
        #expect(machine.challenge == .fixed(.hkid2003))
    }
}
