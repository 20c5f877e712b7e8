// TrackingTests.swift — following a card across frames: thumbs, leaving,
// rotation lag and angular speed.
import CCardRender
import CCardVision
import Foundation
import Testing

private let frameNs: Int64 = 33_333_333  // 30 fps

@Suite struct TrackingTests {
    /// A thumb over part of an edge (or a corner) must not break the lock.
    @Test(arguments: [(CR_EDGE_BOTTOM, 0.5), (CR_EDGE_RIGHT, 0.4), (CR_EDGE_LEFT, 0.95), (CR_EDGE_TOP, 0.3)])
    func thumbStaysLocked(edge: cr_edge, position: Double) {
        let scenes = Scenes(seed: 21)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        var lost = 0
        var ious: [Double] = []
        for k in 0..<24 {
            s.center_x = 640 + 60 * sin(Double(k) * 0.2)
            s.yaw_deg = 15 * sin(Double(k) * 0.15)
            s.thumb = k >= 2 ? 1 : 0  // acquire first, then the hand closes
            s.thumb_edge = edge
            s.thumb_pos = position
            let frame = scenes.render(s)
            let m = tracker.process(frame, pts: Int64(k) * frameNs)
            if k < 2 { continue }
            if m.found == 1 { ious.append(jaccard(floats(m.corners), frame.truthCorners)) } else { lost += 1 }
        }
        #expect(lost == 0)
        #expect((ious.min() ?? 0) >= 0.95)
    }

