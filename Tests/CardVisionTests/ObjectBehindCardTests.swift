// ObjectBehindCardTests.swift — issue 39: a side of the card must not be
// taken from an object behind it.
//
// A card (or a copy of one printed on paper) lies on a white sheet whose
// corner is a few millimetres beyond the card's own top-left corner: the
// sheet's edges against the dark desk are far stronger than the card's
// edges against the sheet, and the band between is as light as the card's
// margin. The search finds the card; widening its sides to the card's edge
// (widen_to_card_edge, for a side found on a rule printed inside the card)
// must not move them out to the sheet's edges, which run on past the card's
// corners (the tracked quad with its top and left sides on the sheet's
// edges has IoU 0.86 here, 0.80-0.83 on real phone photographs of such a
// scene).
import CCardRender
import CCardVision
import Testing

@Suite
struct ObjectBehindCardTests {
    /// Paints everything outside the card's true outline: a sheet (luma `sheet`) from
    /// `margin` (a share of the card's width and height) beyond its top-left
    /// corner to past the frame's right and bottom border, and a dark desk
    /// elsewhere. Luma and both colour planes (neutral grey).
    static func onSheet(_ frame: Frame, margin: Double, sheet: UInt8 = 232) -> Frame {
        let card = CardOutline(frame)
        let xs = card.xs, ys = card.ys
        let sheetX = xs[0] - margin * (xs[1] - xs[0]), sheetY = ys[0] - margin * (ys[3] - ys[0])
        return frame.repaintedAroundCard { x, y in x >= sheetX && y >= sheetY ? sheet : 38 }
    }

    @Test func sidesAreNotWidenedOntoTheSheetUnderTheCard() {
        let card = CR_CARD_2018
        let scenes = Scenes(seed: 39)
        var s = scenes.scene()
        s.card_type = card
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.yaw_deg = 4
        s.pitch_deg = -3
        let tracker = Tracker(cardType: card == CR_CARD_2003 ? HKCV_CARD_2003 : HKCV_CARD_2018)
        var m = hkcv_measurement()
        var frame = scenes.render(s)
        for index in 0..<5 {
            frame = Self.onSheet(scenes.render(s), margin: 0.07)
            m = tracker.process(frame, pts: Int64(index) * 33_333_333)
        }
        #expect(m.found == 1, "the card on the sheet is found")
        let iou = m.found == 1 ? jaccard(floats(m.corners), frame.truthCorners) : 0
        #expect(iou >= 0.95, "IoU \(iou): the card's own outline, not the sheet's corner")
    }
}

extension ObjectBehindCardTests {
    /// A sheet in shade, darker than the card's white: the quad closed by
    /// the sheet's two edges round the card is bigger than the card, its
    /// sides are strong edges and its corners turn, and the search ranks by
    /// size (without preferring the card it took a quad 0.87-0.92 of the
    /// card). Its two sides on the sheet's edges run on past its corners
    /// with the same step across them; the card's own do not, so the card
    /// is taken.
    @Test(arguments: [0.05, 0.08])
    func theSheetsEdgesDoNotCloseTheCardsOutline(margin: Double) {
        let card = CR_CARD_2003
        let scenes = Scenes(seed: 391)
        var s = scenes.scene()
        s.card_type = card
        s.distance_mm = Scenes.distance(forWidthRatio: 0.4, scene: s)
        s.yaw_deg = -3
        s.pitch_deg = 4
        let tracker = Tracker(cardType: HKCV_CARD_2003)
        var m = hkcv_measurement()
        var frame = scenes.render(s)
        for index in 0..<5 {
            frame = Self.onSheet(scenes.render(s), margin: margin, sheet: 190)
            m = tracker.process(frame, pts: Int64(index) * 33_333_333)
        }
        #expect(m.found == 1, "the card on the sheet is found")
        let iou = m.found == 1 ? jaccard(floats(m.corners), frame.truthCorners) : 0
        #expect(iou >= 0.95, "IoU \(iou): the card's outline, not the sheet's corner \(margin) of the card beyond it")
    }
}

extension ObjectBehindCardTests {
    /// A grey copy of a card lying a little way into the corner of a white
    /// sheet: the sheet is lighter than the copy, its edges against the desk
    /// are the strongest in view, and the quad they close round the card is
    /// card-shaped and larger by the margin: by size it outranks the card by
    /// more than its two run-on ends cost (the sheet's quad was followed at
    /// all three margins, IoU 0.77-0.83, before the card's support was
    /// compared with it). The card lies in that quad's corner, and at the
    /// quad's two other corners next to it the sheet's edge goes on while
    /// the card's side stops short: the card is taken.
    @Test(arguments: [0.09, 0.11, 0.13])
    func aCopyInTheCornerOfAWhiteSheetIsTheCard(margin: Double) {
        let scenes = Scenes(seed: 392)
        var start = scenes.scene()
        start.card_type = CR_CARD_2018
        start.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: start)
        start.yaw_deg = 3
        start.pitch_deg = -2
        start.material = CR_MATERIAL_GREY_COPY
        let run = follow(scenes, start, frames: 5, change: { _, _ in },
                         repaint: { Self.onSheet($0, margin: margin, sheet: 246) })
        #expect(run.lost == 0, "the copy on the sheet is found on every frame")
        #expect(run.worstIoU >= 0.95, "IoU \(run.worstIoU): the copy's outline, not the sheet's corner \(margin) beyond it")
    }
}
