// Support.swift — rendering scenes with CCardRender and feeding them to
// CCardVision, plus the metrics the tests assert on.
import CCardRender
import CCardVision
import Foundation
import HKIDRegression

/// One rendered I420 frame (contiguous Y, U, V) with its ground truth.
struct Frame {
    let width: Int
    let height: Int
    var pixels: [UInt8]
    let truth: cr_truth
    /// The levels the renderer wrote (the scene's limited_range), passed to
    /// the tracker as a stream's caps would.
    var range: hkcv_color_range = HKCV_RANGE_FULL

    var truthCorners: [Float] { floats(truth.corners) }

    /// What a cheap webcam facing a window, or a veiling glare over the
    /// lens, does to every level: brought to `contrast` of its distance from
    /// mid-grey, then lifted by `lift`; colour differences alike, without
    /// the lift.
    func washedOut(contrast: Double, lift: Double) -> Frame {
        var f = self
        let luma = width * height
        for i in f.pixels.indices {
            let v = contrast * (Double(f.pixels[i]) - 128) + 128 + (i < luma ? lift : 0)
            f.pixels[i] = UInt8(max(0, min(255, v.rounded())))
        }
        return f
    }
}

func floats<T>(_ tuple: T) -> [Float] {
    withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Float.self)) }
}

/// A renderer for one test; frames from one renderer share a background.
final class Scenes {
    let renderer: OpaquePointer

    init(seed: UInt64) {
        renderer = cr_renderer_create(seed, nil)!
    }
    deinit { cr_renderer_destroy(renderer) }

    func scene(width: Int = 1280, height: Int = 720) -> cr_scene {
        var s = cr_scene()
        cr_scene_default(&s)
        s.width = Int32(width)
        s.height = Int32(height)
        s.center_x = Double(width - 1) / 2
        s.center_y = Double(height - 1) / 2
        return s
    }

    /// The renderer's answer to `base` changed by `change` (a 320 px wide
    /// BGR frame is drawn): how a test sees which scene values are refused.
    func status(of base: cr_scene, _ change: (inout cr_scene) -> Void) -> cr_status {
        var s = base
        change(&s)
        let w = Int(s.width), h = Int(s.height)
        var pixels = [UInt8](repeating: 0, count: max(1, w * h * 3))
        return pixels.withUnsafeMutableBufferPointer { cr_render_bgr(renderer, &s, $0.baseAddress, Int32(w * 3), nil) }
    }

    /// Distance (mm) at which the card spans `ratio` of the frame width, front-on.
    static func distance(forWidthRatio ratio: Double, scene s: cr_scene) -> Double {
        let f = Double(s.width) / 2 / tan(s.hfov_deg * .pi / 360)
        return f * 85.60 / (ratio * Double(s.width))
    }

    func render(_ s: cr_scene) -> Frame {
        let w = Int(s.width), h = Int(s.height)
        var pixels = [UInt8](repeating: 0, count: w * h * 3 / 2)
        var truth = cr_truth()
        var scene = s
        let status = pixels.withUnsafeMutableBufferPointer { p -> cr_status in
            let y = p.baseAddress!, u = y + w * h, v = u + w * h / 4
            return cr_render_i420(renderer, &scene, y, Int32(w), u, Int32(w / 2), v, Int32(w / 2), &truth)
        }
        precondition(status == CR_OK, "render failed: \(status)")
        return Frame(width: w, height: h, pixels: pixels, truth: truth,
                     range: s.limited_range != 0 ? HKCV_RANGE_LIMITED : HKCV_RANGE_FULL)
    }
}

/// A tracker with the default configuration (or a tweaked one).
final class Tracker {
    let handle: OpaquePointer

    init(cardType: hkcv_card_type = HKCV_CARD_2018, configure: (inout hkcv_config) -> Void = { _ in }) {
        var c = hkcv_config()
        hkcv_config_default(&c)
        c.card_type = cardType
        configure(&c)
        var err: Int32 = 0
        handle = hkcv_tracker_create(&c, &err)!
    }
    deinit { hkcv_tracker_destroy(handle) }

    /// One frame through the tracker, as I420 or (nv12) as NV12: the same
    /// luma, then Cb and Cr interleaved.
    @discardableResult
    func process(_ f: Frame, pts: Int64 = 0, nv12: Bool = false,
                 chromaSite: hkcv_chroma_site = HKCV_CHROMA_SITE_MPEG2) -> hkcv_measurement {
        let luma = f.width * f.height, quarter = luma / 4
        let pixels = nv12
            ? Array(f.pixels[0..<luma]) + (0..<quarter).flatMap { [f.pixels[luma + $0], f.pixels[luma + quarter + $0]] }
            : f.pixels
        var m = hkcv_measurement()
        let status = pixels.withUnsafeBufferPointer { p -> hkcv_status in
            let y = p.baseAddress!
            var im = hkcv_image()
            im.format = nv12 ? HKCV_PIXEL_NV12 : HKCV_PIXEL_I420
            im.width = Int32(f.width)
            im.height = Int32(f.height)
            im.planes = nv12 ? (y, y + luma, nil) : (y, y + luma, y + luma + quarter)
            im.strides = nv12 ? (Int32(f.width), Int32(f.width), 0) : (Int32(f.width), Int32(f.width / 2), Int32(f.width / 2))
            im.range = f.range
            im.chroma_site = chromaSite
            return hkcv_tracker_process(handle, &im, pts, &m)
        }
        precondition(status == HKCV_OK, "process failed: \(status)")
        return m
    }

