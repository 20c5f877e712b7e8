// RendererPersonTests.swift — the person at the webcam (cr_scene.person)
// sits behind the card: the card and its truth are the same with and
// without, the head is skin where the scene puts it, the badge is drawn
// only when asked for, and bad values are refused.
import CCardRender
import Foundation
import Testing

@Suite struct RendererPersonTests {
    /// A 640x360 scene without noise before a light wall (the desk lifted
    /// to near white, which the person is not), the card small in the lower
    /// right so that the person's head is in plain view.
    static func scene(_ scenes: Scenes) -> cr_scene {
        var s = scenes.scene(width: 640, height: 360)
        s.noise_sigma = 0
        s.background_lift = 0.9
        s.distance_mm = 450
        s.center_x = 540
        s.center_y = 290
        return s
    }

    /// The scene with the person's values set (person 0: set but unused).
    static func with(_ s: cr_scene, person: Int32 = 1, size: Double = 0.2, x: Double = 0.5, badge: Int32 = 0) -> cr_scene {
        var seated = s
        seated.person = person
        seated.person_size = size
        seated.person_x = x
        seated.person_badge = badge
        return seated
    }

    func render(_ scenes: Scenes, _ s: cr_scene) -> (pixels: [UInt8], truth: cr_truth) {
        let w = Int(s.width), h = Int(s.height)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        var scene = s, truth = cr_truth()
        let status = pixels.withUnsafeMutableBufferPointer {
            cr_render_bgr(scenes.renderer, &scene, $0.baseAddress, Int32(3 * w), &truth)
        }
        precondition(status == CR_OK)
        return (pixels, truth)
    }

    func pixel(_ p: [UInt8], _ s: cr_scene, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * Int(s.width) + x) * 3
        return (Int(p[i]), Int(p[i + 1]), Int(p[i + 2]))
    }

    @Test func thePersonSitsBehindTheCard() {
        let scenes = Scenes(seed: 21)
        let alone = Self.scene(scenes), seated = Self.with(alone, x: 0.4)
        let without = render(scenes, alone), with = render(scenes, seated)
        #expect(withUnsafeBytes(of: with.truth.corners) { Array($0) } == withUnsafeBytes(of: without.truth.corners) { Array($0) })
        // The card's middle is the same pixels: the card is in front.
        for (dx, dy) in [(-20, -10), (0, 0), (15, 8)] {
            let x = 540 + dx, y = 290 + dy
            #expect(pixel(with.pixels, seated, x, y) == pixel(without.pixels, alone, x, y))
        }
        // Down the head's middle (x = 0.4 of the width), the face is skin
        // for most of the head's height (0.85 of its width from brow to
        // chin, less the mouth); without the person, no row is.
        let u = 0.2 * 640.0, column = 256
        func skinRows(_ p: [UInt8], _ s: cr_scene) -> Int {
            (0..<220).filter { RendererOptionTests.isSkin(pixel(p, s, column, $0)) }.count
        }
        #expect(Double(skinRows(with.pixels, seated)) >= 0.5 * u)
        #expect(skinRows(without.pixels, alone) == 0)
        // The shoulders fill the bottom rows across the person's width.
        let changed = (150..<360).filter { pixel(with.pixels, seated, $0, 350) != pixel(without.pixels, alone, $0, 350) }
        #expect(changed.count >= 150)
    }

    @Test func withoutAPersonItsValuesChangeNothing() {
        let scenes = Scenes(seed: 22)
        let base = Self.scene(scenes), unused = Self.with(base, person: 0, size: 0.4, x: 0.1, badge: 1)
        #expect(render(scenes, unused).pixels == render(scenes, base).pixels)
    }

    /// The badge hangs on the chest: asking for it changes only pixels
    /// below the chin, and some of them are its white card.
    @Test func theBadgeIsDrawnOnlyWhenAskedFor() {
        let scenes = Scenes(seed: 23)
        var s = Self.scene(scenes)
        s.card_visible = 0
        s.person = 1
        s.person_size = 0.15
        let plain = render(scenes, s)
        s.person_badge = 1
        let badged = render(scenes, s)
        var changed = 0, white = 0, firstRow = Int.max
        for y in 0..<Int(s.height) {
            for x in 0..<Int(s.width) where pixel(plain.pixels, s, x, y) != pixel(badged.pixels, s, x, y) {
                changed += 1
                firstRow = min(firstRow, y)
                let c = pixel(badged.pixels, s, x, y)
                if min(c.0, c.1, c.2) > 200 { white += 1 }
            }
        }
        #expect(changed > 500)
        #expect(white > 200, "the badge's white card")
        // The lanyard starts at the shoulders, which lie in the lower 45 %.
        #expect(firstRow > 360 / 3)
    }

    @Test func badPersonValuesAreRefused() {
        let scenes = Scenes(seed: 24)
        let base = Self.scene(scenes)
        func status(_ change: (inout cr_scene) -> Void) -> cr_status { scenes.status(of: base, change) }
        #expect(status { $0.person = 1 } == CR_OK)
        #expect(status { $0.person = 2 } == CR_ERR_ARG)
        #expect(status { $0.person = 1; $0.person_size = 0.01 } == CR_ERR_ARG)
        #expect(status { $0.person = 1; $0.person_size = 0.6 } == CR_ERR_ARG)
        #expect(status { $0.person = 1; $0.person_x = .nan } == CR_ERR_ARG)
        #expect(status { $0.person = 1; $0.person_x = 2 } == CR_ERR_ARG)
        #expect(status { $0.person_badge = 2 } == CR_ERR_ARG)
    }
}
