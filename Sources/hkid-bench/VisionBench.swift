// VisionBench.swift — `hkid-bench vision`: analysis time per frame of the
// card vision shim while tracking and while searching, and its accuracy, on
// rendered hand-held card sequences with exact ground truth.
import ArgumentParser
import CCardRender
import CCardVision
import Foundation

struct VisionBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision",
        abstract: "Time and accuracy of the card tracker on synthetic sequences.")

    @Option(help: "Frames per resolution.") var frames: Int = 240
    @Option(help: "Resolutions, e.g. 640x360,1280x720,1920x1080.") var sizes: String = "640x360,1280x720,1920x1080"
    @Option(help: "Renderer seed.") var seed: UInt64 = 1
    @Flag(help: "Let OpenCV use its thread pool (default: one thread, as the target is per core).")
    var threads = false

    func run() throws {
        if !threads { cr_set_opencv_threads(1) }
        print("size        mode       frames  median_ms  p90_ms  p99_ms")
        var summaries: [String] = []
        for spec in sizes.split(separator: ",") {
            let parts = spec.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw ValidationError("bad size \(spec)") }
            let r = try measure(width: parts[0], height: parts[1])
            for (mode, t) in [("tracking", r.tracking), ("searching", r.searching), ("no-liveness", r.trackingWithoutLiveness)] {
                let label = "\(parts[0])x\(parts[1])".padding(toLength: 12, withPad: " ", startingAt: 0)
                    + mode.padding(toLength: 11, withPad: " ", startingAt: 0)
                print(label + String(format: "%6d  %9.2f  %6.2f  %6.2f", t.count, pct(t, 0.5), pct(t, 0.9), pct(t, 0.99)))
            }
            summaries.append(stageSummary("\(parts[0])x\(parts[1])", r.trackingStages))
            summaries.append(String(format: "%@: mean Jaccard %.4f, recall %.3f, corner error %.2f px, yaw err median %.2f p90 %.2f, pitch err median %.2f p90 %.2f (deg)",
                                    "\(parts[0])x\(parts[1])" as NSString, r.meanIoU, r.recall, r.cornerError,
                                    pct(r.yawErrors, 0.5), pct(r.yawErrors, 0.9), pct(r.pitchErrors, 0.5), pct(r.pitchErrors, 0.9)))
        }
        print("")
        summaries.forEach { print($0) }
    }

    struct Result {
        var tracking: [Double] = [], searching: [Double] = []
        /// The same tracked frames, timed on a tracker that gathers no
        /// liveness evidence: the difference is what the checks cost.
        var trackingWithoutLiveness: [Double] = []
        /// Where each tracked frame's time went (the tracker's own clock).
        var trackingStages: [hkcv_stage_ms] = []
        var meanIoU = 0.0, recall = 0.0, cornerError = 0.0
        var yawErrors: [Double] = [], pitchErrors: [Double] = []
    }

    /// A scripted session: the card drifts and turns right, back, left, tilts
    /// up and down, with hand tremor, noise and a little blur; one frame in
    /// eight is followed by a fresh tracker to time the full-frame search.
    func measure(width: Int, height: Int) throws -> Result {
        guard let renderer = cr_renderer_create(seed, nil) else { throw ValidationError("renderer") }
        defer { cr_renderer_destroy(renderer) }
        var geometryOnly = hkcv_config()
        hkcv_config_default(&geometryOnly)
        geometryOnly.liveness_evidence = 0
        guard let tracker = hkcv_tracker_create(nil, nil), let searcher = hkcv_tracker_create(nil, nil),
              let plain = hkcv_tracker_create(&geometryOnly, nil) else {
            throw ValidationError("tracker")
        }
        defer { hkcv_tracker_destroy(tracker); hkcv_tracker_destroy(searcher); hkcv_tracker_destroy(plain) }

        var pixels = [UInt8](repeating: 0, count: width * height * 3 / 2)
        var result = Result()
        var ious: [Double] = [], corners: [Double] = []
        var visible = 0, found = 0
        for k in 0..<frames {
            let t = Double(k) / 30
            var s = cr_scene()
            cr_scene_default(&s)
            s.width = Int32(width)
            s.height = Int32(height)
            s.card_type = k / 120 % 2 == 0 ? CR_CARD_2018 : CR_CARD_2003
            let f = Double(width) / 2 / tan(31 * Double.pi / 180)
            s.distance_mm = f * 85.6 / ((0.45 + 0.08 * sin(t * 0.7)) * Double(width))
            s.center_x = Double(width) * (0.5 + 0.06 * sin(t * 1.3))
            s.center_y = Double(height) * (0.5 + 0.05 * cos(t * 1.1))
            // 8 s cycle: right 30, back, left 30, back, up 30, back, down 30.
            let phase = t.truncatingRemainder(dividingBy: 8)
            let swing = 32 * sin(phase.truncatingRemainder(dividingBy: 2) * Double.pi / 2)
            switch Int(phase / 2) {
            case 0: s.yaw_deg = swing
            case 1: s.yaw_deg = -swing
            case 2: s.pitch_deg = swing
            default: s.pitch_deg = -swing
            }
            s.roll_deg = 6 * sin(t * 0.9)
            s.yaw_deg += 0.4 * sin(t * 17)
            s.noise_sigma = 2.5
            s.blur_sigma = 0.6
            s.motion_blur_px = abs(cos(phase.truncatingRemainder(dividingBy: 2) * Double.pi / 2)) * 4
            s.background_dx = 2 * sin(t * 5)
            var truth = cr_truth()
            let st = pixels.withUnsafeMutableBufferPointer { p -> cr_status in
                let y = p.baseAddress!, u = y + width * height, v = u + width * height / 4
                return cr_render_i420(renderer, &s, y, Int32(width), u, Int32(width / 2), v, Int32(width / 2), &truth)
            }
            guard st == CR_OK else { throw ValidationError("render failed \(st)") }
            let pts = Int64(k) * 33_333_333
            // The two trackers see the same frame, in alternating order, so
            // neither always runs with the other's data in the cache.
            let withoutFirst = k % 2 == 1
            let plainRun = withoutFirst ? analyse(plain, &pixels, width, height, pts) : nil
            let (m, ms) = analyse(tracker, &pixels, width, height, pts)
            let (pm, pms) = plainRun ?? analyse(plain, &pixels, width, height, pts)
            if pm.found == 1 && pm.searched_full_frame == 0 { result.trackingWithoutLiveness.append(pms) }
            let truthCorners = withUnsafeBytes(of: truth.corners) { Array($0.bindMemory(to: Float.self)) }
            visible += 1
            if m.found == 1 {
                found += 1
                let c = withUnsafeBytes(of: m.corners) { Array($0.bindMemory(to: Float.self)) }
                ious.append(quadIoU(c, truthCorners))
                var error = 0.0
                for i in 0..<4 {
                    let dx = Double(c[2 * i] - truthCorners[2 * i]), dy = Double(c[2 * i + 1] - truthCorners[2 * i + 1])
                    error += (dx * dx + dy * dy).squareRoot() / 4
                }
                corners.append(error)
                result.yawErrors.append(Double(abs(m.yaw - truth.yaw)))
                result.pitchErrors.append(Double(abs(m.pitch - truth.pitch)))
                if m.searched_full_frame == 0 {
                    result.tracking.append(ms)
                    result.trackingStages.append(m.stages)
                } else {
                    result.searching.append(ms)
                }
            }
            if k % 8 == 0 {
                hkcv_tracker_reset(searcher)
                let (_, sms) = analyse(searcher, &pixels, width, height, pts)
                result.searching.append(sms)
            }
        }
        result.meanIoU = ious.reduce(0, +) / Double(max(1, ious.count))
        result.cornerError = corners.reduce(0, +) / Double(max(1, corners.count))
        result.recall = Double(found) / Double(max(1, visible))
        return result
    }

    /// Median and mean of each stage over the tracked frames: the medians
    /// say what every frame pays, the means add what a frame pays now and
    /// then (a re-check every 15-120 frames, a restored side).
    func stageSummary(_ size: String, _ stages: [hkcv_stage_ms]) -> String {
        let parts: [(String, KeyPath<hkcv_stage_ms, Float>)] = [
            ("flow", \.flow), ("fit", \.fit), ("search", \.search), ("recheck", \.recheck),
            ("photometry", \.photometry), ("liveness", \.liveness), ("other", \.other), ("total", \.total),
        ]
        let columns = parts.map { name, path -> String in
            let values = stages.map { Double($0[keyPath: path]) }
            let mean = values.reduce(0, +) / Double(max(1, values.count))
            return String(format: "%@ %.3f/%.3f", name, pct(values, 0.5), mean)
        }
        return "\(size): tracked frame by stage, median/mean ms: " + columns.joined(separator: ", ")
    }

    func analyse(_ tracker: OpaquePointer, _ pixels: inout [UInt8], _ w: Int, _ h: Int, _ pts: Int64) -> (hkcv_measurement, Double) {
        var m = hkcv_measurement()
        let ms = pixels.withUnsafeBufferPointer { p -> Double in
            var im = i420Image(p.baseAddress!, width: w, height: h)
            let start = DispatchTime.now().uptimeNanoseconds
            _ = hkcv_tracker_process(tracker, &im, pts, &m)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        return (m, ms)
    }
}

