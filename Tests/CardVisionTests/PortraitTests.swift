// PortraitTests.swift — a card carries its holder's portrait; a printed box
// beside it does not.
//
// On real phone photographs of a card lying on a newspaper, a box of the
// page (a crossword, an advertisement's panel) larger than the card can
// outrank it in the search: its sides are as straight and its print as
// busy. The search's best is put behind a quad whose portrait area shows a
// face when its own could show one and does not (Tracker::prefer_a_portrait).
import CCardRender
import CCardVision
import HKIDLiveness
import Testing

@Suite
struct PortraitTests {
    /// Paints a light box of the card's aspect, `scale` times the card's
    /// size, centred at (`centreX`, the card's centre height), with rows of
    /// dark "words" printed in it, and a dark desk everywhere else outside
    /// the card. Its colour planes are left neutral.
    static func beside(_ frame: Frame, printedBoxOf scale: Double, centreX: Double) -> Frame {
        var f = frame
        let w = f.width, h = f.height
        let card = CardOutline(f)
        let cardW = card.xs[1] - card.xs[0], cardH = card.ys[3] - card.ys[0]
        let boxW = scale * cardW, boxH = scale * cardH
        let x0 = centreX - boxW / 2, y0 = (card.ys[0] + card.ys[3]) / 2 - boxH / 2
        var generator = SeededGenerator(seed: 7)
        // Rows of words: a dark stroke 4 px high every 16 px, broken into
        // words of 20-70 px with 10 px between them, from 8 % to 92 % of the box.
        var words: [(x0: Double, x1: Double, y: Double)] = []
        var y = y0 + 0.08 * boxH
        while y < y0 + 0.92 * boxH {
            var x = x0 + 0.08 * boxW
            while x < x0 + 0.92 * boxW {
                let length = Double.random(in: 20...70, using: &generator)
                words.append((x, min(x + length, x0 + 0.92 * boxW), y))
                x += length + 10
            }
            y += 16
        }
        for py in 0..<h {
            for px in 0..<w {
                let x = Double(px), y = Double(py)
                if card.contains(x, y) { continue }
                let inBox = x >= x0 && x < x0 + boxW && y >= y0 && y < y0 + boxH
                var level: UInt8 = inBox ? 205 : 38
                if inBox, words.contains(where: { x >= $0.x0 && x < $0.x1 && y >= $0.y && y < $0.y + 4 }) { level = 60 }
                f.pixels[py * w + px] = level
            }
        }
        let u = w * h, v = u + w * h / 4
        for cy in 0..<(h / 2) {
            for cx in 0..<(w / 2) where !card.contains(Double(2 * cx), Double(2 * cy)) {
                f.pixels[u + cy * (w / 2) + cx] = 128
                f.pixels[v + cy * (w / 2) + cx] = 128
            }
        }
        return f
    }

    /// A 2018 card a quarter of the view wide, right of centre, and a
    /// printed box 1.4 times its size on the left: the card is followed.
    @Test func aPrintedBoxLargerThanTheCardIsNotTakenForIt() {
        let scenes = Scenes(seed: 46)
        var s = scenes.scene()
        s.card_type = CR_CARD_2018
        s.distance_mm = Scenes.distance(forWidthRatio: 0.25, scene: s)
        s.center_x = 0.74 * Double(s.width)
        let tracker = Tracker(cardType: HKCV_CARD_2018)
        var ious: [Double] = []
        for index in 0..<6 {
            s.yaw_deg = 2 + 0.3 * Double(index)
            let frame = Self.beside(scenes.render(s), printedBoxOf: 1.4, centreX: 0.3 * Double(s.width))
            let m = tracker.process(frame, pts: Int64(index) * 33_333_333)
            ious.append(m.found == 1 ? jaccard(floats(m.corners), frame.truthCorners) : 0)
        }
        #expect(ious.allSatisfy { $0 >= 0.95 }, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }
}