    /// A card whose edge lies a few pixels from the frame border (NEAR by
    /// border contact) is still measured, frame after frame: that edge's
    /// search line runs past the border, which once left the side unfitted
    /// and let the tracker extrapolate it off-frame (pitch drifting to -30).
    @Test(arguments: [CR_EDGE_LEFT, CR_EDGE_TOP, CR_EDGE_RIGHT])
    func edgeAtTheFrameBorderStaysMeasured(edge: cr_edge) {
        let scenes = Scenes(seed: 90)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.35, scene: s)
        let halfWidth = 0.35 * 1280 / 2, halfHeight = halfWidth / 1.586
        var ious: [Double] = [], worstAngle = 0.0
        for k in 0..<45 {
            let graze = 4 + 2 * sin(Double(k) * 0.7)  // the hand wobbles: 2 to 6 px from the border
            switch edge {
            case CR_EDGE_LEFT: s.center_x = halfWidth + graze
            case CR_EDGE_RIGHT: s.center_x = 1279 - halfWidth - graze
            default: s.center_y = halfHeight + graze
            }
            let frame = scenes.render(s)
            let m = tracker.process(frame, pts: Int64(k) * frameNs)
            guard m.found == 1 else { ious.append(0); continue }
            ious.append(jaccard(floats(m.corners), frame.truthCorners))
            worstAngle = max(worstAngle, abs(Double(m.yaw)), abs(Double(m.pitch)))
        }
        #expect((ious.min() ?? 0) >= 0.97, "IoU per frame: \(ious.map { String(format: "%.3f", $0) })")
        #expect(worstAngle < 3, "the card is front-on; worst |yaw| or |pitch| seen: \(worstAngle)")
    }

    /// A card held so near that the frame cuts off its bottom side: only
    /// the top and the two sides running out of the frame are seen, and the
    /// hidden corners must be where the card's image puts them, not where a
    /// guess carried from frame to frame drifted (read as a tilt of 15-20
    /// degrees of a card held flat). Front-on and turned; the card is first
    /// seen with 65-80 px of it below the frame, so the search itself
    /// places the hidden side.
    @Test(arguments: [(0.0, 0.0), (14.0, 0.0), (0.0, -12.0)])
    func aCardCutByTheFrameKeepsItsTilt(yaw: Double, pitch: Double) {
        let scenes = Scenes(seed: 44)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.78, scene: s)
        s.yaw_deg = yaw
        s.pitch_deg = pitch
        var worstYaw = 0.0, worstPitch = 0.0, worstHidden = 0.0, cutFrames = 0
        _ = follow(scenes, s, frames: 60, from: 5, change: { s, k in
            s.center_y = 359.5 + 110 + 12 * sin(Double(k) * 0.2)
            s.center_x = 639.5 + 20 * sin(Double(k) * 0.1)
        }, each: { m, _, frame in
            let truth = frame.truthCorners
            guard m.found == 1, truth[5] > 719 || truth[7] > 719 else { return }
            cutFrames += 1
            worstYaw = max(worstYaw, abs(Double(m.yaw) - Double(frame.truth.yaw)))
            worstPitch = max(worstPitch, abs(Double(m.pitch) - Double(frame.truth.pitch)))
            let corners = floats(m.corners)
            for i in [2, 3] {  // the bottom corners, beyond the frame
                let dx = Double(corners[2 * i] - truth[2 * i]), dy = Double(corners[2 * i + 1] - truth[2 * i + 1])
                worstHidden = max(worstHidden, (dx * dx + dy * dy).squareRoot())
            }
        })
        #expect(cutFrames >= 40, "frames found with the bottom side beyond the frame: \(cutFrames)")
        #expect(worstYaw < 3 && worstPitch < 3, "worst yaw error \(worstYaw), pitch error \(worstPitch)")
        // Within 2 % of the card's width (1000 px here): the hidden corners
        // follow the visible sides' directions, each good to a fraction of a
        // degree.
        #expect(worstHidden < 20, "worst hidden corner error \(worstHidden) px")
    }

    /// A lamp's glare that grows over the middle of a card being turned in
    /// front of a wall, to half the card: the card's print washes out, and
    /// the neighbourhood re-check must not hand the card over to a quad of
    /// the background around it (on brick that happened at the first
    /// re-check under glare, frame 75: IoU 0.31 from then on, glare read
    /// 0.18 for 0.51; on coffee, IoU 0.82). Every frame the card itself,
    /// and its glare measured.
    @Test(arguments: [("brick", 0), ("coffee", 0), ("brick", 1)])
    func glareDoesNotHandTheCardToTheBackground(photo: String, limited: Int32) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.limited_range = limited  // Frame.range then says so, as a stream's caps do
        s.glare_u = 0.5
        s.glare_v = 0.5
        let (lost, worstIoU, m, frame) = follow(scenes, s, frames: 120) { s, k in
            Self.turnInHand(&s, frame: k)
            s.glare = k >= 10 ? 1 : 0
            s.glare_radius_mm = k >= 10 ? min(22, 22 * Double(k - 10) / 30 + 1) : 8
        }
        let last = (measured: m.glare, truth: frame.truth.glare_fraction)
        #expect(lost == 0)
        #expect(worstIoU >= 0.95)
        #expect(last.truth > 0.4, "the scene must glare over half the card")
        #expect(abs(last.measured - last.truth) <= 0.1 * last.truth)
    }

    /// A shadow's edge lies along one side of the card, and the card slides
    /// away from it (1-2 px a frame). The shadow's edge is a stronger step
    /// than the card's own edge against a light desk or gravel, and the edge
    /// fit pulled the side back onto it frame after frame while the print
    /// moved on: the side stayed on the shadow's edge until the card was
    /// 60 px too wide, and was carried along like that to the end (IoU 0.91).
    /// A quad that wide is not a card's image; the side goes back in to the
    /// card's edge (within about 40 frames, once the misfit shows).
    @Test(arguments: [("coffee", 0.7, 180.0, 2.0), ("gravel", 0.0, 0.0, 1.0)])
    func sideDoesNotStayOnAShadowEdgeTheCardLeaves(photo: String, lift: Double, shadowAngle: Double, speed: Double) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        var s = scenes.scene()
        s.background_lift = lift
        s.distance_mm = Scenes.distance(forWidthRatio: 0.42, scene: s)
        // The shadow's edge through the card's left (angle 180: the shadow on
        // the left) or right side as it is at the start.
        let start = scenes.render(s).truthCorners
        let edgeX = shadowAngle == 0 ? max(start[2], start[4]) : min(start[0], start[6])
        s.shadow = 0.5
        s.shadow_angle_deg = shadowAngle
        s.shadow_x = Double(edgeX) / 1280
        s.shadow_y = 0.5
        s.shadow_soft_px = 3
        var ious: [Double] = []
        let (lost, _, _, _) = follow(scenes, s, frames: 60) { s, k in
            s.yaw_deg = 3 * sin(Double(k) / 15)
            s.center_x = 639.5 + speed * Double(k) * (shadowAngle == 0 ? -1 : 1)
        } each: { _, iou, _ in ious.append(iou) }
        let end = ious.suffix(10)
        #expect(lost == 0)
        #expect(end.count == 10 && end.allSatisfy { $0 >= 0.97 },
                "IoU of the last ten frames: \(end.map { String(format: "%.3f", $0) })")
    }

    /// A card printed with a dark border line a few millimetres inside its
    /// edge, turned right, back and left in a hand (as
    /// samples/inner-frames-coffee-2018): the line is a stronger step than
    /// the card's edge, and as the card turned the edge fit took a side over
    /// to it, the focal length estimate growing to make the narrow quad a
    /// card; the side stayed there to the end, 12-17 px in. Where the fit
    /// pulls a side in from where the print put it, the side goes back out
    /// when there is card between and the outline is no less a card's.
    @Test(arguments: [("coffee", CR_CARD_2018), ("rocket", CR_CARD_2003), ("gravel", CR_CARD_2003)])
    func sideDoesNotSettleOnAnInsetBorderLine(photo: String, card: cr_card_type) {
        let scenes = Scenes(seed: 1202)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        scenes.usePhoto(CR_PHOTO_PORTRAIT, "astronaut")
        var s = scenes.scene()
        s.card_type = card
        s.inner_frames = 1
        s.distance_mm = 200
        s.roll_deg = 3
        s.center_x = 0.52 * Double(s.width)
        s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_BOTTOM, pos: 0.7, width_mm: 20, reach_mm: 12))
        // Still, turned right, back, still, turned left, still (seconds).
        let keys: [(t: Double, yaw: Double)] = [(0, 0), (1.0, 0), (1.9, 30), (2.3, 30), (3.2, 0), (3.8, 0), (4.7, -30), (5.7, -30)]
        var worst = 0.0, off = 0
        let (lost, _, _, _) = follow(scenes, s, frames: 171) { s, k in
            let t = Double(k) / 30
            let i = keys.lastIndex { $0.t <= t }!
            let (a, b) = (keys[i], keys[min(i + 1, keys.count - 1)])
            s.yaw_deg = b.t > a.t ? a.yaw + (b.yaw - a.yaw) * (t - a.t) / (b.t - a.t) : a.yaw
        } each: { m, _, frame in
            guard m.found == 1 else { return }
            let error = maxCornerError(floats(m.corners), frame.truthCorners)
            worst = max(worst, error)
            if error > 5 { off += 1 }
        }
        #expect(lost == 0)
        #expect(off <= 2 && worst < 7, "\(off) frames more than 5 px off, worst \(worst) px")
    }

    /// The focal length is learnt from the card's perspective only outside a
    /// glare: with a lamp's bloom over the right edge, where a thumb holds
    /// the card in front of a launch tower, the side under the bloom is a
    /// guess, and such quads took the estimate 25-28 % long (on
    /// dev_glare_2003, 1065 -> 1484 px; with it the wrong quad passed for a
    /// card and nothing put it right).
    @Test func focalLengthIsNotLearntUnderGlare() {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "rocket")
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.glare_u = 0.8
        s.glare_v = 0.5
        s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.5, width_mm: 19, reach_mm: 11))
        let truth = Double(s.width) / 2 / tan(s.hfov_deg * .pi / 360)
        var worst = 0.0
        _ = follow(scenes, s, frames: 80) { s, k in
            Self.turnInHand(&s, frame: k)
            s.glare = (10..<70).contains(k) ? 1 : 0
            s.glare_radius_mm = s.glare == 1 ? min(15, 15 * Double(k - 10) / 20 + 1) : 8
        } each: { m, _, _ in
            if m.found == 1 { worst = max(worst, abs(Double(m.focal_px) / truth - 1)) }
        }
        #expect(worst < 0.05, "worst focal length error \(worst)")
    }

    /// A card held in a hand and turned a little: yaw within 8 degrees,
    /// pitch within 5, drifting 3 % of the frame sideways.
    static func turnInHand(_ s: inout cr_scene, frame k: Int) {
        let t = Double(k) / 30
        s.yaw_deg = 8 * sin(t * 1.1)
        s.pitch_deg = 5 * sin(t * 0.8)
        s.center_x = Double(s.width) * (0.5 + 0.03 * sin(t))
    }

    /// A still view with no card in it (a station's camera on an empty
    /// counter, the start of a recording before the card is raised) is
    /// searched on its first three frames, then once a second, not once in
    /// ten frames: each search costs about as much as decoding four frames,
    /// and the card-free development video cost 1.7-2.0 times its decoding.
    /// A card that comes into the view changes it and is searched for, and
    /// found, at the next tenth frame, as before.
    @Test func stillEmptyViewIsSearchedSeldomAndACardComingIntoItIsFound() {
        let scenes = Scenes(seed: 1402)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "brick")
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.4, scene: s)
        var searched: [Int] = [], found: [Int] = [], ious: [Double] = []
        var k = 0
        _ = follow(scenes, s, frames: 110, change: { s, frame in
            s.card_visible = frame >= 95 ? 1 : 0  // sensor noise changes every frame meanwhile
        }, each: { m, iou, _ in
            if m.searched_full_frame == 1 { searched.append(k) }
            if m.found == 1 {
                found.append(k)
                ious.append(iou)
            }
            k += 1
        })
        #expect(searched.filter { $0 < 95 } == [0, 1, 2, 32, 62, 92], "frames searched before the card came")
        #expect(found.first == 100, "the card came into view at frame 95; found at \(found.first.map(String.init) ?? "none")")
        #expect(found.count == 10 && (ious.min() ?? 0) >= 0.97, "IoU \(ious)")
    }

    /// The tracker first followed a badge on the photograph behind the
    /// card (a card-shaped box, while the light card on a white wall was
    /// not yet found), then a search found the card beside it. The print's
    /// points were still the badge's: they stayed still, all agreeing, and
    /// their homography, extrapolated to the card's corners, moved the card
    /// 25-50 px a frame, so the edges were lost every few frames and the
    /// IoU fell to 0.64 between searches (58 of 90 frames off; the 18
    /// frames on the badge stay, the other 40 go). Only the points still on
    /// the card go on.
    @Test func pointsLeftOnAnotherObjectDoNotMoveTheCard() {
        let scenes = Scenes(seed: 7)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "astronaut")
        var start = scenes.scene()
        start.limited_range = 1
        start.distance_mm = Scenes.distance(forWidthRatio: 0.4, scene: start)
        start.thumb = 1
        start.thumb_edge = CR_EDGE_BOTTOM
        start.thumb_pos = 0.4
        let (lost, worstAfter, _, _) = follow(scenes, start, frames: 90, from: 25) { s, k in
            let t = Double(k) / 30
            s.yaw_deg = 22 * sin(t * 1.3)
            s.pitch_deg = 10 * sin(t * 0.9 + 1)
            s.center_x = 1280 * (0.5 + 0.04 * sin(t))
            s.center_y = 720 * (0.5 + 0.03 * cos(t * 0.7))
        }
        #expect(lost == 0)
        #expect(worstAfter >= 0.95)
    }

    /// When the card goes away, "not found" within 2 frames.
    @Test func cardLeavingIsReported() {
        let scenes = Scenes(seed: 33)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.4, scene: s)
        for k in 0..<8 {
            #expect(tracker.process(scenes.render(s), pts: Int64(k) * frameNs).found == 1)
        }
        s.card_visible = 0
        let after = (8..<11).map { tracker.process(scenes.render(s), pts: Int64($0) * frameNs).found }
        #expect(after[1] == 0 && after[2] == 0)

        // Sliding out of the frame sideways, fast: once the whole card is
        // past the right border, at most one more frame may still report it.
        let tracker2 = Tracker()
        var t = scenes.scene()
        t.distance_mm = s.distance_mm
        var goneFrame = -1, reportedAfterGone = 0
        for k in 0..<20 {
            t.center_x = 640 + Double(k) * 60
            let frame = scenes.render(t)
            let m = tracker2.process(frame, pts: Int64(k) * frameNs)
            let c = frame.truthCorners
            let leftmost = [c[0], c[2], c[4], c[6]].min()!
            if goneFrame < 0 && leftmost > 1280 { goneFrame = k }
            if goneFrame >= 0 && k >= goneFrame + 1 && m.found == 1 { reportedAfterGone += 1 }
        }
        #expect(goneFrame > 0)
        #expect(reportedAfterGone == 0)
    }

    /// Smoothing must not lag a steady rotation by more than ~2 frames, and
    /// the angular speed must be about right.
    @Test func rotationLagAndSpeed() {
        let scenes = Scenes(seed: 44)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        let rate = 60.0  // degrees per second
        var worstLagFrames = 0.0
        var speeds: [Double] = []
        for k in 0..<30 {
            s.yaw_deg = -25 + rate * Double(k) / 30
            let m = tracker.process(scenes.render(s), pts: Int64(k) * frameNs)
            #expect(m.found == 1)
            if k >= 8 {
                worstLagFrames = max(worstLagFrames, (s.yaw_deg - Double(m.yaw)) / (rate / 30))
                speeds.append(Double(m.speed_dps))
            }
        }
        #expect(worstLagFrames <= 2.5)
        #expect(abs(percentile(speeds, 0.5) - rate) <= 15)
    }

    /// The angular speed is measured over 150 ms: a pose that is off for one
    /// frame (here the card really turned 20 degrees for one frame and back,
    /// as a smeared edge makes it seem) is no whip, while a turn at 240
    /// degrees/s held for a fifth of a second is one. Measured from frame to
    /// frame, the one-frame jump read 177 degrees/s, over the 120 of
    /// OVERSPEED (the development set's still and flat-shift videos raised it);
    /// over 150 ms it reads 67, and the whip 253.
    @Test func speedIsMeasuredOverAFifthOfASecondNotFrameToFrame() {
        let scenes = Scenes(seed: 45)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.4, scene: s)
        var glitchSpeeds: [Double] = [], whipSpeeds: [Double] = []
        for k in 0..<40 {
            switch k {
            case 12: s.yaw_deg = 20         // one frame off
            case 26..<32: s.yaw_deg = Double(k - 25) * 8  // 8 degrees a frame: 240 degrees/s
            case 32...: s.yaw_deg = 48
            default: s.yaw_deg = 0
            }
            let m = tracker.process(scenes.render(s), pts: Int64(k) * frameNs)
            #expect(m.found == 1, "frame \(k)")
            if (12..<20).contains(k) { glitchSpeeds.append(Double(m.speed_dps)) }
            if (26..<34).contains(k) { whipSpeeds.append(Double(m.speed_dps)) }
        }
        #expect(glitchSpeeds.max()! < 120, "around the one-frame jump: \(glitchSpeeds)")
        #expect(whipSpeeds.max()! > 150, "during the whip: \(whipSpeeds)")
    }

    /// A camera narrower than configured (50 vs 62 degrees): the focal
    /// length estimated from the tilted card converges to the true one.
    @Test func focalLengthFromTheCard() {
        let scenes = Scenes(seed: 66)
        let tracker = Tracker()
        var s = scenes.scene()
        s.hfov_deg = 50
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        var last = hkcv_measurement()
        for k in 0..<40 {
            s.yaw_deg = 35 * sin(Double(k) * 0.16)
            s.pitch_deg = 12 * cos(Double(k) * 0.11)
            last = tracker.process(scenes.render(s), pts: Int64(k) * frameNs)
        }
        let truth = 640 / tan(25 * Double.pi / 180)
        #expect(abs(Double(last.focal_px) - truth) / truth < 0.05)
    }

    @Test func distanceAndBorder() {
        let scenes = Scenes(seed: 55)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        let m = Tracker().process(scenes.render(s))
        #expect(abs(m.width_ratio - 0.5) < 0.01)
        #expect(m.touches_border == 0)
        s.center_x = 1280 - 0.25 * 1280 - 4  // right edge ~4 px from the border
        let n = Tracker().process(scenes.render(s))
        #expect(n.found == 1)
        #expect(n.touches_border == 1)
        // The margin is the caller's: with none, 4 px from the border is inside.
        let flush = Tracker { $0.border_margin = 0 }.process(scenes.render(s))
        #expect(flush.found == 1 && flush.touches_border == 0)
    }

    /// Each frame's time is told by stage (hkid-bench vision prints the
    /// breakdown): a search is counted as one and fits no edges to a
    /// prediction (its flow is the points it picks for the next frame), a
    /// tracked frame follows the print, fits the edges and measures the
    /// card, the first re-check of a newly found card falls in its own
    /// stage, and the stages add up to the frame's total.
    @Test func frameTimeIsToldByStage() {
        let scenes = Scenes(seed: 66)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        var rechecks = 0
        for k in 0..<24 {
            s.yaw_deg = 10 * sin(Double(k) * 0.2)
            let m = tracker.process(scenes.render(s), pts: Int64(k) * frameNs)
            let t = m.stages
            let parts = [t.flow, t.fit, t.search, t.recheck, t.photometry, t.liveness, t.other]
            #expect(parts.allSatisfy { $0 >= 0 }, "frame \(k): \(t)")
            #expect(abs(parts.reduce(0, +) - t.total) <= 1e-3 * max(1, t.total), "frame \(k): \(t)")
            #expect(m.found == 1, "frame \(k)")
            if k == 0 {
                #expect(m.searched_full_frame == 1)
                #expect(t.search > 0 && t.fit == 0, "\(t)")
            } else {
                #expect(m.searched_full_frame == 0, "frame \(k)")
                #expect(t.flow > 0 && t.fit > 0 && t.search == 0, "frame \(k): \(t)")
            }
            #expect(t.photometry > 0 && t.liveness > 0, "frame \(k): \(t)")
            if t.recheck > 0 { rechecks += 1 }
        }
        // Re-checked 15 frames after it was found, and not again within 24.
        #expect(rechecks == 1)
    }
}