/// The Y, U and V planes of a frame packed as I420 (Y, then U, then V, no
/// padding), and their strides.
func i420Planes<P>(_ y: P, width: Int, height: Int) -> (planes: (P, P, P), strides: (Int32, Int32, Int32))
    where P: Strideable, P.Stride == Int {
    ((y, y.advanced(by: width * height), y.advanced(by: width * height * 5 / 4)),
     (Int32(width), Int32(width / 2), Int32(width / 2)))
}

/// A frame packed as I420 as the vision shim takes it.
func i420Image(_ y: UnsafePointer<UInt8>, width: Int, height: Int, range: hkcv_color_range = HKCV_RANGE_FULL) -> hkcv_image {
    var image = hkcv_image()
    image.format = HKCV_PIXEL_I420
    image.width = Int32(width)
    image.height = Int32(height)
    (image.planes, image.strides) = i420Planes(y, width: width, height: height)
    image.range = range
    return image
}

func pct(_ v: [Double], _ p: Double) -> Double {
    guard !v.isEmpty else { return .nan }
    let s = v.sorted()
    return s[min(s.count - 1, Int(p * Double(s.count)))]
}

/// Jaccard index of two convex quads: the intersection by clipping one
/// with the other (Sutherland-Hodgman), areas by the shoelace formula.
func quadIoU(_ a: [Float], _ b: [Float]) -> Double {
    typealias P = (x: Double, y: Double)
    func pts(_ q: [Float]) -> [P] { (0..<4).map { (Double(q[2 * $0]), Double(q[2 * $0 + 1])) } }
    func signedArea(_ p: [P]) -> Double {
        guard p.count >= 3 else { return 0 }
        return (0..<p.count).map { p[$0].x * p[($0 + 1) % p.count].y - p[($0 + 1) % p.count].x * p[$0].y }.reduce(0, +) / 2
    }
    let pa = pts(a), pb = pts(b)
    let orientation: Double = signedArea(pb) >= 0 ? 1 : -1
    var poly = pa
    for i in 0..<4 where !poly.isEmpty {
        let e0 = pb[i], e1 = pb[(i + 1) % 4]
        func side(_ p: P) -> Double { orientation * ((e1.x - e0.x) * (p.y - e0.y) - (e1.y - e0.y) * (p.x - e0.x)) }
        let input = poly
        poly = []
        for j in 0..<input.count {
            let p = input[j], q = input[(j + 1) % input.count]
            let sp = side(p), sq = side(q)
            if sq >= 0 {
                if sp < 0 { let t = sp / (sp - sq); poly.append((p.x + t * (q.x - p.x), p.y + t * (q.y - p.y))) }
                poly.append(q)
            } else if sp >= 0 {
                let t = sp / (sp - sq)
                poly.append((p.x + t * (q.x - p.x), p.y + t * (q.y - p.y)))
            }
        }
    }
    let inter = abs(signedArea(poly)), union = abs(signedArea(pa)) + abs(signedArea(pb)) - inter
    return union > 0 ? inter / union : 0
}
