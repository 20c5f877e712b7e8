import Foundation

/// Where the card is at a moment of the script: the scripted moves eased
/// in and out, plus what a hand adds (tremor and slow drift).
struct HandMotion {
    struct State {
        var x: Double, y: Double, distance: Double, yaw: Double, pitch: Double, roll: Double
    }

    private struct Segment {
        var start: Double
        var end: Double
        var from: State
        var to: State
    }

    private let segments: [Segment]
    private let hand: Scenario.Hand
    private let width: Double
    private let height: Double
    /// Phases of the tremor and drift oscillators, fixed by the seed.
    private let phases: [Double]

    init(_ scenario: Scenario) {
        var state = State(x: scenario.pose.x, y: scenario.pose.y, distance: scenario.pose.distance,
                          yaw: scenario.pose.yaw, pitch: scenario.pose.pitch, roll: scenario.pose.roll)
        var t = 0.0
        var segments: [Segment] = []
        for move in scenario.moves {
            var next = state
            if let to = move.to {
                next.x = to.x ?? state.x
                next.y = to.y ?? state.y
                next.distance = to.distance ?? state.distance
                next.yaw = to.yaw ?? state.yaw
                next.pitch = to.pitch ?? state.pitch
                next.roll = to.roll ?? state.roll
            }
            let length = move.hold ?? move.over ?? 0
            segments.append(Segment(start: t, end: t + length, from: state, to: next))
            t += length
            state = next
        }
        self.segments = segments
        hand = scenario.hand
        width = Double(scenario.width)
        height = Double(scenario.height)
        var generator = SplitMix64(seed: scenario.seed ^ 0x9E37_79B9_7F4A_7C15)
        phases = (0..<16).map { _ in Double(generator.next() % 10_000) / 10_000 * 2 * .pi }
    }

    /// The pose at time t, in frame pixels (x, y) and degrees.
    func state(at t: Double) -> State {
        let segment = segments.first { t < $0.end } ?? segments[segments.count - 1]
        let span = segment.end - segment.start
        let s = span > 0 ? min(max((t - segment.start) / span, 0), 1) : 1
        // Smootherstep: zero velocity and acceleration at both ends, as a
        // wrist starts and stops a turn.
        let e = s * s * s * (s * (s * 6 - 15) + 10)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * e }
        let a = segment.from, b = segment.to
        var state = State(x: mix(a.x, b.x) * width, y: mix(a.y, b.y) * height, distance: mix(a.distance, b.distance),
                          yaw: mix(a.yaw, b.yaw), pitch: mix(a.pitch, b.pitch), roll: mix(a.roll, b.roll))
        // Physiological tremor (8–12 Hz) on top of a slow drift (~0.2 Hz).
        func wave(_ index: Int, _ hz: Double) -> Double { sin(2 * .pi * hz * t + phases[index]) }
        state.yaw += hand.tremor_deg * 0.6 * (wave(0, 9.1) + wave(1, 11.3)) / 1.2
        state.pitch += hand.tremor_deg * 0.6 * (wave(2, 8.7) + wave(3, 10.9)) / 1.2
        state.roll += hand.tremor_deg * 0.5 * wave(4, 9.7)
        state.x += hand.tremor_px * wave(5, 10.1) + hand.drift_px * wave(6, 0.17)
        state.y += hand.tremor_px * wave(7, 9.3) + hand.drift_px * 0.7 * wave(8, 0.23)
        return state
    }
}

/// Small, fast, seedable generator so the samples do not depend on the
/// platform's random number generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
