// CardInsideAnOutlineTests.swift — a card inside a larger card-shaped
// outline: a phone's screen held near, showing a recording of a card
// (Tracker::card_inside).
//
// The screen's edge against its dark bezel is a long, straight outline of
// about a card's shape, and it outranks the card shown on it by its size.
// The screen's inside is searched again at a finer scale, and the card
// found there, better outlined than the screen and inset from all its
// sides, is the one followed: the liveness checks then judge the card on
// the screen, not a quad of its bezel. A near card is not traded for a box
// of its own print.
import CCardRender
import CCardVision
import Foundation
import Testing

@Suite
struct CardInsideAnOutlineTests {
    /// A phone's screen filling most of a 1280x720 view, its bezel 0.03 to
    /// 0.15 of the width, playing a recording of a card a quarter to half
    /// the recording's width: the card is followed from the first frame,
    /// IoU 0.9 or better on all 8 frames. (Before: the screen's outline, IoU
    /// 0.07-0.29, on every frame.)
    @Test(arguments: [
        (seed: UInt64(28), card: CR_CARD_2018, bezel: 0.03, ratio: 0.5, yaw: -3.0, pitch: -6.0),
        (seed: UInt64(32), card: CR_CARD_2018, bezel: 0.03, ratio: 0.4, yaw: 4.0, pitch: 4.0),
        (seed: UInt64(35), card: CR_CARD_2003, bezel: 0.15, ratio: 0.25, yaw: 4.0, pitch: 3.0),
    ])
    func theCardOnAScreenIsFollowedNotTheScreen(
        scene: (seed: UInt64, card: cr_card_type, bezel: Double, ratio: Double, yaw: Double, pitch: Double)
    ) {
        let scenes = Scenes(seed: scene.seed)
        var start = scenes.scene(width: 1280, height: 720)
        start.material = CR_MATERIAL_SCREEN
        start.card_type = scene.card
        start.screen_bezel = scene.bezel
        start.distance_mm = Scenes.distance(forWidthRatio: scene.ratio, scene: start)
        start.yaw_deg = scene.yaw
        start.pitch_deg = scene.pitch
        var ious: [Double] = []
        let run = follow(scenes, start, frames: 8, change: { s, k in s.yaw_deg = scene.yaw + 0.3 * Double(k) },
                         each: { _, iou, _ in ious.append(iou) })
        #expect(run.lost == 0 && run.worstIoU >= 0.9, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }

    /// A genuine 2018 card held near (0.8 of a 640x480 view, turned 11
    /// degrees both ways): the top of its portrait, closed by a line across
    /// the face, is a landscape box of about a card's shape inset from all
    /// the card's sides, but less clearly outlined than the card, so the
    /// card is followed. (Taking any such box put the portrait's top first,
    /// IoU 0.13.)
    @Test func aNearCardIsNotTradedForTheTopOfItsPortrait() {
        let scenes = Scenes(seed: 141)
        var start = scenes.scene(width: 640, height: 480)
        start.card_type = CR_CARD_2018
        start.distance_mm = Scenes.distance(forWidthRatio: 0.8, scene: start)
        start.yaw_deg = 11
        start.pitch_deg = -11
        var ious: [Double] = []
        let run = follow(scenes, start, frames: 8, change: { s, k in s.yaw_deg = 11 + 0.3 * Double(k) },
                         each: { _, iou, _ in ious.append(iou) })
        #expect(run.lost == 0 && run.worstIoU >= 0.9, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }
}
