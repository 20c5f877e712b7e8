// RendererMaterialTests.swift — the renderer's card materials (issue 13)
// draw what card_render.h says: a genuine card's optically variable patch
// turns its hue with the viewing angle, a copy's is frozen and paler, a grey
// copy has no colour, a screen lifts the black and shows its bezel, the
// torch's hotspot follows the pose; bad values are refused.
import CCardRender
import Foundation
import Testing

@Suite struct RendererMaterialTests {
    /// A noise-free scene at 960 x 540 with the card near the centre.
    static func scene(_ scenes: Scenes, yaw: Double = 0, material: cr_material = CR_MATERIAL_GENUINE) -> cr_scene {
        var s = scenes.scene(width: 960, height: 540)
        s.noise_sigma = 0
        s.distance_mm = 170
        s.yaw_deg = yaw
        s.material = material
        return s
    }

    static func bgr(_ scenes: Scenes, _ s: cr_scene) -> (pixels: [UInt8], truth: cr_truth) {
        var pixels = [UInt8](repeating: 0, count: Int(s.width * s.height) * 3)
        var scene = s
        var truth = cr_truth()
        let status = pixels.withUnsafeMutableBufferPointer {
            cr_render_bgr(scenes.renderer, &scene, $0.baseAddress, 3 * scene.width, &truth)
        }
        precondition(status == CR_OK)
        return (pixels, truth)
    }

    /// Where card millimetres (from the face's top-left corner) land in the
    /// image: the homography of the truth's corners.
    static func imagePoint(_ truth: cr_truth, mm: (Double, Double)) -> (Double, Double) {
        let c = floats(truth.corners).map(Double.init)
        let u = mm.0 / 85.60, v = mm.1 / 53.98
        // Bilinear in the projective sense is not exact; a square-to-quad
        // homography is (Heckbert).
        let (x0, y0, x1, y1, x2, y2, x3, y3) = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
        let dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3
        let dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3
        let den = dx1 * dy2 - dx2 * dy1
        let g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den
        let a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, d = y1 - y0 + g * y1, e = y3 - y0 + h * y3
        let w = g * u + h * v + 1
        return ((a * u + b * v + x0) / w, (d * u + e * v + y0) / w)
    }

    /// Mean hue (degrees) and chroma (max - min channel, levels) of a 5 x 5
    /// window, hue averaged as vectors so hues near 0/360 do not cancel.
    static func hueSat(_ frame: (pixels: [UInt8], truth: cr_truth), width: Int, mm: (Double, Double)) -> (Double, Double) {
        let (px, py) = imagePoint(frame.truth, mm: mm)
        var hx = 0.0, hy = 0.0, sat = 0.0
        for dy in -2...2 {
            for dx in -2...2 {
                let i = ((Int(py.rounded()) + dy) * width + Int(px.rounded()) + dx) * 3
                let b = Double(frame.pixels[i]), g = Double(frame.pixels[i + 1]), r = Double(frame.pixels[i + 2])
                // Hue from the opponent axes.
                let a1 = r - (g + b) / 2, a2 = (g - b) * 3.0.squareRoot() / 2
                hx += a1
                hy += a2
                let mx = max(r, g, b), mn = min(r, g, b)
                sat += mx - mn
            }
        }
        return (atan2(hy, hx) * 180 / .pi, sat / 25)
    }

