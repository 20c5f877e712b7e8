@testable import HKIDLiveness
import Testing

/// How the checks' scores become one verdict (docs/liveness.md): which
/// check fails on what, interim against final verdicts, and the spoof score
/// the ROC curves are drawn with.
@Suite("Liveness verdict")
struct LivenessReportTests {
    static let thresholds = LivenessThresholds()

    static func evidence(frames: Int = 60, shift: Double? = 20, chroma: Double? = 30,
                         black: Double? = 0.02, grid: Double? = nil, gridFrames: Int? = nil) -> LivenessEvidence {
        LivenessEvidence(frames: frames, frontFrames: frames / 2, turnedFrames: frames / 4,
                         opticallyVariableShift: shift, opticallyVariableArea: shift.map { _ in 0.02 },
                         chroma: chroma, blackLevel: black, finePrint: 0.07, screenGrid: grid,
                         gridFrames: gridFrames ?? (grid == nil ? 0 : frames / 3))
    }

    static func verdict(_ e: LivenessEvidence?, final: Bool = true, mode: LivenessMode = .enforce) -> LivenessReport {
        LivenessReport(evidence: e, thresholds: thresholds, mode: mode, final: final)
    }

    static func check(_ v: LivenessReport, _ name: String) -> LivenessCheck.Verdict? {
        v.checks.first { $0.name == name }?.verdict
    }

    @Test func eachCheckFailsOnTheAttackItTargets() {
        let card = Self.verdict(Self.evidence())
        #expect(card.verdict == .genuine && !card.endsSession)
        #expect(card.checks.map(\.verdict) == [.pass, .pass, .pass, .unmeasured])

        let copy = Self.verdict(Self.evidence(shift: 1.2))  // frozen hologram
        #expect(copy.verdict == .spoof && copy.endsSession)
        #expect(Self.check(copy, "opticallyVariable") == .fail && Self.check(copy, "blackLevel") == .pass)

        let screen = Self.verdict(Self.evidence(shift: 12, black: 0.33))  // lifted black
        #expect(screen.verdict == .spoof)
        #expect(Self.check(screen, "blackLevel") == .fail && Self.check(screen, "opticallyVariable") == .pass)

        let grey = Self.verdict(Self.evidence(chroma: 1.3))
        #expect(grey.verdict == .spoof && Self.check(grey, "chroma") == .fail)

        // Report mode keeps the verdict and never ends the session.
        let reported = Self.verdict(Self.evidence(shift: 1.2), mode: .report)
        #expect(reported.verdict == .spoof && !reported.endsSession)
    }

    @Test func screenGridFailsAScreenButNeverFailsUnmeasured() {
        // A screen filling the view: its black is the darkest in view and the
        // recording's hologram moves; only its pixel grid is left.
        let screen = Self.verdict(Self.evidence(shift: 12, black: 0, grid: 80))
        #expect(screen.verdict == .spoof && screen.endsSession)
        #expect(Self.check(screen, "screenGrid") == .fail && Self.check(screen, "blackLevel") == .pass)
        let card = Self.verdict(Self.evidence(grid: 9))
        #expect(card.verdict == .genuine && Self.check(card, "screenGrid") == .pass)
        // A card too small to show a grid (far, or a small frame) is no
        // evidence of a screen: the final verdict does not fail it.
        let small = Self.verdict(Self.evidence(grid: nil))
        #expect(small.verdict == .genuine && Self.check(small, "screenGrid") == .unmeasured)
        // Early, it is judged once a second of tracked frames was measured
        // (one in three): 9 measured frames wait, 10 decide.
        let waiting = Self.verdict(Self.evidence(shift: nil, black: 0, grid: 80, gridFrames: 9), final: false)
        #expect(waiting.verdict == .pending && Self.check(waiting, "screenGrid") == .pending)
        let judged = Self.verdict(Self.evidence(shift: nil, black: 0, grid: 80, gridFrames: 10), final: false)
        #expect(judged.verdict == .spoof && Self.check(judged, "screenGrid") == .fail)
    }

