/// How close the tracker came to the ground truth of a rendered video.
public struct Accuracy: Sendable, Equatable {
    /// Frames where the card was visible, and how many of them it was found in.
    public var visibleFrames: Int
    public var detectedFrames: Int
    /// Frames without a card where one was reported anyway.
    public var falseDetections: Int
    /// Mean intersection over union of the reported and true quads.
    public var meanJaccard: Double
    /// Median and 90th percentile absolute angle errors, degrees.
    public var yawMedianError: Double
    public var pitchMedianError: Double
    public var yawP90Error: Double
    public var pitchP90Error: Double

    public var recall: Double { visibleFrames == 0 ? 1 : Double(detectedFrames) / Double(visibleFrames) }

    /// One analysed frame, as the tracker reported it.
    public struct Measured: Sendable {
        public var t: Double
        /// TL, TR, BR, BL; nil when no card was found.
        public var corners: [(Double, Double)]?
        public var yaw: Double
        public var pitch: Double
        public init(t: Double, corners: [(Double, Double)]?, yaw: Double, pitch: Double) {
            self.t = t
            self.corners = corners
            self.yaw = yaw
            self.pitch = pitch
        }
    }

    /// Pairs frames by media time (to the millisecond) and compares them.
    /// A card counts as visible only when all four corners are inside the frame.
    public init(truth: [FrameTruth], measured: [Measured], frameWidth: Double, frameHeight: Double) {
        var byTime: [Int: Measured] = [:]
        for m in measured { byTime[Int((m.t * 1000).rounded())] = m }
        var jaccards: [Double] = [], yawErrors: [Double] = [], pitchErrors: [Double] = []
        var visible = 0, detected = 0, falseDetections = 0
        for frame in truth {
            guard let m = byTime[Int((frame.t * 1000).rounded())] else { continue }
            let inside = frame.visible && frame.corners.allSatisfy { $0[0] >= 0 && $0[1] >= 0 && $0[0] < frameWidth && $0[1] < frameHeight }
            if !frame.visible {
                if m.corners != nil { falseDetections += 1 }
                continue
            }
            guard inside else { continue }
            visible += 1
            guard let corners = m.corners else { continue }
            detected += 1
            jaccards.append(Polygon.jaccard(corners, frame.corners.map { ($0[0], $0[1]) }))
            yawErrors.append(abs(m.yaw - frame.yaw))
            pitchErrors.append(abs(m.pitch - frame.pitch))
        }
        visibleFrames = visible
        detectedFrames = detected
        self.falseDetections = falseDetections
        meanJaccard = jaccards.isEmpty ? 0 : jaccards.reduce(0, +) / Double(jaccards.count)
        yawMedianError = Self.percentile(yawErrors, 0.5)
        pitchMedianError = Self.percentile(pitchErrors, 0.5)
        yawP90Error = Self.percentile(yawErrors, 0.9)
        pitchP90Error = Self.percentile(pitchErrors, 0.9)
    }

    /// Nearest-rank percentile; 0 for no values.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// Convex polygon arithmetic for quads.
public enum Polygon {
    /// Signed area by the shoelace formula (positive for clockwise in image
    /// coordinates, where y points down).
    public static func area(_ p: [(Double, Double)]) -> Double {
        var sum = 0.0
        for i in p.indices {
            let (x1, y1) = p[i], (x2, y2) = p[(i + 1) % p.count]
            sum += x1 * y2 - x2 * y1
        }
        return sum / 2
    }

    /// Intersection over union of two convex polygons.
    public static func jaccard(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Double {
        let areaA = abs(area(a)), areaB = abs(area(b))
        let intersection = abs(area(clip(a, by: b)))
        let union = areaA + areaB - intersection
        return union > 0 ? intersection / union : 0
    }

    /// Sutherland–Hodgman: the part of `subject` inside the convex `clipper`.
    public static func clip(_ subject: [(Double, Double)], by clipper: [(Double, Double)]) -> [(Double, Double)] {
        let orientation: Double = area(clipper) >= 0 ? 1 : -1
        var output = subject
        for i in clipper.indices {
            let a = clipper[i], b = clipper[(i + 1) % clipper.count]
            func inside(_ p: (Double, Double)) -> Bool {
                orientation * ((b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)) >= 0
            }
            func intersect(_ p: (Double, Double), _ q: (Double, Double)) -> (Double, Double) {
                let (x1, y1) = p, (x2, y2) = q, (x3, y3) = a, (x4, y4) = b
                let d = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
                guard abs(d) > 1e-12 else { return q }
                let t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / d
                return (x1 + t * (x2 - x1), y1 + t * (y2 - y1))
            }
            let input = output
            output = []
            guard !input.isEmpty else { break }
            for j in input.indices {
                let current = input[j], previous = input[(j + input.count - 1) % input.count]
                if inside(current) {
                    if !inside(previous) { output.append(intersect(previous, current)) }
                    output.append(current)
                } else if inside(previous) {
                    output.append(intersect(previous, current))
                }
            }
        }
        return output
    }
}