    static func hueDistance(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    /// A point on the 2018 patch's swirl (centre 63, 42 mm, radius 5.5 mm).
    static let onPatch = (65.5, 42.0)

    @Test func genuinePatchTurnsItsHueWithThePoseAndACopyIsFrozen() {
        let scenes = Scenes(seed: 21)
        let front = Self.bgr(scenes, Self.scene(scenes))
        let turned = Self.bgr(scenes, Self.scene(scenes, yaw: 20))
        let (h0, s0) = Self.hueSat(front, width: 960, mm: Self.onPatch)
        let (h1, _) = Self.hueSat(turned, width: 960, mm: Self.onPatch)
        #expect(s0 > 80, "saturated: chroma \(s0)")
        #expect(Self.hueDistance(h0, h1) > 60, "20 degrees of yaw turns the hue: \(h0) -> \(h1)")

        let copyFront = Self.bgr(scenes, Self.scene(scenes, material: CR_MATERIAL_COLOUR_COPY))
        let copyTurned = Self.bgr(scenes, Self.scene(scenes, yaw: 20, material: CR_MATERIAL_COLOUR_COPY))
        let (c0, cs0) = Self.hueSat(copyFront, width: 960, mm: Self.onPatch)
        let (c1, _) = Self.hueSat(copyTurned, width: 960, mm: Self.onPatch)
        #expect(Self.hueDistance(c0, h0) < 15, "printed at the front-on hue: \(c0) vs \(h0)")
        #expect(Self.hueDistance(c0, c1) < 10, "frozen: \(c0) -> \(c1)")
        #expect(cs0 < 0.7 * s0 && cs0 > 0.4 * s0, "about 60 % of the chroma: \(cs0) vs \(s0)")
    }

    @Test func withoutThePatchOnlyThePatchChanges() {
        let scenes = Scenes(seed: 22)
        var s = Self.scene(scenes)
        let with = Self.bgr(scenes, s)
        s.ovi = 0
        let without = Self.bgr(scenes, s)
        let centre = Self.imagePoint(with.truth, mm: (63, 42))
        let radius = (Self.imagePoint(with.truth, mm: (68.5, 42)).0 - centre.0) + 2
        var inside = 0, outside = 0
        for y in 0..<540 {
            for x in 0..<960 {
                let i = (y * 960 + x) * 3
                guard with.pixels[i..<i + 3] != without.pixels[i..<i + 3] else { continue }
                if hypot(Double(x) - centre.0, Double(y) - centre.1) <= radius { inside += 1 } else { outside += 1 }
            }
        }
        #expect(inside > 500, "the patch is drawn: \(inside) pixels")
        #expect(outside == 0, "nothing else changes: \(outside) pixels")
    }

    @Test func greyCopyHasNoColourAndLiftedBlack() {
        let scenes = Scenes(seed: 23)
        let f = Self.bgr(scenes, Self.scene(scenes, material: CR_MATERIAL_GREY_COPY))
        var worst = 0, darkest = 255
        // Inside the card (5 mm from its edge): grey, and no ink darker than toner.
        for v in stride(from: 5.0, through: 49.0, by: 1.0) {
            for u in stride(from: 5.0, through: 80.0, by: 1.0) {
                let (x, y) = Self.imagePoint(f.truth, mm: (u, v))
                let i = (Int(y.rounded()) * 960 + Int(x.rounded())) * 3
                let b = Int(f.pixels[i]), g = Int(f.pixels[i + 1]), r = Int(f.pixels[i + 2])
                worst = max(worst, max(b, g, r) - min(b, g, r))
                darkest = min(darkest, (b + g + r) / 3)
            }
        }
        #expect(worst <= 2, "no colour on the grey copy: \(worst)")
        #expect(darkest >= 38 && darkest <= 45, "solid toner at 16 % of white: \(darkest)")
    }

    @Test func screenLiftsTheBlackAndItsBezelShrinksTheRecording() {
        let scenes = Scenes(seed: 24)
        var s = Self.scene(scenes, material: CR_MATERIAL_SCREEN)
        let full = Self.bgr(scenes, s)
        var darkest = 255
        for i in stride(from: 0, to: full.pixels.count, by: 3) {
            darkest = min(darkest, Int(full.pixels[i + 1]))
        }
        #expect(darkest >= 55, "the screen's black is lifted (~30 % of its white): \(darkest)")
        let genuine = Self.bgr(scenes, Self.scene(scenes))
        #expect(floats(full.truth.corners) == floats(genuine.truth.corners), "filling the view: same corners")

        s.screen_bezel = 0.05
        let framed = Self.bgr(scenes, s)
        // The bezel is dark, 0.05 of the width each side; the recording is
        // shrunk into the rest by one factor both ways, keeping its shape,
        // truth with it.
        let edge = Int(framed.pixels[(270 * 960 + 10) * 3 + 1])
        #expect(edge < 40, "dark bezel: \(edge)")
        let k = 0.9, left = 48.0, top = 27.0  // (960 - 864) / 2, (540 - 486) / 2
        let a = floats(genuine.truth.corners), b = floats(framed.truth.corners)
        for i in 0..<4 {
            let x = left + (Double(a[2 * i]) + 0.5) * k - 0.5, y = top + (Double(a[2 * i + 1]) + 0.5) * k - 0.5
            #expect(abs(Double(b[2 * i]) - x) < 0.01 && abs(Double(b[2 * i + 1]) - y) < 0.01)
        }
    }

    @Test func torchHotspotFollowsThePoseOnTheLaminateOnly() {
        let scenes = Scenes(seed: 25)
        var s = Self.scene(scenes)
        s.torch = 1
        #expect(Self.bgr(scenes, s).truth.glare_fraction > 0.005, "front-on: the lens is mirrored on the card")
        s.yaw_deg = 25
        #expect(Self.bgr(scenes, s).truth.glare_fraction == 0, "turned 25 degrees: the reflection is off the card")
        s.yaw_deg = 0
        s.material = CR_MATERIAL_COLOUR_COPY
        #expect(Self.bgr(scenes, s).truth.glare_fraction == 0, "matte paper: no hotspot")
    }

    @Test func badMaterialValuesAreRefused() {
        let scenes = Scenes(seed: 26)
        let base = scenes.scene(width: 320, height: 240)
        func status(_ change: (inout cr_scene) -> Void) -> cr_status { scenes.status(of: base, change) }
        #expect(base.ovi == 1, "the patch is on by default")
        #expect(status { _ in } == CR_OK)
        #expect(status { $0.material = cr_material(rawValue: 4) } == CR_ERR_ARG)
        #expect(status { $0.ovi = 2 } == CR_ERR_ARG)
        #expect(status { $0.torch = 1.5 } == CR_ERR_ARG)
        #expect(status { $0.torch = .nan } == CR_ERR_ARG)
        #expect(status { $0.screen_bezel = 0.3 } == CR_ERR_ARG)
    }
}
