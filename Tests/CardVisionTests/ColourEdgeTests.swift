// ColourEdgeTests.swift — a side whose edge is a step in colour only.
//
// A card's green title band before a grey wall of the same lightness: its
// top edge is a step in Cb and Cr and none in luma. The search finds the
// card (its gradients include colour) on a downscaled copy; the edge fit at
// full resolution reads luma and finds no edge there. Without a fit on the
// colour planes the top side keeps the search's line, a pixel or two off,
// which tilts the card by degrees.
import CCardRender
import CCardVision
import Testing

@Suite
struct ColourEdgeTests {
    static let bandLuma: UInt8 = 150

    /// Paints the card's top band (its top `band` share) green at luma
    /// `bandLuma`, the wall above the card's top side neutral grey at the
    /// same luma, and everything else outside the card a dark desk.
    static func greenBandUnderGreyWall(_ frame: Frame, band: Double = 0.14) -> Frame {
        var f = frame
        let w = f.width, h = f.height
        let card = CardOutline(f)
        let xs = card.xs, ys = card.ys
        let insideCard = card.contains
        func topY(_ x: Double) -> Double { ys[0] + (ys[1] - ys[0]) * (x - xs[0]) / (xs[1] - xs[0]) }
        let bandHeight = band * (ys[3] - ys[0])
        func inBand(_ x: Double, _ y: Double) -> Bool { insideCard(x, y) && y < topY(x) + bandHeight }
        for y in 0..<h {
            for x in 0..<w {
                let px = Double(x), py = Double(y)
                if inBand(px, py) || (!insideCard(px, py) && py < topY(px)) {
                    f.pixels[y * w + x] = bandLuma
                } else if !insideCard(px, py) {
                    f.pixels[y * w + x] = 38
                }
            }
        }
        let u = w * h, v = u + w * h / 4
        // Each colour sample averages its 2 x 2 luma pixels, as an encoder's
        // 4:2:0 downsampling does: green where they lie in the band, neutral
        // outside the card, the card's own colour elsewhere.
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) {
                let places = [(0, 0), (1, 0), (0, 1), (1, 1)].map { (Double(2 * x + $0.0), Double(2 * y + $0.1)) }
                let green = places.filter { inBand($0.0, $0.1) }.count
                let grey = places.filter { !insideCard($0.0, $0.1) }.count
                guard green + grey > 0 else { continue }
                let card = 4 - green - grey
                for (plane, tint) in [(u, 104), (v, 108)] {
                    let own = Int(f.pixels[plane + y * (w / 2) + x])
                    let mixed = (green * tint + grey * 128 + card * own + 2) / 4
                    f.pixels[plane + y * (w / 2) + x] = UInt8(mixed)
                }
            }
        }
        return f
    }

    @Test(arguments: [false, true])
    func aTopSideSteppingOnlyInColourIsFittedOnIt(nv12: Bool) {
        let scenes = Scenes(seed: 44)
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.32, scene: s)
        s.yaw_deg = 1
        s.pitch_deg = 2
        let tracker = Tracker(cardType: HKCV_CARD_2003)
        var topErrors: [Double] = [], pitchErrors: [Double] = []
        for index in 0..<20 {
            // Turning slowly, so the top side cannot keep a line of an earlier frame.
            s.pitch_deg = 2 + 0.4 * Double(index)
            s.yaw_deg = 1 + 0.3 * Double(index)
            let frame = Self.greenBandUnderGreyWall(scenes.render(s))
            let m = tracker.process(frame, pts: Int64(index) * 33_333_333, nv12: nv12)
            guard index >= 5, m.found == 1 else { continue }
            let d = cornerDistances(floats(m.corners), frame.truthCorners)
            topErrors.append(max(d[0], d[1]))
            pitchErrors.append(Double(abs(m.pitch - frame.truth.pitch)))
        }
        let shown = { (v: [Double]) in v.map { String(format: "%.2f", $0) }.joined(separator: " ") }
        #expect(topErrors.count == 15, "the card is followed on every frame after the first five")
        #expect(percentile(topErrors, 0.5) <= 0.8, "top corners off by \(shown(topErrors)) px")
        #expect(percentile(pitchErrors, 0.9) <= 1.5, "pitch errors \(shown(pitchErrors))°")
    }
}
