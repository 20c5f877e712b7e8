// CardThroughPrintTests.swift — a card lying on a printed page is found
// through the page's print.
//
// On real phone photographs of a card on a newspaper, the page's letters
// touch the card's sides every few pixels and break them into pieces too
// short to be lines, while a box printed on the page (an advertisement's
// panel, a crossword) is outlined whole: the search's best is the box.
// It shows no face where a card's portrait is, so the search is run again
// with the print closed over, where the card is one even surface with a
// whole outline (Tracker::card_through_print).
import CCardRender
import CCardVision
import Testing

@Suite
struct CardThroughPrintTests {
    /// Paints a page everywhere outside the card: light paper (205) with
    /// rows of dark "words" (a row 8 px high every 14 px, words of 15-60 px
    /// with 6 px between them, each a run of letters: strokes 2 px wide
    /// every 5 px) touching the card's sides, and a box
    /// of the card's aspect, `scale` times its size, centred at `centreX`,
    /// outlined by a dark rule 5 px wide with 10 px of paper either side of
    /// it, and the same words inside.
    static func onAPage(_ frame: Frame, boxOf scale: Double, centreX: Double, seed: UInt64) -> Frame {
        let card = CardOutline(frame)
        let boxW = scale * (card.xs[1] - card.xs[0]), boxH = scale * (card.ys[3] - card.ys[0])
        let x0 = centreX - boxW / 2, y0 = (card.ys[0] + card.ys[3]) / 2 - boxH / 2
        var generator = SplitMix64(state: seed)
        // Each row's words, as [x0, x1) spans, from the left border to the right.
        var rows: [[(Double, Double)]] = []
        for _ in stride(from: 0, to: frame.height, by: 14) {
            var words: [(Double, Double)] = []
            var x = Double.random(in: 0...20, using: &generator)
            while x < Double(frame.width) {
                let length = Double.random(in: 15...60, using: &generator)
                words.append((x, x + length))
                x += length + 6
            }
            rows.append(words)
        }
        return frame.repaintedAroundCard { x, y in
            let inBox = x >= x0 && x < x0 + boxW && y >= y0 && y < y0 + boxH
            let onRule = inBox && (x < x0 + 5 || x >= x0 + boxW - 5 || y < y0 + 5 || y >= y0 + boxH - 5)
            if onRule { return 40 }
            // The page's layout leaves a margin round the box's rule.
            let nearRule = x >= x0 - 10 && x < x0 + boxW + 10 && y >= y0 - 10 && y < y0 + boxH + 10
                && !(x >= x0 + 15 && x < x0 + boxW - 15 && y >= y0 + 15 && y < y0 + boxH - 15)
            if nearRule { return 205 }
            let row = Int(y) / 14
            guard Int(y) % 14 < 8, row < rows.count else { return 205 }
            // Letters: strokes 2 px wide every 5 px along each word.
            return rows[row].contains { x >= $0.0 && x < $0.1 && Int(x - $0.0) % 5 < 2 } ? 60 : 205
        }
    }

    /// A 2003 card 0.3 of the view wide, right of centre, on a page with a
    /// box 1.3 times its size on the left: the card is followed on every
    /// frame, never the box.
    @Test(arguments: [3, 11, 17] as [UInt64])
    func aCardOnAPrintedPageIsFollowed(seed: UInt64) {
        let scenes = Scenes(seed: seed)
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.3, scene: s)
        s.center_x = 0.72 * Double(s.width)
        var ious: [Double] = []
        let run = follow(scenes, s, frames: 6, change: { scene, k in scene.yaw_deg = 2 + 0.3 * Double(k) },
                         repaint: { Self.onAPage($0, boxOf: 1.3, centreX: 0.28 * Double(s.width), seed: seed) },
                         each: { _, iou, _ in ious.append(iou) })
        #expect(run.lost == 0 && run.worstIoU >= 0.9, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }
}
