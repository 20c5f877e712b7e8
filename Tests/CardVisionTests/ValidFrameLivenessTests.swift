// ValidFrameLivenessTests.swift — the liveness checks judge only frames on
// which the card's material can be read (issue 38): a card cut by the
// frame, too near or too far, out of focus or under glare says nothing
// about its black or its colour, and must not end a genuine session.
import CCardRender
import CCardVision
import Foundation
import HKIDLiveness
import Logging
import Testing

@Suite struct ValidFrameLivenessTests {
    /// A genuine 2018 card first held so close that the frame cuts its left
    /// side (0.8 of the view wide, its centre at a third) and the camera
    /// cannot focus on it (a blur of 3 px at 960x540), for 1.6 s; then
    /// backed off to a third of the view, centred, and turned as the flow asks.
    static func nearFirstSession(seed: UInt64 = 38, farFirst: Bool = false, farWidth: Double = 0.16) -> [Frame] {
        let scenes = Scenes(seed: seed)
        var s = scenes.scene(width: 960, height: 540)
        s.card_type = CR_CARD_2018
        s.roll_deg = 1.5
        let near = Scenes.distance(forWidthRatio: farFirst ? farWidth : 0.8, scene: s)
        let right = Scenes.distance(forWidthRatio: 0.34, scene: s)
        let start = farFirst ? 479.5 : 330.0, focus = farFirst ? 0.0 : 3.0
        var frames: [Frame] = []
        func ease(_ i: Int, _ n: Int) -> Double { (1 - cos(Double(i) / Double(n) * .pi)) / 2 }
        for i in 0..<48 {  // near, cut by the frame, out of focus
            s.distance_mm = near
            s.blur_sigma = focus
            s.center_x = start + 8 * sin(Double(i) * 0.3)
            frames.append(scenes.render(s))
        }
        for i in 1...24 {  // backed off, coming into focus
            let k = ease(i, 24)
            s.distance_mm = near + (right - near) * k
            s.blur_sigma = focus * (1 - k)
            s.center_x = start + (Double(s.width - 1) / 2 - start) * k
            frames.append(scenes.render(s))
        }
        s.blur_sigma = 0
        // The flow as the samples turn it: held, to +30 in 1.1 s, held, back
        // in 1 s, held, to -30 in 1.1 s, held (30 fps).
        let hold = { (a: Double, n: Int) in [Double](repeating: a, count: n) }
        let turn = { (a: Double, b: Double, n: Int) in (1...n).map { a + (b - a) * ease($0, n) } }
        let flow = hold(0, 36) + turn(0, 30, 33) + hold(30, 15) + turn(30, 0, 30) + hold(0, 24)
            + turn(0, -30, 33) + hold(-30, 36)
        for (index, angle) in flow.enumerated() {
            s.yaw_deg = angle
            s.center_x = Double(s.width - 1) / 2 + 6 * sin(Double(index) * 0.3)
            frames.append(scenes.render(s))
        }
        return frames
    }

    /// The frames through a fresh tracker at 30 fps: how many it followed,
    /// and the liveness evidence it gathered.
    static func evidence(of frames: ArraySlice<Frame>, card: hkcv_card_type = HKCV_CARD_2018)
        -> (tracked: Int, liveness: hkcv_liveness) {
        let tracker = Tracker(cardType: card)
        var tracked = 0
        for (index, f) in frames.enumerated()
            where tracker.process(f, pts: Int64(index) * 33_333_333).found != 0 { tracked += 1 }
        var l = hkcv_liveness()
        #expect(hkcv_tracker_liveness(tracker.handle, &l) == HKCV_OK)
        return (tracked, l)
    }

    /// The session's results (every retCode it reported) with the frames fed
    /// through the real session, as replay does, at 30 fps.
    static func results(of frames: [Frame], mode: LivenessMode = .enforce) throws -> [LivenessResult] {
        var configuration = LivenessConfiguration(cardType: .hkid2018)
        configuration.faceCascadePath = ""
        configuration.liveness = mode
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let session = LivenessSession(configuration: configuration, logger: logger)
        defer { session.close() }
        session.startDetect()
        var results: [LivenessResult] = []
        for (index, f) in frames.enumerated() {
            let analysis = try f.pixels.withUnsafeBufferPointer { p in
                let y = p.baseAddress!, u = y + f.width * f.height, v = u + f.width * f.height / 4
                return try session.addFrame(planes: [y, u, v], strides: [f.width, f.width / 2, f.width / 2],
                                            width: f.width, height: f.height, format: FramePixelFormat.i420,
                                            pts: Int64(index) * 33_333_333)
            }
            for case .result(let r) in analysis.events { results.append(r) }
        }
        return results
    }

