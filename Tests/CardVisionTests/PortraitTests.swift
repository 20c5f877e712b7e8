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
import Testing

@Suite
struct PortraitTests {
    /// Paints a light box of the card's aspect, `scale` times the card's
    /// size, centred at (`centreX`, the card's centre height), with rows of
    /// dark "words" printed in it, and a dark desk everywhere else outside
    /// the card (repaintedAroundCard: neutral in colour).
    static func beside(_ frame: Frame, printedBoxOf scale: Double, centreX: Double) -> Frame {
        let card = CardOutline(frame)
        let boxW = scale * (card.xs[1] - card.xs[0]), boxH = scale * (card.ys[3] - card.ys[0])
        let x0 = centreX - boxW / 2, y0 = (card.ys[0] + card.ys[3]) / 2 - boxH / 2
        var generator = SplitMix64(state: 7)
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
        return frame.repaintedAroundCard { x, y in
            guard x >= x0 && x < x0 + boxW && y >= y0 && y < y0 + boxH else { return 38 }
            return words.contains { x >= $0.x0 && x < $0.x1 && y >= $0.y && y < $0.y + 4 } ? 60 : 205
        }
    }

    /// A 2018 card a quarter of the view wide, right of centre, and a
    /// printed box 1.4 times its size on the left: the card is followed.
    @Test func aPrintedBoxLargerThanTheCardIsNotTakenForIt() {
        let scenes = Scenes(seed: 46)
        var s = scenes.scene()
        s.card_type = CR_CARD_2018
        s.distance_mm = Scenes.distance(forWidthRatio: 0.25, scene: s)
        s.center_x = 0.74 * Double(s.width)
        var ious: [Double] = []
        let run = follow(scenes, s, frames: 6, change: { scene, k in scene.yaw_deg = 2 + 0.3 * Double(k) },
                         repaint: { Self.beside($0, printedBoxOf: 1.4, centreX: 0.3 * Double(s.width)) },
                         each: { _, iou, _ in ious.append(iou) })
        #expect(run.lost == 0 && run.worstIoU >= 0.95, "IoU per frame: \(ious.map { String(format: "%.2f", $0) })")
    }
}