    func reset() { hkcv_tracker_reset(handle) }
}

/// A card followed by one tracker through `frames` frames at 30 fps, the
/// scene set for each frame by `change` (the hand turning it, a lamp, a
/// shadow) and each rendered frame passed through `repaint` (a page painted
/// round the card): on how many frames from `from` on it was not found, its
/// worst IoU over them, and the last frame's measurement with its frame;
/// `each` is given each of those frames' measurement and IoU (0 when not
/// found).
func follow(_ scenes: Scenes, _ start: cr_scene, frames: Int, from first: Int = 0,
            change: (inout cr_scene, Int) -> Void,
            repaint: (Frame) -> Frame = { $0 },
            each: (hkcv_measurement, Double, Frame) -> Void = { _, _, _ in })
    -> (lost: Int, worstIoU: Double, last: hkcv_measurement, frame: Frame) {
    precondition(frames > 0)
    let tracker = Tracker(cardType: start.card_type == CR_CARD_2003 ? HKCV_CARD_2003 : HKCV_CARD_2018)
    var s = start
    var lost = 0, worst = 1.0
    var last: (hkcv_measurement, Frame)?
    for k in 0..<frames {
        change(&s, k)
        let frame = repaint(scenes.render(s))
        let m = tracker.process(frame, pts: Int64(k) * 33_333_333)
        last = (m, frame)
        guard k >= first else { continue }
        let iou = m.found == 1 ? jaccard(floats(m.corners), frame.truthCorners) : 0
        if m.found == 1 { worst = min(worst, iou) } else { lost += 1 }
        each(m, iou, frame)
    }
    return (lost, worst, last!.0, last!.1)
}

// MARK: - metrics

/// Intersection over union of two quads given as x0,y0 … x3,y3; the same
/// measure `hkid-liveness replay --expect` reports.
func jaccard(_ a: [Float], _ b: [Float]) -> Double {
    func points(_ q: [Float]) -> [(Double, Double)] { (0..<4).map { (Double(q[2 * $0]), Double(q[2 * $0 + 1])) } }
    return Polygon.jaccard(points(a), points(b))
}

/// The distance between each pair of corresponding corners of two quads
/// given as x0,y0 … x3,y3.
func cornerDistances(_ a: [Float], _ b: [Float]) -> [Double] {
    (0..<4).map { i -> Double in
        let dx = Double(a[2 * i] - b[2 * i]), dy = Double(a[2 * i + 1] - b[2 * i + 1])
        return (dx * dx + dy * dy).squareRoot()
    }
}

func meanCornerError(_ a: [Float], _ b: [Float]) -> Double { cornerDistances(a, b).reduce(0, +) / 4 }

func maxCornerError(_ a: [Float], _ b: [Float]) -> Double { cornerDistances(a, b).max()! }

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    return s[min(s.count - 1, Int(p * Double(s.count)))]
}

/// A deterministic generator so sweeps are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A frame's true card outline, for tests that paint round the card: its
/// corners' x and y (TL TR BR BL, clockwise in image coordinates).
struct CardOutline {
    let xs: [Double], ys: [Double]

    init(_ frame: Frame) {
        let c = frame.truthCorners
        xs = (0..<4).map { Double(c[2 * $0]) }
        ys = (0..<4).map { Double(c[2 * $0 + 1]) }
    }

    /// Whether (x, y) lies inside the outline (it is convex).
    func contains(_ x: Double, _ y: Double) -> Bool {
        for k in 0..<4 {
            let ax = xs[k], ay = ys[k], bx = xs[(k + 1) % 4], by = ys[(k + 1) % 4]
            if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < 0 { return false }
        }
        return true
    }
}

extension Frame {
    /// The frame with everything outside the card's true outline repainted:
    /// luma by `luma(x, y)`, both colour planes neutral grey (a colour
    /// sample is outside when the middle of its 2 x 2 luma pixels is).
    func repaintedAroundCard(luma: (Double, Double) -> UInt8) -> Frame {
        var f = self
        let w = width, h = height
        let card = CardOutline(self)
        for y in 0..<h {
            for x in 0..<w where !card.contains(Double(x), Double(y)) {
                f.pixels[y * w + x] = luma(Double(x), Double(y))
            }
        }
        let u = w * h, v = u + w * h / 4
        for y in 0..<(h / 2) {
            for x in 0..<(w / 2) where !card.contains(Double(2 * x) + 0.5, Double(2 * y) + 0.5) {
                f.pixels[u + y * (w / 2) + x] = 128
                f.pixels[v + y * (w / 2) + x] = 128
            }
        }
        return f
    }

    /// The whole card lies inside the frame with a small margin.
    var cardFullyInside: Bool {
        let c = truthCorners
        return (0..<4).allSatisfy { i in
            c[2 * i] > 3 && c[2 * i] < Float(width - 4) && c[2 * i + 1] > 3 && c[2 * i + 1] < Float(height - 4)
        }
    }
}
