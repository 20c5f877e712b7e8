// UprightCardTests.swift — a card held upright (rolled by about 90 degrees),
// as a card lying on a desk is when a phone photographs it in portrait.
//
// The search answers with an upright quad only when no quad held landscape
// is found, or only a box printed on it (RankedQuads, detect.cpp); on the
// first search such a quad is weighed against the coarse look's card
// (Tracker::look_coarsely); followed from frame to frame, the card's top
// stays on the same long side.
import CCardRender
import CCardVision
import Foundation
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

    /// A card lying upright on a patterned desk, seen from above by a phone
    /// held in portrait (720x1280) and tilted by 10-25 degrees. The end of
    /// the card that holds the portrait, cut off by the portrait's edge (or,
    /// with bold printed boxes, by the frame round it), is a landscape quad
    /// of about a card's shape: the coarse look finds it where the fine
    /// search finds the whole card alone, or the fine search finds both.
    /// The whole card outranks it and encloses it, and is taken from the
    /// first frame; the end is never followed.
    @Test(arguments: [
        (seed: UInt64(2), card: CR_CARD_2018, boxes: false, roll: -92.2, yaw: -14.9, pitch: -18.2, distance: 167.4),
        (seed: UInt64(5), card: CR_CARD_2003, boxes: false, roll: 84.8, yaw: -18.4, pitch: 14.5, distance: 191.7),
        (seed: UInt64(7), card: CR_CARD_2003, boxes: false, roll: -89.7, yaw: -5.8, pitch: -19.2, distance: 137.8),
        (seed: UInt64(3), card: CR_CARD_2003, boxes: true, roll: -87.0, yaw: -10.2, pitch: 12.6, distance: 144.2),
        (seed: UInt64(6), card: CR_CARD_2018, boxes: true, roll: -84.9, yaw: 20.0, pitch: -24.8, distance: 119.0),
    ])
    func anUprightCardIsTakenWholeOnTheFirstFrame(
        scene: (seed: UInt64, card: cr_card_type, boxes: Bool, roll: Double, yaw: Double, pitch: Double, distance: Double)
    ) {
        let scenes = Scenes(seed: scene.seed)
        var start = scenes.scene(width: 720, height: 1280)
        start.card_type = scene.card
        start.inner_frames = scene.boxes ? 1 : 0
        start.roll_deg = scene.roll
        start.yaw_deg = scene.yaw
        start.pitch_deg = scene.pitch
        start.distance_mm = scene.distance
        var ious: [Double] = []
        let run = follow(scenes, start, frames: 10, change: { s, k in
            s.yaw_deg = scene.yaw + 0.3 * Double(k)
        }, each: { _, iou, _ in ious.append(iou) })
        #expect(run.lost == 0 && run.worstIoU >= 0.95, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }
}
