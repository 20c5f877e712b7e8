// NearCutCardTests.swift — a card held so near the webcam that
// the frame cuts it, whose sides fade into what lies behind before they
// reach the border.
//
// A 2003 card 0.92 of the frame wide, out of focus, its bottom beyond the
// frame's bottom border. Around it the upper half of the frame is a darker
// wall and the lower half as light as the card's face (a white shirt, a
// pale wall): its sides are edges only in the upper half, so the U of its
// top and two sides has legs that end in the middle of the frame, and
// nothing closes it there. The coarse look then puts the hidden side
// beyond the border where the card's shape says (search_cut_by_shape), and
// the card is followed as a near card (NEAR) instead of not at all.
//
// Of 24 such scenes (seeds 481-504) the tracker follows the card (IoU ≥
// 0.95 on at least 15 of 20 frames) in 16, in 12 without that stage; in
// most of the others it follows a quad closed across the print, 0.85 of
// the frame wide. These are the four that stage added.
import CCardRender
import CCardVision
import Testing

@Suite
struct NearCutCardTests {
    @Test(arguments: [481, 483, 487, 497])
    func aNearCardWhoseSidesFadeIsFoundCutByTheFrame(seed: Int) {
        let scenes = Scenes(seed: UInt64(seed))
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.92, scene: s)
        // The card's centre 0.09 of its height below the frame's: a tenth
        // of the card lies beyond the bottom border.
        s.center_y = 359.5 + 0.09 * 0.92 * 1280 / 1.586
        s.blur_sigma = 3
        let tracker = Tracker(cardType: HKCV_CARD_2003)
        var followed = 0
        var last = hkcv_measurement()
        for index in 0..<20 {
            s.pitch_deg = Double(index % 3) - 1
            let frame = scenes.render(s).repaintedAroundCard { _, y in y < 360 ? 110 : 224 }
            last = tracker.process(frame, pts: Int64(index) * 33_333_333)
            if last.found == 1 && jaccard(floats(last.corners), frame.truthCorners) >= 0.95 { followed += 1 }
        }
        #expect(followed >= 15, "the near card is followed on \(followed) of 20 frames")
        #expect(last.found == 1 && last.touches_border == 1 && last.width_ratio > 0.85,
                "followed as a near card cut by the frame (width \(last.width_ratio))")
    }
}
