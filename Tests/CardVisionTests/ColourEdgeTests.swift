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

    /// Repaints `frame` so that a band of the card (`inBand`) differs from
    /// the wall beside it (`wall`, outside the card) in colour only: both
    /// at luma `bandLuma`, the band green, the wall neutral grey; the rest
    /// outside the card a dark desk, neutral too. The colour planes are
    /// made from that picture as an encoder with `site`'s 4:2:0 siting
    /// downsamples it: [1 2 1] across three columns and a mean of two rows
    /// for MPEG-2's, a 2 x 2 mean for JPEG's.
    static func colourOnlyBand(_ frame: Frame, site: hkcv_chroma_site, inBand: (Double, Double) -> Bool,
                               wall: (Double, Double) -> Bool) -> Frame {
        var f = frame
        let w = f.width, h = f.height
        let card = CardOutline(f)
        for y in 0..<h {
            for x in 0..<w {
                let px = Double(x), py = Double(y)
                if inBand(px, py) || wall(px, py) {
                    f.pixels[y * w + x] = bandLuma
                } else if !card.contains(px, py) {
                    f.pixels[y * w + x] = 38
                }
            }
        }
        let taps: [(dx: Int, dy: Int, weight: Int)] = site == HKCV_CHROMA_SITE_JPEG
            ? [(0, 0, 2), (1, 0, 2), (0, 1, 2), (1, 1, 2)]
            : [(-1, 0, 1), (0, 0, 2), (1, 0, 1), (-1, 1, 1), (0, 1, 2), (1, 1, 1)]
        let u = w * h, v = u + w * h / 4
        let own = f.pixels
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) {
                var green = 0, grey = 0
                for t in taps {
                    let px = Double(2 * x + t.dx), py = Double(2 * y + t.dy)
                    if inBand(px, py) { green += t.weight } else if !card.contains(px, py) { grey += t.weight }
                }
                guard green + grey > 0 else { continue }
                let rest = 8 - green - grey
                for (plane, tint) in [(u, 104), (v, 108)] {
                    let mixed = (green * tint + grey * 128 + rest * Int(own[plane + y * (w / 2) + x]) + 4) / 8
                    f.pixels[plane + y * (w / 2) + x] = UInt8(mixed)
                }
            }
        }
        return f
    }

    /// The card's top band (its top `band` share) green before a grey wall
    /// above the card, in MPEG-2's siting (H.264's).
    static func greenBandUnderGreyWall(_ frame: Frame, band: Double = 0.14) -> Frame {
        let card = CardOutline(frame)
        let xs = card.xs, ys = card.ys
        func topY(_ x: Double) -> Double { ys[0] + (ys[1] - ys[0]) * (x - xs[0]) / (xs[1] - xs[0]) }
        let bandHeight = band * (ys[3] - ys[0])
        return colourOnlyBand(frame, site: HKCV_CHROMA_SITE_MPEG2,
                              inBand: { x, y in card.contains(x, y) && y < topY(x) + bandHeight },
                              wall: { x, y in !card.contains(x, y) && y < topY(x) })
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

/// Where the colour samples sit matters once a side is fitted on them: an
/// MJPEG webcam's colour stands halfway between two luma columns, H.264's on
/// the even ones. A card whose left side steps only in colour (a green band
/// down its left edge, a grey wall of the same luma beside it) is fitted
/// where the stream's siting says.
@Suite
struct ChromaSiteTests {
    /// The card's left band (its left `band` share) green beside a grey
    /// wall left of the card, in `site`'s siting.
    static func greenBandBesideGreyWall(_ frame: Frame, site: hkcv_chroma_site, band: Double = 0.12) -> Frame {
        let card = CardOutline(frame)
        let xs = card.xs, ys = card.ys
        func leftX(_ y: Double) -> Double { xs[0] + (xs[3] - xs[0]) * (y - ys[0]) / (ys[3] - ys[0]) }
        let bandWidth = band * (xs[1] - xs[0])
        return ColourEdgeTests.colourOnlyBand(frame, site: site,
                                              inBand: { x, y in card.contains(x, y) && x < leftX(y) + bandWidth },
                                              wall: { x, y in !card.contains(x, y) && x < leftX(y) })
    }

    /// The median distance of the left corners' x from the truth, signed
    /// (positive: right of it), over a card turning slowly, the frames'
    /// colour made with `made` and declared as `declared`.
    static func leftSideOffset(made: hkcv_chroma_site, declared: hkcv_chroma_site) -> (offset: Double, frames: Int) {
        let scenes = Scenes(seed: 45)
        var s = scenes.scene()
        s.card_type = CR_CARD_2018
        s.distance_mm = Scenes.distance(forWidthRatio: 0.32, scene: s)
        let tracker = Tracker(cardType: HKCV_CARD_2018)
        var offsets: [Double] = []
        for index in 0..<20 {
            s.yaw_deg = 1 + 0.4 * Double(index)
            s.pitch_deg = 1 + 0.2 * Double(index)
            let frame = greenBandBesideGreyWall(scenes.render(s), site: made)
            let m = tracker.process(frame, pts: Int64(index) * 33_333_333, chromaSite: declared)
            guard index >= 5, m.found == 1 else { continue }
            let c = floats(m.corners), t = frame.truthCorners
            offsets.append(Double(c[0] - t[0]))
            offsets.append(Double(c[6] - t[6]))
        }
        return (percentile(offsets, 0.5), offsets.count / 2)
    }

    @Test(arguments: [HKCV_CHROMA_SITE_JPEG, HKCV_CHROMA_SITE_MPEG2])
    func aSideSteppingOnlyInColourIsPlacedByTheStreamsSiting(site: hkcv_chroma_site) {
        let other = site == HKCV_CHROMA_SITE_JPEG ? HKCV_CHROMA_SITE_MPEG2 : HKCV_CHROMA_SITE_JPEG
        let right = Self.leftSideOffset(made: site, declared: site)
        let wrong = Self.leftSideOffset(made: site, declared: other)
        #expect(right.frames == 15 && wrong.frames == 15, "followed on \(right.frames) and \(wrong.frames) of 15 frames")
        #expect(abs(right.offset) <= 0.25, "declared as made: the left side \(right.offset) px off")
        #expect(abs(wrong.offset - right.offset) >= 0.35,
                "declared otherwise: \(wrong.offset) px against \(right.offset) px")
    }
}
