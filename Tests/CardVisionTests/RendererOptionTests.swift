// RendererOptionTests.swift — the renderer's options for harder scenes
// (issue 12) draw what they say: limited-range levels, photographs, hands
// over and behind every edge, bold inner boxes, a cast shadow, a low
// bitrate's blocks; bad values are refused.
import CCardRender
import Foundation
import Testing

@Suite struct RendererOptionTests {
    /// Y plane of a scene rendered by a fresh renderer (same seed, same noise).
    func luma(_ s: cr_scene, seed: UInt64 = 5, photo: (cr_photo_slot, String)? = nil) -> Frame {
        let scenes = Scenes(seed: seed)
        if let (slot, name) = photo { scenes.usePhoto(slot, name) }
        return scenes.render(s)
    }

    func plane(_ f: Frame) -> ArraySlice<UInt8> { f.pixels[0..<(f.width * f.height)] }

    /// BGR of one pixel, rendered without noise.
    func bgr(_ scenes: Scenes, _ s: cr_scene, _ points: [(Double, Double)]) -> [(Int, Int, Int)] {
        let w = Int(s.width), h = Int(s.height)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        var scene = s
        let status = pixels.withUnsafeMutableBufferPointer { cr_render_bgr(scenes.renderer, &scene, $0.baseAddress, Int32(3 * w), nil) }
        precondition(status == CR_OK)
        return points.map { p in
            let i = (Int(p.1.rounded()) * w + Int(p.0.rounded())) * 3
            return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
        }
    }

    static func isSkin(_ c: (Int, Int, Int)) -> Bool {
        // The renderer's skin (B 120, G 150, R 205) and its shading: red
        // above green above blue, clearly.
        c.2 > c.1 + 25 && c.1 > c.0 + 10
    }

    @Test func limitedRangeSqueezesLevelsLikeAPhone() {
        var s = Scenes(seed: 1).scene(width: 640, height: 360)
        s.distance_mm = 160
        s.glare = 1
        s.glare_radius_mm = 12
        s.brightness = 1.0
        let full = luma(s)
        s.limited_range = 1
        let limited = luma(s)
        let f = plane(full), l = plane(limited)
        #expect(f.max() == 255, "the glare saturates full-range luma")
        #expect(l.max()! <= 235)
        #expect(l.min()! >= 16)
        // The same picture: Y' = 16 + 219/255 Y, to rounding.
        var worst = 0.0
        for (a, b) in zip(f, l) { worst = max(worst, abs(16 + Double(a) * 219 / 255 - Double(b))) }
        #expect(worst <= 1.0)
        // Limited range does not change what counts as glare in the truth.
        #expect(limited.truth.glare_fraction == full.truth.glare_fraction)
        #expect(full.truth.glare_fraction > 0.05)
    }