    static func describe(_ r: LivenessResult) -> String {
        let checks = r.liveness?.checks.map { "\($0.name)=\($0.score.map { String($0) } ?? "nil") \($0.verdict)" }
        return "retCode \(r.retCode) at \(r.t): \(checks?.joined(separator: ", ") ?? "no liveness")"
    }

    /// The whole session, judged as enforce judges it: it completes and is
    /// genuine. (On a held-back real-looking video the blurred near card read
    /// a black level of 0.50 and the session ended with 5 at 1.6 s; our
    /// renderer's near card keeps its black, 0.000-0.013 with 3-8 px of
    /// blur, so this guards the session's path, and the test below the rule.)
    @Test func genuineCardFirstHeldNearIsNotRefused() throws {
        let results = try Self.results(of: Self.nearFirstSession())
        let final = results.first { $0.code != .first }
        #expect(final?.code == .success, "\(results.map(Self.describe))")
        #expect(final?.liveness?.verdict == .genuine, "\(results.map(Self.describe))")
    }

    /// A card first held far (0.16 of the view wide) for 1.6 s: its print is
    /// a pixel or two, its black averaged with the paper.
    @Test func genuineCardFirstHeldFarIsNotRefused() throws {
        let results = try Self.results(of: Self.nearFirstSession(farFirst: true))
        let final = results.first { $0.code != .first }
        #expect(final?.code == .success, "\(results.map(Self.describe))")
        #expect(final?.liveness?.verdict == .genuine, "\(results.map(Self.describe))")
    }

    /// The rule itself: the near frames are counted as tracked but add
    /// nothing to the material's statistics, the optically variable print's
    /// poses included (a quad reaching past the frame rasters the background
    /// into its cells).
    @Test func nearCutFramesDoNotFeedTheMaterialStatistics() {
        let (tracked, l) = Self.evidence(of: Self.nearFirstSession().prefix(48))
        #expect(tracked >= 30, "the near card is followed (\(tracked) of 48 frames)")
        #expect(l.frames == Int32(tracked))
        #expect(l.material_frames == 0, "no near frame judged: \(LivenessEvidenceTests.describe(l))")
        #expect(l.black_level < 0 && l.chroma < 0, "\(LivenessEvidenceTests.describe(l))")
        let posed = withUnsafeBytes(of: l.pose_frames) { Array($0.bindMemory(to: Int32.self)) }
        #expect(posed.allSatisfy { $0 == 0 }, "near frames binned by pose: \(posed)")
    }

    /// A far card (0.22 of the view, under FAR's 0.25) is not read for a
    /// screen's grid: its fine periodic print shrinks onto the grid's
    /// periods (a genuine render first held far read 25.7, above the
    /// threshold, over those frames).
    @Test func farFramesDoNotFeedTheScreenGrid() {
        let (tracked, l) = Self.evidence(of: Self.nearFirstSession(farFirst: true, farWidth: 0.22).prefix(48))
        #expect(tracked >= 30, "the far card is followed (\(tracked) of 48 frames)")
        #expect(l.grid_frames == 0 && l.screen_grid < 0, "\(LivenessEvidenceTests.describe(l))")
    }

    /// The black level is judged where the card is largest in the camera's
    /// pixels: a card held at 0.6 of a 640 px view, then backed off to 0.27
    /// and softly focused, where its thin dark strokes average with the
    /// paper, reads as it did when large.
    @Test func blackLevelIsJudgedWhereTheCardIsLargest() {
        let scenes = Scenes(seed: 382)
        var s = scenes.scene(width: 640, height: 480)
        s.card_type = CR_CARD_2003
        var frames: [Frame] = []
        for i in 0..<20 {
            s.distance_mm = Scenes.distance(forWidthRatio: 0.6, scene: s)
            s.center_x = 319.5 + 4 * sin(Double(i) * 0.3)
            frames.append(scenes.render(s))
        }
        for i in 1...12 {  // backed off over 0.4 s, going out of focus
            let k = Double(i) / 12
            s.distance_mm = Scenes.distance(forWidthRatio: 0.6 + (0.27 - 0.6) * k, scene: s)
            s.blur_sigma = 2.5 * k
            frames.append(scenes.render(s))
        }
        for i in 0..<40 {
            s.distance_mm = Scenes.distance(forWidthRatio: 0.27, scene: s)
            s.blur_sigma = 2.5
            s.center_x = 319.5 + 4 * sin(Double(i) * 0.3)
            frames.append(scenes.render(s))
        }
        func blackLevel(_ frames: ArraySlice<Frame>) -> (Float, Int32) {
            let l = Self.evidence(of: frames, card: HKCV_CARD_2003).liveness
            return (l.black_level, l.material_frames)
        }
        let (large, largeFrames) = blackLevel(frames.prefix(20))
        let (small, smallFrames) = blackLevel(frames.suffix(40))
        let (whole, wholeFrames) = blackLevel(frames[...])
        #expect(largeFrames >= 15 && smallFrames >= 30 && wholeFrames >= 60, "\(largeFrames), \(smallFrames), \(wholeFrames)")
        #expect(small > large + 0.03, "the small blurred card reads higher: \(small) against \(large)")
        #expect(abs(whole - large) <= 0.01, "the session reads \(whole); large \(large), small \(small)")
    }

