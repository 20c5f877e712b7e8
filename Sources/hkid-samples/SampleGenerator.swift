import CCardRender
import Foundation
import HKIDMedia
import HKIDRegression

/// Renders a scenario frame by frame into an MP4 and its expectation file.
struct SampleGenerator {
    let scenario: Scenario
    let name: String
    /// Encoder bit rate, kbit/s: webcam-like compression, small files.
    var bitrate = 700
    /// The scenario file: its folder is where photo paths start, and errors name it.
    var scenarioPath = "scenario.yaml"
    private var baseDirectory: String { URL(fileURLWithPath: scenarioPath).deletingLastPathComponent().path }

    struct Output {
        var video: String
        var expectation: String
        var frames: Int
        var bytes: Int
    }

    func generate(into folder: String) throws -> Output {
        let width = scenario.width, height = scenario.height
        var status: Int32 = 0
        guard let renderer = cr_renderer_create(scenario.seed, &status) else {
            throw ScenarioError(path: name, reason: "the renderer could not start (\(status))")
        }
        defer { cr_renderer_destroy(renderer) }
        let photos: [(String?, cr_photo_slot, String)] = [
            (scenario.photos.background, CR_PHOTO_BACKGROUND, "photos.background"),
            (scenario.photos.paper, CR_PHOTO_PAPER, "photos.paper"),
            (scenario.photos.portrait, CR_PHOTO_PORTRAIT, "photos.portrait"),
        ]
        for case let (path?, slot, key) in photos {
            let resolved = path.hasPrefix("/") ? path : baseDirectory + "/" + path
            guard cr_renderer_set_photo(renderer, slot, resolved) == CR_OK else {
                throw ScenarioError(path: scenarioPath, reason: "\(key): \(resolved) could not be read as a JPEG")
            }
        }

        let videoPath = folder + "/" + name + ".mp4"
        var settings = VideoWriter.Settings(width: width, height: height, framesPerSecond: scenario.fps)
        settings.bitrate = bitrate
        settings.preset = "slow"
        settings.deterministic = true
        settings.codec = scenario.encode.codec == "mpeg4" ? .mpeg4 : .h264
        // Limited-range frames say so in the stream, as a phone's do; full
        // range keeps GStreamer's default caps, as the bundled full-range
        // samples were encoded.
        if scenario.encode.range == "limited" { settings.colorimetry = "bt601" }
        let writer = try VideoWriter(path: videoPath, settings: settings)

        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: width * height / 4)
        var v = [UInt8](repeating: 0, count: width * height / 4)
        let motion = HandMotion(scenario)
        let frameCount = Int((scenario.duration * Double(scenario.fps)).rounded())
        var truths: [FrameTruth] = []
        truths.reserveCapacity(frameCount)
        var cornerHistory: [[Float]] = []

        for index in 0..<frameCount {
            let t = Double(index) / Double(scenario.fps)
            var scene = self.scene(at: t, motion: motion)
            // The shutter smears what moved: the card's motion over the last
            // frame stands in for this one's (eased moves change slowly).
            if scenario.effects.motion_blur, scene.card_visible != 0, let a = cornerHistory.first, let b = cornerHistory.last,
               cornerHistory.count == 2 {
                (scene.motion_blur_px, scene.motion_blur_deg) = Self.blur(from: a, to: b)
            }
            var truth = cr_truth()
            let rc = y.withUnsafeMutableBufferPointer { yp in
                u.withUnsafeMutableBufferPointer { up in
                    v.withUnsafeMutableBufferPointer { vp in
                        cr_render_i420(renderer, &scene, yp.baseAddress, Int32(width), up.baseAddress, Int32(width / 2),
                                       vp.baseAddress, Int32(width / 2), &truth)
                    }
                }
            }
            guard rc == CR_OK else { throw ScenarioError(path: name, reason: "rendering frame \(index) failed (\(rc.rawValue))") }
            let corners = withUnsafeBytes(of: truth.corners) { Array($0.bindMemory(to: Float.self)) }
            cornerHistory = truth.card_visible != 0 ? Array((cornerHistory + [corners]).suffix(2)) : []
            truths.append(FrameTruth(
                t: (t * 1000).rounded() / 1000, visible: truth.card_visible != 0,
                corners: truth.card_visible != 0 ? stride(from: 0, to: 8, by: 2).map { [Self.round2(corners[$0]), Self.round2(corners[$0 + 1])] } : [],
                yaw: Self.round2(truth.yaw), pitch: Self.round2(truth.pitch), roll: Self.round2(truth.roll)))

            try y.withUnsafeBufferPointer { yp in
                try u.withUnsafeBufferPointer { up in
                    try v.withUnsafeBufferPointer { vp in
                        try writer.write(y: yp.baseAddress!, yStride: width, u: up.baseAddress!, uStride: width / 2,
                                         v: vp.baseAddress!, vStride: width / 2,
                                         pts: Int64(index) * 1_000_000_000 / Int64(scenario.fps))
                    }
                }
            }
        }
        try writer.finish()

