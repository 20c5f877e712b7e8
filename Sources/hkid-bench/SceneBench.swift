// SceneBench.swift — `hkid-bench scenes`: how often a fresh tracker finds
// the card, and how exactly, over many random single scenes that combine
// the conditions the renderer can make hard (photographs behind the card,
// light desks, thumbs and palms, shadows, glare, bold printed boxes, blur,
// limited range, four frame sizes; with --person, a person behind the card).
//
// The development set and the samples are a few dozen sessions each: a
// change to the search can pass both by the luck of which frame a card is
// first found on. Six hundred scenes, each drawn from its own seed, judge
// the search itself; the breakdown says which condition a change helped or
// hurt. Each scene is rendered five times (fresh sensor noise) through one
// tracker, as a card held still for a sixth of a second, and the last
// measurement counts.
//
// A scene that fails becomes a test or a harness case: --describe prints
// every value the scene was drawn with (as a test sets them, e.g.
// HardSceneTests.cutBoxOfBricksDoesNotHideTheCard), --save writes its last
// frame as the tracker saw it (I420) with the truth, and a picture.
import ArgumentParser
import CCardRender
import CCardVision
import Foundation
import HKIDLiveness

struct SceneBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenes",
        abstract: "Detection rate and accuracy of a fresh tracker on random hard scenes.")

    @Option(help: "Number of scenes.") var scenes: Int = 600
    @Option(help: "Index of the first scene (each scene's seed is its index).") var first: Int = 0
    @Option(help: "Frames each scene is held for; the last one counts.") var frames: Int = 5
    @Option(help: "Directory of the background photographs.") var photos: String = "samples/photos"
    @Option(help: ArgumentHelp("""
        Share of scenes with a person sitting behind the card, 0...1. Drawn from a generator of its own, so \
        every other value of a scene is the same with and without (the same --first and --scenes compare the two).
        """, valueName: "SHARE"))
    var person: Double = 0
    @Flag(help: "Print one line per scene.") var verbose = false
    @Flag(help: "With each scene, print the values it was drawn with (the renderer's seed is the scene's index).")
    var describe = false
    @Option(help: ArgumentHelp("""
        Write each scene not found exactly as DIR/scene-INDEX.ppm (the truth in green, what was found in red), \
        its last frame as DIR/scene-INDEX.i420 and what it shows as DIR/scene-INDEX.json.
        """, valueName: "DIR"))
    var save: String?

    /// One scene and how the tracker did on it.
    struct Outcome {
        var factors: [(String, String)]
        var found: Bool
        var iou: Double
        var worstCorner: Double
        /// The scene's values, for --describe.
        var values: [String] = []
    }

    func validate() throws {
        guard (0...1).contains(person) else { throw ValidationError("--person must be 0...1, not \(person)") }
    }

    func run() throws {
        cr_set_opencv_threads(1)
        let backgrounds = ["drawn", "rocket", "coffee", "brick", "gravel", "chelsea", "astronaut"]
        for name in backgrounds.dropFirst() where !FileManager.default.fileExists(atPath: photoPath(name)) {
            throw BenchError("\(photoPath(name)): no such photograph (run from the repository, or pass --photos)")
        }
        if let save {
            do {
                try FileManager.default.createDirectory(atPath: save, withIntermediateDirectories: true)
            } catch {
                throw BenchError("\(save): cannot create the directory (\(error.localizedDescription))")
            }
        }
        var outcomes: [Outcome] = []
        for index in first..<(first + scenes) {
            let outcome = try measure(index: index, backgrounds: backgrounds)
            if verbose {
                let factors = outcome.factors.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
                print(String(format: "%5d found %d IoU %.3f worst corner %6.1f px  ", index, outcome.found ? 1 : 0,
                             outcome.iou, outcome.worstCorner) + factors)
            }
            if describe {
                if !verbose { print(String(format: "%5d", index)) }
                for line in outcome.values { print("      " + line) }
            }
            outcomes.append(outcome)
        }
        report(outcomes)
    }

    func photoPath(_ name: String) -> String { (photos as NSString).appendingPathComponent("\(name).jpg") }

    /// Scene `index`: drawn again (with the next seed) until the whole card
    /// lies inside the frame, so that every scene has a card to find.
    func measure(index: Int, backgrounds: [String]) throws -> Outcome {
        for attempt in 0..<50 {
            var random = SeededGenerator(seed: UInt64(index) &* 1_000_003 &+ UInt64(attempt) &* 7919 &+ 17)
            guard let renderer = cr_renderer_create(UInt64(index), nil) else { throw BenchError("renderer") }
            defer { cr_renderer_destroy(renderer) }
            let background = backgrounds[random.below(backgrounds.count)]
            if background != "drawn", cr_renderer_set_photo(renderer, CR_PHOTO_BACKGROUND, photoPath(background)) != CR_OK {
                throw BenchError("\(photoPath(background)): could not be read")
            }
            let sizes = [(640, 480), (960, 540), (1280, 720), (1280, 720), (1920, 1080)]
            let (width, height) = sizes[random.below(sizes.count)]
            var s = cr_scene()
            cr_scene_default(&s)
            s.width = Int32(width)
            s.height = Int32(height)
            s.card_type = random.chance(0.5) ? CR_CARD_2003 : CR_CARD_2018
            let focal = Double(width) / 2 / tan(s.hfov_deg * Double.pi / 360)
            s.distance_mm = focal * 85.6 / (random.uniform(0.2, 0.65) * Double(width))
            s.yaw_deg = random.uniform(-30, 30)
            s.pitch_deg = random.uniform(-25, 25)
            s.roll_deg = random.uniform(-15, 15)
            s.center_x = random.uniform(0.35, 0.65) * Double(width)
            s.center_y = random.uniform(0.35, 0.65) * Double(height)
            s.noise_sigma = random.uniform(1, 4)
            if random.chance(0.3) { s.blur_sigma = random.uniform(0.5, 2.5) }
            if random.chance(0.1) {
                s.motion_blur_px = random.uniform(3, 12)
                s.motion_blur_deg = random.uniform(0, 180)
            }
            s.brightness = random.uniform(0.6, 1.15)
            if random.chance(0.35) { s.background_lift = random.uniform(0.3, 0.8) }
            var hands: [cr_hand_part] = []
            if random.chance(0.6) {
                hands.append(cr_hand_part(kind: CR_HAND_THUMB, edge: cr_edge(UInt32(random.below(4))),
                                          pos: random.uniform(0.2, 0.8), width_mm: random.uniform(16, 22),
                                          reach_mm: random.uniform(6, 14)))
            }
            if random.chance(0.3) {
                hands.append(cr_hand_part(kind: CR_HAND_PALM, edge: cr_edge(UInt32(random.below(4))),
                                          pos: random.uniform(0.3, 0.7), width_mm: random.uniform(30, 60),
                                          reach_mm: random.uniform(20, 50)))
            }
            withUnsafeMutableBytes(of: &s.hands) { raw in
                let parts = raw.bindMemory(to: cr_hand_part.self)
                for (i, part) in hands.enumerated() { parts[i] = part }
            }
            if random.chance(0.25) {
                s.shadow = random.uniform(0.25, 0.6)
                s.shadow_angle_deg = random.uniform(0, 360)
                s.shadow_x = random.uniform(0.4, 0.6)
                s.shadow_y = random.uniform(0.4, 0.6)
            }
            if random.chance(0.12) {
                s.glare = 1
                s.glare_u = random.uniform(0.2, 0.8)
                s.glare_v = random.uniform(0.2, 0.8)
                s.glare_radius_mm = random.uniform(4, 10)
            }
            s.inner_frames = random.chance(0.2) ? 1 : 0
            s.limited_range = random.chance(0.5) ? 1 : 0
            seatPerson(in: &s, index: index)

            var pixels = [UInt8](repeating: 0, count: width * height * 3 / 2)
            var truth = cr_truth()
            guard render(renderer, &s, &pixels, &truth) == CR_OK else { throw BenchError("scene \(index): render failed") }
            let corners = withUnsafeBytes(of: truth.corners) { Array($0.bindMemory(to: Float.self)) }
            let inside = (0..<4).allSatisfy {
                corners[2 * $0] >= 2 && corners[2 * $0 + 1] >= 2 && corners[2 * $0] <= Float(width - 3)
                    && corners[2 * $0 + 1] <= Float(height - 3)
            }
            guard inside else { continue }

            var config = hkcv_config()
            hkcv_config_default(&config)
            config.card_type = s.card_type == CR_CARD_2003 ? HKCV_CARD_2003 : HKCV_CARD_2018
            guard let tracker = hkcv_tracker_create(&config, nil) else { throw BenchError("tracker") }
            defer { hkcv_tracker_destroy(tracker) }
            var m = hkcv_measurement()
            for k in 0..<frames {
                if k > 0 { _ = render(renderer, &s, &pixels, &truth) }
                pixels.withUnsafeBufferPointer { p in
                    var image = i420Image(p.baseAddress!, width: width, height: height,
                                          range: s.limited_range == 1 ? HKCV_RANGE_LIMITED : HKCV_RANGE_FULL)
                    _ = hkcv_tracker_process(tracker, &image, Int64(k) * 33_333_333, &m)
                }
            }
            var outcome = Outcome(factors: [
                ("background", background), ("size", "\(width)x\(height)"),
                ("card", s.card_type == CR_CARD_2003 ? "2003" : "2018"),
                ("light desk", s.background_lift > 0 ? "yes" : "no"), ("hand parts", "\(hands.count)"),
                ("shadow", s.shadow > 0 ? "yes" : "no"), ("glare", s.glare == 1 ? "yes" : "no"),
                ("inner boxes", s.inner_frames == 1 ? "yes" : "no"),
                ("blur", s.blur_sigma > 0 || s.motion_blur_px > 0 ? "yes" : "no"),
                ("range", s.limited_range == 1 ? "limited" : "full"),
                ("turned > 20°", max(abs(s.yaw_deg), abs(s.pitch_deg)) > 20 ? "yes" : "no"),
                ("person", s.person == 0 ? "no" : s.person_badge == 1 ? "with badge" : "yes"),
            ], found: m.found == 1, iou: 0, worstCorner: 0)
            let found = m.found == 1 ? withUnsafeBytes(of: m.corners) { Array($0.bindMemory(to: Float.self)) } : nil
            if let found {
                outcome.iou = quadIoU(found, corners)
                outcome.worstCorner = (0..<4).map { i -> Double in
                    let dx = Double(found[2 * i] - corners[2 * i]), dy = Double(found[2 * i + 1] - corners[2 * i + 1])
                    return (dx * dx + dy * dy).squareRoot()
                }.max() ?? 0
            }
            let saved = save != nil && outcome.iou < 0.95
            if describe || saved {
                outcome.values = Self.values(of: s, hands: hands, background: background, attempt: attempt)
            }
            if let save, saved {
                let stem = (save as NSString).appendingPathComponent(String(format: "scene-%04d", index))
                try write(Data(pixels), to: stem + ".i420")
                let shown: [String: Any] = [
                    "width": width, "height": height, "format": "I420",
                    "range": s.limited_range == 1 ? "limited" : "full",
                    "card": s.card_type == CR_CARD_2003 ? "2003" : "2018",
                    "truth": corners.map(Double.init), "found": found.map { $0.map(Double.init) } ?? NSNull(),
                    "values": outcome.values,
                ]
                try write(try JSONSerialization.data(withJSONObject: shown, options: [.prettyPrinted, .sortedKeys]),
                          to: stem + ".json")
                try writePicture(of: &pixels, width: width, height: height, truth: corners, found: found, to: stem + ".ppm")
            }
            return outcome
        }
        throw BenchError("scene \(index): no card fully inside the frame in 50 draws")
    }

    /// A person behind the card in --person of the scenes: head 0.12-0.3 of
    /// the frame's width (a webcam at arm's length), anywhere behind the
    /// card, a lanyard badge on two in five.
    func seatPerson(in s: inout cr_scene, index: Int) {
        var who = SeededGenerator(seed: UInt64(index) &* 2_654_435_761 &+ 99)
        guard who.chance(person) else { return }
        s.person = 1
        s.person_size = who.uniform(0.12, 0.3)
        s.person_x = who.uniform(0.3, 0.7)
        s.person_badge = who.chance(0.4) ? 1 : 0
    }

    /// Every value a scene was drawn with, in the renderer's names, with
    /// full precision: set on a `cr_scene` from `cr_scene_default` of the
    /// same size, with a renderer seeded with the scene's index, they draw
    /// the same frames.
    static func values(of s: cr_scene, hands: [cr_hand_part], background: String, attempt: Int) -> [String] {
        let edges = ["top", "right", "bottom", "left"]
        var lines = [
            "background=\(background) width=\(s.width) height=\(s.height) card_type=\(s.card_type == CR_CARD_2003 ? "2003" : "2018") draw=\(attempt)",
            "distance_mm=\(s.distance_mm) yaw_deg=\(s.yaw_deg) pitch_deg=\(s.pitch_deg) roll_deg=\(s.roll_deg) center_x=\(s.center_x) center_y=\(s.center_y)",
            "noise_sigma=\(s.noise_sigma) blur_sigma=\(s.blur_sigma) motion_blur_px=\(s.motion_blur_px) motion_blur_deg=\(s.motion_blur_deg) brightness=\(s.brightness) background_lift=\(s.background_lift)",
            "shadow=\(s.shadow) shadow_angle_deg=\(s.shadow_angle_deg) shadow_x=\(s.shadow_x) shadow_y=\(s.shadow_y) glare=\(s.glare) glare_u=\(s.glare_u) glare_v=\(s.glare_v) glare_radius_mm=\(s.glare_radius_mm)",
            "inner_frames=\(s.inner_frames) limited_range=\(s.limited_range)",
            "person=\(s.person) person_size=\(s.person_size) person_x=\(s.person_x) person_badge=\(s.person_badge)",
        ]
        for (i, h) in hands.enumerated() {
            lines.append("hands[\(i)]: \(h.kind == CR_HAND_THUMB ? "thumb" : "palm") edge=\(edges[Int(h.edge.rawValue)]) pos=\(h.pos) width_mm=\(h.width_mm) reach_mm=\(h.reach_mm)")
        }
        return lines
    }

    func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw BenchError("\(path): cannot write (\(error.localizedDescription))")
        }
    }

    func render(_ renderer: OpaquePointer, _ s: inout cr_scene, _ pixels: inout [UInt8], _ truth: inout cr_truth) -> cr_status {
        let width = Int(s.width), height = Int(s.height)
        return pixels.withUnsafeMutableBufferPointer { p -> cr_status in
            let (planes, strides) = i420Planes(p.baseAddress!, width: width, height: height)
            return cr_render_i420(renderer, &s, planes.0, strides.0, planes.1, strides.1, planes.2, strides.2, &truth)
        }
    }

    /// The frame as a binary PPM (no image codec in the trimmed OpenCV, and
    /// every viewer reads it), with the truth and the tracker's quad drawn.
    func writePicture(of pixels: inout [UInt8], width: Int, height: Int, truth: [Float], found: [Float]?,
                      to path: String) throws {
        pixels.withUnsafeMutableBufferPointer { p in
            var frame = cr_frame()
            frame.format = CR_FRAME_I420
            frame.width = Int32(width)
            frame.height = Int32(height)
            (frame.planes, frame.strides) = i420Planes(p.baseAddress!, width: width, height: height)
            truth.withUnsafeBufferPointer { _ = cr_draw_quad(&frame, $0.baseAddress!, cr_color(r: 0, g: 220, b: 0), 1) }
            found?.withUnsafeBufferPointer { _ = cr_draw_quad(&frame, $0.baseAddress!, cr_color(r: 255, g: 0, b: 0), 1) }
        }
        // BT.601 full range is close enough to look at (the scenes' levels
        // are only for the tracker).
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        data.reserveCapacity(data.count + width * height * 3)
        let chroma = width * height, half = width / 2
        for row in 0..<height {
            for col in 0..<width {
                let c = (row / 2) * half + col / 2
                let l = Double(pixels[row * width + col])
                let u = Double(pixels[chroma + c]) - 128, v = Double(pixels[chroma + chroma / 4 + c]) - 128
                data.append(byte(l + 1.402 * v))
                data.append(byte(l - 0.344 * u - 0.714 * v))
                data.append(byte(l + 1.772 * u))
            }
        }
        try write(data, to: path)
    }

    /// The summary, then the share of exact finds (IoU >= 0.95) with and
    /// without each condition.
    func report(_ outcomes: [Outcome]) {
        let n = Double(max(1, outcomes.count))
        let found = outcomes.filter(\.found)
        let exact = outcomes.filter { $0.iou >= 0.95 }.count
        let wrong = found.filter { $0.iou < 0.5 }.count
        let meanIoU = outcomes.map(\.iou).reduce(0, +) / n
        print(String(format: "scenes %d: found %.1f %%, exact (IoU >= 0.95) %.1f %%, wrong object (found, IoU < 0.5) %d, mean IoU %.4f, median worst corner %.2f px",
                     outcomes.count, 100 * Double(found.count) / n, 100 * Double(exact) / n, wrong, meanIoU,
                     pct(found.map(\.worstCorner), 0.5)))
        guard let names = outcomes.first?.factors.map(\.0) else { return }
        for (i, name) in names.enumerated() {
            var groups: [String: (count: Int, exact: Int)] = [:]
            for o in outcomes {
                let value = o.factors[i].1
                groups[value, default: (0, 0)].count += 1
                if o.iou >= 0.95 { groups[value, default: (0, 0)].exact += 1 }
            }
            let parts = groups.keys.sorted().map { key -> String in
                let g = groups[key]!
                return String(format: "%@ %.0f %% of %d", key as NSString, 100 * Double(g.exact) / Double(g.count), g.count)
            }
            print("  \(name): " + parts.joined(separator: ", "))
        }
    }
}

/// Draws for the scenes from the package's SplitMix64, so that scene `i` is
/// the same scene on every machine and in every run (the standard library's
/// `random(in:using:)` does not promise its algorithm).
extension SeededGenerator {
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    mutating func below(_ n: Int) -> Int { min(n - 1, Int(unit() * Double(n))) }
}