    /// The black level and the colour are judged on the frames in focus: a
    /// card held at 0.45 of a 640 px view, sharp for 20 frames, then
    /// blurred (σ 3 px: a camera hunting for focus) for 40 at the same size,
    /// reads as it did while sharp, though every blurred frame shows the
    /// material and most frames are blurred.
    @Test func blurredFramesDoNotFeedTheBlackLevelOrTheColour() {
        let scenes = Scenes(seed: 383)
        var s = scenes.scene(width: 640, height: 480)
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        var frames: [Frame] = []
        for i in 0..<60 {
            s.blur_sigma = i < 20 ? 0 : 3
            s.center_x = 319.5 + 4 * sin(Double(i) * 0.3)
            frames.append(scenes.render(s))
        }
        func evidence(_ frames: ArraySlice<Frame>) -> hkcv_liveness {
            Self.evidence(of: frames, card: HKCV_CARD_2003).liveness
        }
        let sharp = evidence(frames.prefix(20)), blurred = evidence(frames.suffix(40)), whole = evidence(frames[...])
        #expect(sharp.material_frames >= 15 && blurred.material_frames >= 35 && whole.material_frames >= 55,
                "\(sharp.material_frames), \(blurred.material_frames), \(whole.material_frames)")
        #expect(blurred.black_level > sharp.black_level + 0.03,
                "the blurred card reads higher: \(blurred.black_level) against \(sharp.black_level)")
        #expect(abs(whole.black_level - sharp.black_level) <= 0.01,
                "the session reads \(whole.black_level); sharp \(sharp.black_level), blurred \(blurred.black_level)")
        #expect(abs(whole.chroma - sharp.chroma) < abs(blurred.chroma - sharp.chroma) / 2,
                "colour: the session \(whole.chroma), sharp \(sharp.chroma), blurred \(blurred.chroma)")
    }

    /// hkcv_tracker_restart_material (the session calls it at ORTH) drops
    /// what the material frames gathered (black level, colour, their count)
    /// and keeps the frame count and the screen grid; the frames after it
    /// gather afresh.
    @Test func restartingTheMaterialKeepsOnlyTheFramesAfterIt() {
        let held = Array(Self.nearFirstSession().dropFirst(72).prefix(30))
        let tracker = Tracker(cardType: HKCV_CARD_2018)
        func liveness() -> hkcv_liveness {
            var l = hkcv_liveness()
            #expect(hkcv_tracker_liveness(tracker.handle, &l) == HKCV_OK)
            return l
        }
        for (index, f) in held.enumerated() where index < 20 { tracker.process(f, pts: Int64(index) * 33_333_333) }
        let before = liveness()
        #expect(before.material_frames >= 15 && before.black_level >= 0 && before.chroma > 6)
        #expect(before.grid_frames > 0)

        #expect(hkcv_tracker_restart_material(tracker.handle) == HKCV_OK)
        let restarted = liveness()
        #expect(restarted.material_frames == 0 && restarted.black_level == -1 && restarted.chroma == -1)
        #expect(restarted.frames == before.frames && restarted.grid_frames == before.grid_frames)
        #expect(restarted.screen_grid == before.screen_grid)

        for (index, f) in held.enumerated() where index >= 20 { tracker.process(f, pts: Int64(index) * 33_333_333) }
        let after = liveness()
        #expect(after.material_frames >= 8 && after.material_frames <= 10 && after.black_level >= 0)
        #expect(after.frames == before.frames + 10)
        #expect(hkcv_tracker_restart_material(nil) == HKCV_ERR_NULL)
    }

    /// The widths that bound the material frames are the configuration's
    /// (the session hands in its FAR and NEAR widths): the backed-off card,
    /// 0.34 of the view wide, shows its material by default and not once
    /// FAR starts at 0.4.
    @Test func materialFramesFollowTheConfiguredFarAndNearWidths() {
        let held = Array(Self.nearFirstSession().dropFirst(72).prefix(30))
        func materialFrames(minWidth: Double) -> Int32 {
            let tracker = Tracker(cardType: HKCV_CARD_2018) { $0.material_min_width = minWidth }
            for (index, f) in held.enumerated() { tracker.process(f, pts: Int64(index) * 33_333_333) }
            var l = hkcv_liveness()
            _ = hkcv_tracker_liveness(tracker.handle, &l)
            return l.material_frames
        }
        #expect(materialFrames(minWidth: 0.25) >= 25)
        #expect(materialFrames(minWidth: 0.4) == 0)
    }
}