        let expectation = Expectation(
            cardType: scenario.card, overtime: scenario.expect.overtime, retCode: scenario.expect.retCode,
            statuses: scenario.expect.statuses, alerts: scenario.expect.alerts,
            description: scenario.description, truth: truths)
        let expectationPath = Expectation.path(forVideo: videoPath)
        try DurableFile.write(try expectation.encoded(), to: expectationPath)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: videoPath)[.size] as? NSNumber)?.intValue ?? 0
        return Output(video: videoPath, expectation: expectationPath, frames: frameCount, bytes: bytes)
    }

    /// The renderer's scene for time t: the hand's pose plus the effects
    /// active at that moment.
    private func scene(at t: Double, motion: HandMotion) -> cr_scene {
        var scene = cr_scene()
        cr_scene_default(&scene)
        let pose = motion.state(at: t)
        let effects = scenario.effects
        scene.width = Int32(scenario.width)
        scene.height = Int32(scenario.height)
        scene.hfov_deg = scenario.hfov
        scene.card_type = scenario.card == "2003" ? CR_CARD_2003 : CR_CARD_2018
        scene.card_visible = effects.hidden.contains { $0.contains(t) } ? 0 : 1
        scene.center_x = pose.x
        scene.center_y = pose.y
        scene.distance_mm = pose.distance
        scene.yaw_deg = pose.yaw
        scene.pitch_deg = pose.pitch
        scene.roll_deg = pose.roll
        scene.noise_sigma = effects.noise
        scene.blur_sigma = effects.blur
        scene.brightness = effects.brightness
        scene.inner_frames = effects.inner_frames ? 1 : 0
        scene.background_lift = scenario.photos.background_lift
        if let person = scenario.person {
            scene.person = 1
            scene.person_size = person.size
            scene.person_x = person.x
            scene.person_badge = person.badge ? 1 : 0
        }
        scene.limited_range = scenario.encode.range == "limited" ? 1 : 0
        scene.material = Scenario.materials[scenario.material] ?? CR_MATERIAL_GENUINE
        scene.ovi = effects.ovi ? 1 : 0
        scene.torch = t >= effects.torch_from ? effects.torch : 0
        scene.screen_bezel = effects.screen_bezel
        if let shadow = effects.shadow {
            scene.shadow = shadow.strength
            scene.shadow_x = shadow.x
            scene.shadow_y = shadow.y
            scene.shadow_angle_deg = shadow.angle
            scene.shadow_soft_px = shadow.soft
        }
        withUnsafeMutableBytes(of: &scene.hands) { raw in
            let parts = raw.bindMemory(to: cr_hand_part.self)
            for (index, part) in effects.hands.prefix(parts.count).enumerated() {
                parts[index] = cr_hand_part(kind: part.kind == "palm" ? CR_HAND_PALM : CR_HAND_THUMB,
                                            edge: Self.edge(part.edge), pos: part.pos, width_mm: part.width,
                                            reach_mm: part.reach)
            }
        }
        // The camera shakes a little with the person holding the card.
        scene.background_dx = sin(t * 1.3) * 1.5
        scene.background_dy = cos(t * 1.1) * 1.0

        if let patch = effects.glare.first(where: { t >= $0.from && t < $0.to }) {
            scene.glare = 1
            scene.glare_u = patch.u
            scene.glare_v = patch.v
            scene.glare_radius_mm = patch.radius
            scene.glare_strength = patch.strength
        } else if effects.specular > 0 {
            // A light above and behind the camera: its reflection slides
            // across the laminate twice as fast as the card turns, and leaves
            // the card beyond about 25 degrees.
            let u = 0.62 + pose.yaw / 50, v = 0.30 - pose.pitch / 50
            if (0.02...0.98).contains(u), (0.02...0.98).contains(v) {
                scene.glare = 1
                scene.glare_u = u
                scene.glare_v = v
                scene.glare_radius_mm = 2.5
                scene.glare_strength = effects.specular
            }
        }
        if let thumb = effects.thumb {
            scene.thumb = 1
            scene.thumb_edge = Self.edge(thumb.edge)
            scene.thumb_pos = thumb.pos
            scene.thumb_width_mm = thumb.width
            scene.thumb_reach_mm = thumb.reach
        }
        return scene
    }

    /// Blur length and direction for a shutter open half the frame time,
    /// from how far the card's corners moved since the previous frame.
    static func blur(from previous: [Float], to current: [Float]) -> (Double, Double) {
        var dx = 0.0, dy = 0.0, longest = 0.0
        for i in stride(from: 0, to: 8, by: 2) {
            let mx = Double(current[i] - previous[i]), my = Double(current[i + 1] - previous[i + 1])
            dx += mx / 4
            dy += my / 4
            longest = max(longest, (mx * mx + my * my).squareRoot())
        }
        let length = longest * 0.5
        return length < 1.5 ? (0, 0) : (length, atan2(dy, dx) * 180 / .pi)
    }

    static func edge(_ name: String) -> cr_edge {
        ["top": CR_EDGE_TOP, "right": CR_EDGE_RIGHT, "left": CR_EDGE_LEFT][name] ?? CR_EDGE_BOTTOM
    }

    static func round2(_ value: Float) -> Double { (Double(value) * 100).rounded() / 100 }
}
