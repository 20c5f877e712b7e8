// UprightCardTests.swift — a card held upright (rolled by about 90 degrees),
// as a card lying on a desk is when a phone photographs it in portrait.
//
// The search answers with an upright quad only when no quad held landscape
// is found, or only a box printed on it (RankedQuads, detect.cpp); followed
// from frame to frame, the card's top stays on the same long side.
import CCardRender
import CCardVision
import Testing

@Suite
struct UprightCardTests {
    /// A 2018 card rolled by `roll` degrees, a quarter of the view wide
    /// along its long side, turning slowly by a few degrees over a second:
    /// found from the first frame on, IoU 0.95 or better on every frame, and
    /// reported upright with the same top side throughout.
    @Test(arguments: [88.0, -92.0])
    func anUprightCardIsFollowedWithSteadyLabels(roll: Double) {
        let scenes = Scenes(seed: 61)
        var start = scenes.scene(width: 720, height: 1280)
        start.card_type = CR_CARD_2018
        start.roll_deg = roll
        start.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: start)
        var rolls: [Float] = []
        let run = follow(scenes, start, frames: 30, change: { s, k in
            s.yaw_deg = 0.2 * Double(k)
            s.pitch_deg = 3 - 0.1 * Double(k)
        }, each: { m, _, _ in
            if m.found == 1 { rolls.append(m.roll) }
        })
        #expect(run.lost == 0, "not found on \(run.lost) of 30 frames")
        #expect(run.worstIoU >= 0.95, "worst IoU \(run.worstIoU)")
        let first = rolls.first ?? 0
        #expect(abs(abs(first) - 90) < 10, "reported roll \(first)")
        #expect(rolls.allSatisfy { abs($0 - first) < 10 }, "roll per frame: \(rolls)")
    }
}
