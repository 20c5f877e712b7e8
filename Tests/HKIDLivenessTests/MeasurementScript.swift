@testable import HKIDLiveness

/// A tiny language for writing what the camera would have measured, so a
/// test reads like the scenario it plays:
///
///     MeasurementScript(fps: 10)
///         .front(0.5)
///         .turn(.yaw, to: 30, over: 0.5)
///         .turn(.yaw, to: 0, over: 0.5)
///
/// Frame `i` has timestamp `i * 1e9 / fps` nanoseconds, computed in integers
/// so that times land exactly on the thresholds they are meant to test.
struct MeasurementScript {
    enum Axis {
        case yaw, pitch

        var keyPath: WritableKeyPath<CardMeasurement, Double> {
            switch self {
            case .yaw: \.yaw
            case .pitch: \.pitch
            }
        }
    }

    /// Changes to the card's appearance that persist until changed again.
    enum Tweak {
        case width(Double)
        case glare(Double)
        case speed(Double)
        case touchingBorder(Bool)
        case yaw(Double)
        case pitch(Double)
    }

    let fps: Int64
    private(set) var frames: [(pts: MediaTime, card: CardMeasurement)] = []
    /// Index of the next frame, global across `continued()` scripts.
    private var nextIndex: Int64
    /// The pose and appearance `hold` repeats.
    private var pose = MeasurementScript.frontPose

    /// Front-on, half the frame wide, no glare, not moving.
    static let frontPose = CardMeasurement(found: true, yaw: 0, pitch: 0, speed: 0, widthRatio: 0.5)

    init(fps: Int64 = 10) {
        self.fps = fps
        self.nextIndex = 0
    }

    /// A script that starts where this one ends (same pose, next frame), with no frames of its own yet.
    func continued() -> MeasurementScript {
        var next = self
        next.frames = []
        return next
    }

    /// Timestamp of the last frame written so far.
    var lastPTS: MediaTime { pts(of: nextIndex - 1) }

    private func pts(of index: Int64) -> MediaTime {
        MediaTime(nanoseconds: index * 1_000_000_000 / fps)
    }

    private func frameCount(_ seconds: Double) -> Int {
        Int((seconds * Double(fps)).rounded())
    }

    private mutating func append(_ card: CardMeasurement) {
        frames.append((pts(of: nextIndex), card))
        nextIndex += 1
    }

    /// Sets the pose back to front-on and holds it.
    func front(_ seconds: Double) -> MeasurementScript {
        var next = self
        next.pose = Self.frontPose
        return next.hold(seconds)
    }

    /// Repeats the current pose.
    func hold(_ seconds: Double) -> MeasurementScript {
        var next = self
        for _ in 0..<frameCount(seconds) { next.append(next.pose) }
        return next
    }

    /// Changes the pose from the next frame on.
    func with(_ tweaks: Tweak...) -> MeasurementScript {
        var next = self
        for tweak in tweaks {
            switch tweak {
            case .width(let ratio): next.pose.widthRatio = ratio
            case .glare(let fraction): next.pose.glare = fraction
            case .speed(let dps): next.pose.speed = dps
            case .touchingBorder(let touching): next.pose.touchesBorder = touching
            case .yaw(let degrees): next.pose.yaw = degrees
            case .pitch(let degrees): next.pose.pitch = degrees
            }
        }
        return next
    }

    /// Turns linearly from the current angle to `target`; the last frame is
    /// exactly at `target`. Speed is |change| / duration while turning, then 0.
    func turn(_ axis: Axis, to target: Double, over seconds: Double) -> MeasurementScript {
        var next = self
        let count = frameCount(seconds)
        let start = pose[keyPath: axis.keyPath]
        let speed = abs(target - start) / seconds
        for k in 1...count {
            var card = next.pose
            card[keyPath: axis.keyPath] = start + (target - start) * Double(k) / Double(count)
            card.speed = speed
            next.append(card)
        }
        next.pose[keyPath: axis.keyPath] = target
        next.pose.speed = 0
        return next
    }

    /// No card in view.
    func missing(_ seconds: Double) -> MeasurementScript {
        var next = self
        for _ in 0..<frameCount(seconds) { next.append(.notFound) }
        return next
    }
}
