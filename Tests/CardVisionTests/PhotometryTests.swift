// PhotometryTests.swift — glare and sharpness on the rectified card.
import CCardRender
import CCardVision
import Foundation
import Testing

@Suite struct PhotometryTests {
    @Test(arguments: [(0.6, 0.4, 6.0), (0.3, 0.6, 10.0), (0.5, 0.5, 14.0)])
    func glareMatchesRenderedHighlight(u: Double, v: Double, radius: Double) {
        let scenes = Scenes(seed: 61)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        s.yaw_deg = 15
        s.glare = 1
        s.glare_u = u
        s.glare_v = v
        s.glare_radius_mm = radius
        let frame = scenes.render(s)
        let m = Tracker().process(frame)
        #expect(m.found == 1)
        let truth = Double(frame.truth.glare_fraction)
        #expect(truth > 0.01)
        #expect(abs(Double(m.glare) - truth) <= max(0.01, 0.2 * truth))
        #expect(Double(m.glare_blob) <= Double(m.glare) + 1e-6)
        #expect(Double(m.glare_blob) >= 0.8 * Double(m.glare))
    }

    @Test func noGlareWithoutHighlight() {
        let scenes = Scenes(seed: 62)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        let m = Tracker().process(scenes.render(s))
        #expect(m.found == 1)
        #expect(m.glare < 0.002)
    }

    @Test func blurLowersSharpness() {
        let scenes = Scenes(seed: 63)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        var values: [Float] = []
        for (blur, motion) in [(0.0, 0.0), (1.5, 0.0), (3.0, 0.0), (0.0, 14.0)] {
            s.blur_sigma = blur
            s.motion_blur_px = motion
            let m = Tracker().process(scenes.render(s))
            #expect(m.found == 1)
            values.append(m.sharpness)
        }
        #expect(values[0] > 0.6, "sharp/1.5/3.0/motion14: \(values)")
        #expect(values[1] < values[0], "sharp/1.5/3.0/motion14: \(values)")
        #expect(values[2] < values[1], "sharp/1.5/3.0/motion14: \(values)")
        #expect(values[2] < 0.5, "sharp/1.5/3.0/motion14: \(values)")
        #expect(values[3] < values[0])
    }
}