    @Test func photographErrorsAreRefusedAndLeaveTheSlot() {
        let scenes = Scenes(seed: 2)
        var s = scenes.scene(width: 320, height: 240)
        s.card_visible = 0
        s.noise_sigma = 0
        let drawn = scenes.render(s)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "coffee")
        let photo = scenes.render(s)
        #expect(plane(photo) != plane(drawn))
        #expect(cr_renderer_set_photo(scenes.renderer, CR_PHOTO_BACKGROUND, "/nonexistent/x.jpg") == CR_ERR_IO)
        #expect(cr_renderer_set_photo(scenes.renderer, CR_PHOTO_BACKGROUND, #filePath) == CR_ERR_IO)  // not a JPEG
        #expect(cr_renderer_set_photo(scenes.renderer, cr_photo_slot(rawValue: 9), photoPath("coffee")) == CR_ERR_ARG)
        #expect(plane(scenes.render(s)) == plane(photo), "a refused file leaves the photograph in use")
        #expect(cr_renderer_set_photo(scenes.renderer, CR_PHOTO_BACKGROUND, "") == CR_OK)
        #expect(plane(scenes.render(s)) == plane(drawn), "an empty path goes back to the drawn desk")
    }

    @Test func photographsReachTheFace() {
        var s = Scenes(seed: 3).scene(width: 640, height: 360)
        s.noise_sigma = 0
        s.distance_mm = 160
        let drawn = luma(s)
        let paper = luma(s, photo: (CR_PHOTO_PAPER, "rocket"))
        let portrait = luma(s, photo: (CR_PHOTO_PORTRAIT, "astronaut"))
        // Compare inside the card only (the background is the same drawing).
        let c = drawn.truthCorners
        let x0 = Int(c[0]) + 4, x1 = Int(c[2]) - 4, y0 = Int(c[1]) + 4, y1 = Int(c[5]) - 4
        func differing(_ a: Frame, _ b: Frame, xs: Range<Int>) -> Double {
            var n = 0, total = 0
            for y in y0..<y1 { for x in xs { total += 1; if abs(Int(a.pixels[y * a.width + x]) - Int(b.pixels[y * b.width + x])) > 12 { n += 1 } } }
            return Double(n) / Double(total)
        }
        #expect(differing(drawn, paper, xs: x0..<x1) > 0.5, "the paper photograph covers the face")
        // 2018: the portrait is on the left third; the fields on the right stay.
        let third = (x1 - x0) / 3
        #expect(differing(drawn, portrait, xs: (x0 + third / 4)..<(x0 + third)) > 0.3)
        #expect(differing(drawn, portrait, xs: (x0 + third + third / 2)..<(x0 + 2 * third)) < 0.02)
    }

    @Test(arguments: [CR_EDGE_TOP, CR_EDGE_RIGHT, CR_EDGE_BOTTOM, CR_EDGE_LEFT])
    func handPartsCoverAndTouchEveryEdge(edge: cr_edge) {
        let scenes = Scenes(seed: 4)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "gravel")  // grey: the drawn wood could pass for skin
        var s = scenes.scene(width: 960, height: 540)
        s.noise_sigma = 0
        s.distance_mm = 190
        let plain = s
        s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: edge, pos: 0.25, width_mm: 18, reach_mm: 10))
        s.setHand(1, cr_hand_part(kind: CR_HAND_PALM, edge: edge, pos: 0.75, width_mm: 24, reach_mm: 30))
        let truth = scenes.render(s).truth
        let c = floats(truth.corners)
        // The edge from corner a to corner b (front-on, no roll: axis-aligned) and its outward normal.
        let (a, b) = [(0, 1), (1, 2), (3, 2), (0, 3)][Int(edge.rawValue)]
        let (nx, ny) = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)][Int(edge.rawValue)]
        let ax = Double(c[2 * a]), ay = Double(c[2 * a + 1]), bx = Double(c[2 * b]), by = Double(c[2 * b + 1])
        func point(_ t: Double, _ out: Double) -> (Double, Double) {
            (ax + (bx - ax) * t + nx * out, ay + (by - ay) * t + ny * out)
        }
        // Thumb at a quarter: on the card 4 px inside and 4 px outside the edge.
        // Palm at three quarters: skin just outside the edge, card just inside.
        let probes = [point(0.25, -4), point(0.25, 4), point(0.75, 4), point(0.75, -4)]
        let with = bgr(scenes, s, probes)
        let without = bgr(scenes, plain, probes)
        #expect(Self.isSkin(with[0]) && Self.isSkin(with[1]), "thumb over edge \(edge.rawValue): \(with[0]) \(with[1])")
        #expect(Self.isSkin(with[2]), "palm behind edge \(edge.rawValue) shows past it: \(with[2])")
        #expect(!Self.isSkin(with[3]), "the card covers the palm behind it: \(with[3])")
        #expect(!without.contains(where: Self.isSkin), "no skin without the hand: \(without)")
    }

    @Test func innerFramesAreBoldAndInsideTheCard() {
        let scenes = Scenes(seed: 6)
        var s = scenes.scene(width: 1280, height: 720)
        s.noise_sigma = 0
        s.distance_mm = 150
        let truth = scenes.render(s).truth
        let c = floats(truth.corners)
        let pxPerMm = Double(c[2] - c[0]) / 85.60
        // Down a vertical line 60 % across the card: the inset border crosses it 2.5 mm below the top edge.
        let x = Double(c[0]) + 0.6 * Double(c[2] - c[0])
        let y = Double(c[1]) + 2.5 * pxPerMm
        func darkest(_ f: cr_scene) -> Int {
            bgr(scenes, f, (-2...2).map { (x, y + Double($0)) }).map { ($0.0 + $0.1 + $0.2) / 3 }.min()!
        }
        let plain = darkest(s)
        s.inner_frames = 1
        let framed = darkest(s)
        #expect(plain > 150, "paper there without frames: \(plain)")
        #expect(framed < 90, "a bold dark line with frames: \(framed)")
    }

    @Test func badHarderSceneValuesAreRefused() {
        let scenes = Scenes(seed: 7)
        let base = scenes.scene(width: 320, height: 240)
        func status(_ change: (inout cr_scene) -> Void) -> cr_status { scenes.status(of: base, change) }
        #expect(status { _ in } == CR_OK)
        #expect(status { $0.setHand(0, cr_hand_part(kind: cr_hand_kind(rawValue: 7), edge: CR_EDGE_TOP, pos: 0.5, width_mm: 10, reach_mm: 5)) } == CR_ERR_ARG)
        #expect(status { $0.setHand(3, cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_TOP, pos: 0.5, width_mm: 0, reach_mm: 5)) } == CR_ERR_ARG)
        #expect(status { $0.setHand(1, cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_LEFT, pos: .nan, width_mm: 40, reach_mm: 30)) } == CR_ERR_ARG)
        #expect(status { $0.setHand(2, cr_hand_part(kind: CR_HAND_PALM, edge: cr_edge(rawValue: 4), pos: 0.5, width_mm: 40, reach_mm: 30)) } == CR_ERR_ARG)
        #expect(status { $0.background_lift = 0.99 } == CR_ERR_ARG)
        #expect(status { $0.limited_range = 2 } == CR_ERR_ARG)
        #expect(status { $0.inner_frames = -1 } == CR_ERR_ARG)
        #expect(status { $0.shadow = 0.9 } == CR_ERR_ARG)
        #expect(status { $0.shadow = -0.1 } == CR_ERR_ARG)
        #expect(status { $0.shadow_angle_deg = .infinity } == CR_ERR_ARG)
        #expect(status { $0.shadow_soft_px = -1 } == CR_ERR_ARG)
        #expect(status { $0.compression_quality = 101 } == CR_ERR_ARG)
        #expect(status { $0.compression_quality = -1 } == CR_ERR_ARG)
    }

    /// A low bitrate's blocks: the frame changes only by coding (the same
    /// scene, the same noise), and the change is made of 8x8 blocks: steps
    /// across block boundaries exceed those inside the blocks on a plain
    /// desk, where the uncoded frame has none. Coding twice gives the
    /// same bytes (tests and benchmarks depend on it).
    @Test func compressionCodesEachPlaneInBlocks() {
        var s = Scenes(seed: 1).scene(width: 320, height: 240)
        s.distance_mm = 900  // a small card; mostly desk
        s.noise_sigma = 6
        var coded = s
        coded.compression_quality = 10
        let raw = luma(s), a = luma(coded), b = luma(coded)
        #expect(a.pixels == b.pixels)
        #expect(a.pixels != raw.pixels)
        // Mean horizontal step across block boundaries (x = 8k-1 | 8k)
        // against inside blocks, over the top rows (desk only).
        func steps(_ f: Frame) -> (across: Double, inside: Double) {
            var across = 0.0, inside = 0.0, nAcross = 0.0, nInside = 0.0
            for y in 0..<40 {
                for x in 1..<f.width {
                    let d = abs(Double(f.pixels[y * f.width + x]) - Double(f.pixels[y * f.width + x - 1]))
                    if x % 8 == 0 { across += d; nAcross += 1 } else { inside += d; nInside += 1 }
                }
            }
            return (across / nAcross, inside / nInside)
        }
        let rawSteps = steps(raw), codedSteps = steps(a)
        #expect(rawSteps.across < 1.2 * rawSteps.inside)
        #expect(codedSteps.across > 1.5 * codedSteps.inside)
    }

    /// A cast shadow takes its share of the light on its side of the edge,
    /// card and desk alike, and leaves the other side as it was.
    @Test func shadowDarkensOneSideOfItsEdge() {
        let scenes = Scenes(seed: 9)
        var s = scenes.scene(width: 640, height: 360)
        s.noise_sigma = 0
        s.distance_mm = 400
        var shaded = s
        shaded.shadow = 0.6
        shaded.shadow_angle_deg = 0  // the right half is in shadow
        // Desk far left and far right, card left and right of its centre.
        let points = [(40.0, 40.0), (600.0, 40.0), (280.0, 180.0), (360.0, 180.0)]
        let lit = bgr(scenes, s, points), dark = bgr(scenes, shaded, points)
        for (index, (a, b)) in zip(lit, dark).enumerated() {
            let before = [a.0, a.1, a.2], after = [b.0, b.1, b.2]
            let inShadow = points[index].0 > 320
            for (x, y) in zip(before, after) {
                if inShadow {
                    #expect(abs(Double(y) - 0.4 * Double(x)) <= 1.5, "point \(index): \(before) -> \(after)")
                } else {
                    #expect(x == y, "point \(index): \(before) -> \(after)")
                }
            }
        }
    }
}