    @Test func finalVerdictFailsWhatWasNeverMeasured() {
        // The flow completed but no pose bin pair held the card: a card that
        // never showed optically variable print does not pass.
        let v = Self.verdict(Self.evidence(shift: nil))
        #expect(v.verdict == .spoof)
        #expect(Self.check(v, "opticallyVariable") == .unmeasured)
    }

    @Test func interimVerdictJudgesOnlyWhatNeedsNoRotation() {
        // The optically variable check waits for the final verdict, even
        // when a score exists: a pair of bins with two frames each is not
        // yet the evidence of a whole rotation.
        let early = Self.verdict(Self.evidence(shift: 1.0), final: false)
        #expect(early.verdict == .pending && !early.endsSession)
        #expect(Self.check(early, "opticallyVariable") == .pending)

        // A lifted black needs minimumFrames tracked frames before it may end a session...
        let tooSoon = Self.verdict(Self.evidence(frames: 29, black: 0.4), final: false)
        #expect(tooSoon.verdict == .pending && Self.check(tooSoon, "blackLevel") == .pending)
        // The spoof score still ranks it by what it showed (0.4 / 0.14 -> 0.741).
        #expect(tooSoon.spoofScore == 0.741)
        // ...and then it does.
        let screen = Self.verdict(Self.evidence(frames: 30, black: 0.4), final: false)
        #expect(screen.verdict == .spoof && screen.endsSession)
    }

    @Test func noPixelsIsUnmeasuredNotSpoof() {
        for final in [true, false] {
            let v = Self.verdict(nil, final: final)
            #expect(v.verdict == .unmeasured && !v.endsSession && v.checks.isEmpty && v.spoofScore == 0.5)
        }
        #expect(Self.verdict(LivenessEvidence()).verdict == .unmeasured)
    }

    @Test func spoofScoreIsHalfAtTheThresholdAndGrowsWithTheEvidence() {
        let atThreshold = Self.verdict(Self.evidence(shift: Self.thresholds.opticallyVariableShift))
        #expect(atThreshold.spoofScore == 0.5 && atThreshold.verdict == .genuine)
        let scores = [40.0, 20, 8, 4, 1].map { Self.verdict(Self.evidence(shift: $0)).spoofScore }
        #expect(scores == scores.sorted() && Set(scores).count == scores.count)
        // The worst check decides.
        let both = Self.verdict(Self.evidence(shift: 3, black: 0.66)).spoofScore
        #expect(both == Self.verdict(Self.evidence(black: 0.66)).spoofScore)
    }

    /// A screen replay that never completes the flow is stopped by the
    /// interim verdict on the 30th tracked frame, before any rotation.
    @Test func machineStopsAScreenBeforeTheFlowCompletes() {
        var machine = LivenessStateMachine(configuration: .english())
        var events = machine.start(at: nil)
        var reads = 0
        let screen = Self.evidence(frames: 30, shift: nil, black: 0.4)
        for k in 0..<45 {
            let t = MediaTime(seconds: Double(k) / 30)
            events += machine.process(MeasurementScript.frontPose, at: t, liveness: {
                reads += 1
                return screen
            })
        }
        let spoof = MediaTime(seconds: 29.0 / 30)
        #expect(events.last == .result(.spoof, at: spoof))
        #expect(machine.phase == .ended(.spoof))
        #expect(machine.evidence.liveness?.checks.first { $0.name == "blackLevel" }?.verdict == .fail)
        #expect(reads == 1)  // read on the 30th tracked frame only

        // In report mode the same evidence lets the flow go on.
        var configuration = LivenessConfiguration.english()
        configuration.liveness = .report
        var reporting = LivenessStateMachine(configuration: configuration)
        var reported = reporting.start(at: nil)
        for k in 0..<45 {
            reported += reporting.process(MeasurementScript.frontPose, at: MediaTime(seconds: Double(k) / 30),
                                          liveness: { screen })
        }
        #expect(!reported.contains { if case .result(.spoof, _) = $0 { true } else { false } })
        #expect(reporting.phase == .awaitingFirstRotation)
    }
}
