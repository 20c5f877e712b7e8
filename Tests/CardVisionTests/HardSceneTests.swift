// HardSceneTests.swift — issue 12: what a card detector must do on scenes
// like video from other renderers, one failure pattern per test.
//
// Written to fail on the detector of issue 12's start (CCardVision 1.2.0):
// they assert what a correct detector does, not what today's does; do not
// loosen them to make them pass. The far card, the cut-off card, the
// photograph backgrounds, the faint top edge (far, and near under a shadow),
// a shadow across the card, a near blurred card cut by the frame and the
// bold inner frames pass with the detector of docs/detector.md and run in
// `make test`, as do, since they came to pass, a thumb and palm on a light
// desk, glare on limited range, columns of a wall closed by the card's
// edge and a side pulled back in at a re-check (both in a low-bitrate
// stream too); the patterns still open (a photographic
// card face, a side beside a widening line of the background, a near card's
// corner taken for a box printed on it, a shadow's edge sweeping over a card
// on brick, a card on a light wall whose far side only a line beyond its
// legs' ends closes) run only when
// HKID_HARD_SCENES=1 (the `stillOpen` trait);
// drop the trait from a test when it passes:
//   HKID_HARD_SCENES=1 swift test --filter HardSceneTests
//
// Every scene uses the renderer's harder options: photographs from
// samples/photos (scikit-image's sample data, CC0 or public domain, see
// samples/photos/README.md), hands over and behind the edges, bold inner
// boxes, small and cut-off cards, limited-range levels. Each test isolates
// one pattern: the same scene without it ("control" in the comments, measured
// with the detector at 3b0e115) is found with IoU >= 0.97, so a failure here
// is the pattern's, not the background's.
import CCardRender
import CCardVision
import Foundation
import HKIDLiveness  // SeededGenerator
import Testing

/// samples/photos/NAME.jpg of this checkout.
func photoPath(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("samples/photos/\(name).jpg").path
}

extension Scenes {
    func usePhoto(_ slot: cr_photo_slot, _ name: String) {
        let status = cr_renderer_set_photo(renderer, slot, photoPath(name))
        precondition(status == CR_OK, "samples/photos/\(name).jpg could not be read (\(status))")
    }
}

extension cr_scene {
    /// Sets hand part `index` (0..<CR_MAX_HAND_PARTS).
    mutating func setHand(_ index: Int, _ part: cr_hand_part) {
        withUnsafeMutableBytes(of: &hands) { $0.bindMemory(to: cr_hand_part.self)[index] = part }
    }
}

/// The tracker's view after a short still hold: the same scene rendered
/// `frames` times (fresh sensor noise each time), 30 fps timestamps; the
/// last measurement. A detector may confirm over a few frames, but a card
/// held still for a sixth of a second must be found.
func measureHeld(_ scenes: Scenes, _ scene: cr_scene, cardType: hkcv_card_type = HKCV_CARD_2018,
                 frames: Int = 5) -> (hkcv_measurement, Frame) {
    let tracker = Tracker(cardType: cardType)
    var last = hkcv_measurement()
    var frame = scenes.render(scene)
    for index in 0..<frames {
        if index > 0 { frame = scenes.render(scene) }
        last = tracker.process(frame, pts: Int64(index) * 33_333_333)
    }
    return (last, frame)
}

private let hardScenesEnabled = ProcessInfo.processInfo.environment["HKID_HARD_SCENES"] == "1"

/// Failing patterns still open: run with HKID_HARD_SCENES=1.
private let stillOpen = ConditionTrait.enabled(if: hardScenesEnabled, "issue 12: still fails; run with HKID_HARD_SCENES=1")

@Suite
struct HardSceneTests {
    static let edges: [cr_edge] = [CR_EDGE_TOP, CR_EDGE_RIGHT, CR_EDGE_BOTTOM, CR_EDGE_LEFT]

    static func iou(_ m: hkcv_measurement, _ frame: Frame) -> Double {
        m.found == 1 ? jaccard(floats(m.corners), frame.truthCorners) : 0
    }

    /// How far the found top-left and top-right corners are from the truth, the larger of the two (px).
    static func topCornersError(_ m: hkcv_measurement, _ frame: Frame) -> Float {
        let c = floats(m.corners), truth = frame.truthCorners
        return max(hypot(c[0] - truth[0], c[1] - truth[1]), hypot(c[2] - truth[2], c[3] - truth[3]))
    }

    /// A front-on card held still on a light desk by a thumb over one edge,
    /// the fingers behind it showing past the same edge: the card's outline
    /// merges with the hand's, and the card must still be found exactly.
    /// Control: the same desk without the hand, IoU 0.991. Passes since
    /// 2026-11-24 (the left edge when a line beyond both legs' ends may
    /// close three sides; the right and top when, nothing being found, the
    /// pieces of the side the thumb and palm split are joined).
    @Test(arguments: edges)
    func thumbOverEdgeOnLightDesk(edge: cr_edge) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "rocket")
        var s = scenes.scene()
        s.background_lift = 0.72
        s.distance_mm = Scenes.distance(forWidthRatio: 0.42, scene: s)
        let alongLongEdge = edge == CR_EDGE_TOP || edge == CR_EDGE_BOTTOM
        s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: edge, pos: 0.55, width_mm: 19, reach_mm: 11))
        s.setHand(1, cr_hand_part(kind: CR_HAND_PALM, edge: edge, pos: 0.45, width_mm: alongLongEdge ? 60 : 45,
                                  reach_mm: 40))
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.95)
    }

    /// A card whose face has a bold frame around the portrait and a border
    /// line 2.5 mm inside its edge, with a photograph as its portrait and a
    /// thumb over part of the bottom edge, front-on and at an angle: the
    /// enclosing card must win over the printed boxes inside it.
    /// Control (yaw 22, no inner frames): IoU 0.999.
    @Test(arguments: [(0.0, 0.0), (22.0, 0.0), (0.0, -18.0)])
    func innerPortraitFrameIsNotTheCard(yaw: Double, pitch: Double) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "gravel")
        scenes.usePhoto(CR_PHOTO_PORTRAIT, "astronaut")
        var s = scenes.scene()
        s.inner_frames = 1
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.yaw_deg = yaw
        s.pitch_deg = pitch
        s.roll_deg = 3
        s.thumb = 1
        s.thumb_edge = CR_EDGE_BOTTOM
        s.thumb_pos = 0.7
        s.thumb_width_mm = 20
        s.thumb_reach_mm = 12
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.95, "width \(m.width_ratio) vs \(frame.truth.width_ratio), roll \(m.roll) vs \(frame.truth.roll)")
        // No lock on an inner box: the inset border is 94 % of the card's
        // width, the portrait frame a third of it, and the portrait-shaped
        // frame would read as a card rolled by about 90 degrees.
        #expect(abs(Double(m.width_ratio) - Double(frame.truth.width_ratio)) <= 0.02 * Double(frame.truth.width_ratio))
        #expect(abs(Double(m.roll) - Double(frame.truth.roll)) <= 2)
    }

    /// The bold border printed 2.5 mm inside the card's edge is a cleaner
    /// edge than the card's own against a wall or a desk, and a box inset
    /// all round is nearly a card's shape: the search took quads with one
    /// side or all four on it (a fifth of the random scenes of `hkid-bench
    /// scenes` with inner frames were 5-15 % too small), and tracking kept
    /// them. Each side must be on the card's edge. Control (no inner
    /// frames): IoU 0.997-0.999; before the sides were widened to the
    /// card's edge (2026-11-24): 0.867-0.923.
    @Test(arguments: [("coffee", 0.5, CR_EDGE_TOP, 0.45), ("", 0.5, CR_EDGE_BOTTOM, 0.45),
                      ("astronaut", 0.5, CR_EDGE_TOP, 0.30), ("rocket", 0.0, CR_EDGE_LEFT, 0.45)])
    func insetBorderIsNotTheCardEdge(photo: String, lift: Double, thumbEdge: cr_edge, widthRatio: Double) {
        let scenes = Scenes(seed: 1300)
        if !photo.isEmpty { scenes.usePhoto(CR_PHOTO_BACKGROUND, photo) }
        var s = scenes.scene()
        s.inner_frames = 1
        s.background_lift = lift
        s.distance_mm = Scenes.distance(forWidthRatio: widthRatio, scene: s)
        s.yaw_deg = 12
        s.pitch_deg = -8
        s.roll_deg = 4
        s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: thumbEdge, pos: 0.4, width_mm: 19, reach_mm: 11))
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.97)
    }

    /// The same bold border on a smaller card, held: once a side is on the
    /// card's edge, the printed line a few pixels inside it must not take
    /// it back. Its outer side is a step of the other polarity from the
    /// card's edge against the desk, and stronger: the edge fit took the
    /// side back a frame after the search had widened it to the edge (IoU
    /// 0.995 on the first frame, 0.921 from the third, before the widened
    /// sides were held).
    @Test(arguments: [("rocket", false), ("chelsea", true)])
    func insetBorderDoesNotTakeTheSideBack(photo: String, thumb: Bool) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        var s = scenes.scene()
        s.inner_frames = 1
        s.background_lift = 0.5
        s.distance_mm = Scenes.distance(forWidthRatio: 0.25, scene: s)
        s.yaw_deg = 12
        s.pitch_deg = -8
        s.roll_deg = 4
        if thumb {
            s.setHand(0, cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_BOTTOM, pos: 0.4, width_mm: 19, reach_mm: 11))
        }
        // From the second frame: the first may be found a little off.
        let (lost, worstIoU, _, _) = follow(scenes, s, frames: 12, from: 1) { _, _ in }
        #expect(lost == 0)
        #expect(worstIoU >= 0.97)
    }

    /// A far card, 15 % of the frame width, over gravel: found, with its
    /// size measured well enough that FAR can fire. Control: the same scene
    /// at 45 % of the width, IoU 0.999.
    @Test func farCardAtFifteenPercent() {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "gravel")
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.15, scene: s)
        s.center_x = 0.42 * Double(s.width)
        s.center_y = 0.56 * Double(s.height)
        s.roll_deg = 4
        let (m, frame) = measureHeld(scenes, s, cardType: HKCV_CARD_2003)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.95)
        #expect(abs(Double(m.width_ratio) - 0.15) <= 0.01)
    }

    /// A near card with a third of it outside the frame: still tracked, and
    /// reported as touching the border so NEAR can fire, instead of lost.
    /// Control: the same card centred (fully inside), IoU 0.999.
    @Test func cutOffCardTouchesBorder() {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "rocket")
        var s = scenes.scene(width: 960, height: 540)
        s.distance_mm = Scenes.distance(forWidthRatio: 0.55, scene: s)
        s.center_x = 0.86 * Double(s.width)
        s.roll_deg = -3
        let (m, frame) = measureHeld(scenes, s)
        #expect(frame.truthCorners[2] > Float(s.width), "the scene must cut the card")
        #expect(m.found == 1)
        #expect(m.touches_border == 1)
    }

    /// A 2003 card a third of the frame wide, held square to a wall of
    /// upright bricks, a thumb over its right side, in a low-bitrate stream
    /// (every plane coded at JPEG quality 18) and uncoded. Three columns of
    /// bricks below the card, closed by its bottom edge and running off the
    /// frame, passed for a card the frame cuts and ranked first on the
    /// area they did not show; nothing was found in five frames (the
    /// development set's brick video re-encoded at QP 36 locked onto such
    /// columns for 45 frames, and the early black-level verdict on them
    /// ended the session with 5). A cut card is a near one, and ranks by
    /// what it shows.
    @Test(arguments: [18, 0])
    func brickColumnsClosedByTheCardAreNotACutCard(quality: Int32) {
        let scenes = Scenes(seed: 1)
        var s = Self.cardBeforeUprightBricks(scenes, widthRatio: 0.33, quality: quality,
                                             hand: cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.5,
                                                                width_mm: 18, reach_mm: 12))
        s.center_x = 0.4 * Double(s.width - 1)
        s.center_y = 0.55 * Double(s.height - 1)
        let (m, frame) = measureHeld(scenes, s, cardType: HKCV_CARD_2003)
        let iou = m.found == 1 ? Self.iou(m, frame) : 0
        #expect(m.found == 1)
        #expect(iou >= 0.95)
    }

    /// A 2003 card drifting slowly in front of upright bricks, turning a
    /// few degrees, a palm behind its right side, in a low-bitrate stream
    /// (JPEG quality 20 per plane). The re-check at frame 45 took a
    /// quad that encloses the card with its left side on a brick column's
    /// edge (the enclosing card may always replace a box printed on it),
    /// and the tracker followed it to the end: IoU 0.78 on every frame
    /// after. A re-check may now also pull one side of the tracked quad back
    /// in, when the card's own side is a clearer step between two surfaces
    /// than the side it replaces: 0.99 from the next re-check (frame 60) on.
    /// The development set re-encoded at QP 36, darker and noisier, or
    /// brighter (scripts/perturb-dev.py) had `dev_genuine_2003_brick` fail
    /// for a left side the first search put on a mortar joint beside the
    /// card, which drifted out for two seconds: now put right at the
    /// second re-check, and the session completes.
    @Test func reCheckPullsASideThatWentOutBackIn() {
        let scenes = Scenes(seed: 1)
        let s = Self.cardBeforeUprightBricks(scenes, widthRatio: 0.31, quality: 20,
                                             hand: cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_RIGHT, pos: 0.5,
                                                                width_mm: 40, reach_mm: 60))
        let (lost, worstAfter, _, _) = follow(scenes, s, frames: 90, from: 60,
                                             change: Self.drifting(from: (0.4, 0.5), by: (0.0005, 0.0003), swaying: (4, 3)))
        #expect(lost == 0)
        #expect(worstAfter >= 0.95)
    }

    /// A card held nearly still before upright bricks, drifting right at
    /// 0.9 px a frame from where its left side lay along a mortar joint.
    /// Each frame's fit starts from the last one moved by the print, and the
    /// joint is a step of the same sign within the fit's reach, so the side
    /// stayed on it and the card widened by a pixel a frame (IoU 0.93 by
    /// frame 81, read as pitch). Carried from where a re-check confirmed it,
    /// the print says where the side is.
    @Test func sideLeftOnAJointIsHeldToThePrint() {
        let scenes = Scenes(seed: 1)
        let s = Self.cardBeforeUprightBricks(scenes, widthRatio: 0.31, quality: 0,
                                             hand: cr_hand_part(kind: CR_HAND_NONE, edge: CR_EDGE_LEFT, pos: 0,
                                                                width_mm: 0, reach_mm: 0))
        let (lost, worstAfter, _, _) = follow(scenes, s, frames: 90, from: 30,
                                             change: Self.drifting(from: (0.46, 0.5), by: (0.0007, 0), swaying: (1, 1)))
        #expect(lost == 0)
        #expect(worstAfter >= 0.97)
    }

    /// A card's slow drift for `follow`: its centre moves from `from` by
    /// `by` a frame (fractions of the frame), swaying in yaw and pitch by
    /// `swaying` degrees.
    static func drifting(from: (x: Double, y: Double), by: (x: Double, y: Double),
                         swaying: (yaw: Double, pitch: Double)) -> (inout cr_scene, Int) -> Void {
        { s, k in
            s.center_x = (from.x + by.x * Double(k)) * Double(s.width - 1)
            s.center_y = (from.y + by.y * Double(k)) * Double(s.height - 1)
            s.yaw_deg = swaying.yaw * sin(Double(k) * 0.05)
            s.pitch_deg = swaying.pitch * sin(Double(k) * 0.037)
        }
    }

    /// A 2003 card `widthRatio` of a 1280x720 frame wide before the upright
    /// bricks of samples/photos/brick.jpg, slightly blurred, limited range,
    /// every plane coded at JPEG `quality` (0: uncoded), one hand part.
    static func cardBeforeUprightBricks(_ scenes: Scenes, widthRatio: Double, quality: Int32,
                                        hand: cr_hand_part) -> cr_scene {
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "brick")
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: widthRatio, scene: s)
        s.blur_sigma = 1
        s.limited_range = 1
        s.compression_quality = quality
        s.setHand(0, hand)
        return s
    }

    /// The cut-off card moved back into the picture: the side that was
    /// guessed beyond the frame must be put right once it is in view. The
    /// print's motion carried the guess along and the edge fit looked only a
    /// few pixels from it, so the card stayed 14 px too wide and pitched
    /// 15 degrees (the hard sample cut-off-near-rocket never reached ORTH).
    @Test func cutOffCardBackInViewIsMeasuredAgain() {
        // samples/scenarios/hard/cut-off-near-rocket-2018.yaml, frame by frame.
        let scenes = Scenes(seed: 1204)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "rocket")
        var s = scenes.scene(width: 960, height: 540)
        s.roll_deg = -3
        let tracker = Tracker()
        var worstAngle = 0.0, worstIoU = 1.0
        for k in 0..<110 {
            // Held a third beyond the right edge for 1.6 s, moved in and
            // back over 1.2 s, then held.
            let progress = min(1, max(0, Double(k - 48) / 36))
            s.center_x = (0.86 - 0.36 * progress) * Double(s.width)
            s.distance_mm = 175 + 40 * progress
            let frame = scenes.render(s)
            let m = tracker.process(frame, pts: Int64(k) * 33_333_333)
            if k >= 95 {
                worstAngle = max(worstAngle, abs(Double(m.yaw)), abs(Double(m.pitch)))
                worstIoU = min(worstIoU, Self.iou(m, frame))
            }
        }
        #expect(worstAngle < 3, "held front-on in view: worst |yaw| or |pitch| \(worstAngle)")
        #expect(worstIoU >= 0.97)
    }

    /// A far card held front-on over a coffee table, its top edge across
    /// the white rim of a cup: the card's light ground hardly differs from
    /// the rim, and the step changes sign along the edge, while the title
    /// printed 2 mm below it is a strong dark line. The title was taken for
    /// the top: the card 9 px too short, read as pitched by 19 degrees
    /// (samples/far-small-coffee-2003 never reached ORTH). The card's shape
    /// says where its top must be. Control: the same scene without the hand,
    /// whose palm behind the right edge breaks the card's outline: top
    /// corners 0.9 px off, pitch 0.0 degrees, also on the tree before this
    /// test.
    @Test func faintTopEdgeIsNotTheTitle() {
        // samples/scenarios/far-small-coffee-2003.yaml, its first frames.
        let scenes = Scenes(seed: 1203)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "coffee")
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.center_x = 0.45 * Double(s.width)
        s.center_y = 0.55 * Double(s.height)
        s.distance_mm = 450
        s.roll_deg = 4
        s.noise_sigma = 2
        s.ovi = 1
        s.background_dy = 1
        // The sample's light above the camera: a small highlight on the laminate.
        s.glare = 1
        s.glare_u = 0.62
        s.glare_v = 0.30
        s.glare_radius_mm = 2.5
        s.glare_strength = 0.5
        s.setHand(0, cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_RIGHT, pos: 0.55, width_mm: 50, reach_mm: 110))
        s.setHand(1, cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.3, width_mm: 17, reach_mm: 8))
        let (m, frame) = measureHeld(scenes, s, cardType: HKCV_CARD_2003)
        let topError = Self.topCornersError(m, frame)
        #expect(m.found == 1)
        #expect(topError < 2)
        #expect(Self.iou(m, frame) >= 0.97)
        // The pose is not asserted: with the top put right it reads pitch -4
        // and yaw 11 degrees (truth 0, 0), from the right side under the
        // palm, 2-3 px off on a card 200 px wide: still open. (With the
        // title for the top it read pitch -17 degrees.)
    }

    /// The same mistake on a near card (a third of the frame wide) over the
    /// cup's white rim, with a shadow across card and table: the title is
    /// taken for the top while the card is turned to yaw 30 (over the first
    /// ten of 30 frames) and held. Putting the top right needs the card's
    /// ground above the title, and the title's letters fill the band just
    /// below the wrong line (median 94 against the margin's 168): the band
    /// inside a side that meets the top holds the card's ground instead.
    /// Before, the title stayed the top: IoU 0.928, yaw 21.7 (truth 30).
    /// Still open: held front-on (yaw 0) it is not put right, the shadow
    /// splitting every band into a lit and a dark half.
    @Test func nearCardTitleFillsTheBandBelowIt() {
        let scenes = Scenes(seed: 4242)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "coffee")
        var s = Self.thumbUnderShadow(scenes, shadow: 0.6, angle: 20)
        s.center_x = 0.5 * Double(s.width)
        s.center_y = 0.65 * Double(s.height)
        s.distance_mm = 225
        s.roll_deg = 1
        s.shadow_soft_px = 14
        let tracker = Tracker(cardType: HKCV_CARD_2018)
        var last: (hkcv_measurement, Frame)?
        for index in 0..<30 {
            s.yaw_deg = 30 * min(1, Double(index) / 10)
            let frame = scenes.render(s)
            last = (tracker.process(frame, pts: Int64(index) * 33_333_333), frame)
        }
        let (m, frame) = last!
        let topError = Self.topCornersError(m, frame)
        #expect(m.found == 1)
        #expect(topError < 3)
        #expect(Self.iou(m, frame) >= 0.97)
    }

    /// A card held a few centimetres from the lens: 70 % of the frame wide,
    /// out of focus (a blur of 7 px), its bottom edge beyond the frame, with
    /// a hand sticking out behind the middle of its top edge (as a cup stood
    /// in front of it on the development set's dev_near_then_ok_2018, which
    /// now passes). It must be found with its hidden side beyond the frame,
    /// touching the border, so that NEAR fires. When written it failed: the
    /// blur makes the sides' edges wiggle by 2-4 px at the search's scale,
    /// they broke into pieces too far apart to merge into one line reaching
    /// the border, and the side was closed on the print above it (at 708 px
    /// against the truth's 743: no NEAR). With the detector of 2026-11-24
    /// it passes (top corners 1.2 px off, the hidden side at 770 px, beyond
    /// the 720 px frame), so it runs in `make test`. Control: the same card
    /// centred, in focus.
    @Test func nearBlurredCardCutByTheFrame() {
        let scenes = Scenes(seed: 1400)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "coffee")
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.7, scene: s)
        s.center_y = 0.64 * Double(s.height)
        s.blur_sigma = 7
        s.setHand(0, cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_TOP, pos: 0.55, width_mm: 40, reach_mm: 40))
        let (m, frame) = measureHeld(scenes, s)
        let truth = frame.truthCorners
        #expect(truth[5] > Float(s.height) && truth[7] > Float(s.height), "the scene must cut the card's bottom")
        #expect(m.found == 1)
        #expect(m.touches_border == 1)
        let c = floats(m.corners)
        #expect(Self.topCornersError(m, frame) < 10, "top corners \(c[0..<4]) vs \(truth[0..<4])")
        #expect(min(c[5], c[7]) >= Float(s.height) * 0.99, "the hidden side must lie at or beyond the border: \(c)")
    }

    /// Limited-range frames (Y 16..235, as phones and x264 record) with a
    /// lamp's glare over a large part of the card: the saturated area must be
    /// measured as on full-range frames. The frame is passed with
    /// hkcv_image.range = HKCV_RANGE_LIMITED (Frame.range, from the scene), as
    /// the stream's caps say for such video.
    /// Control: the same limited-range scene without glare, IoU 0.998.
    /// The larger lamp washes out half the card, and the search refused it
    /// for too little print inside (4-6 places of print in the 94-97 not
    /// saturated) and took the launch tower around it: glare read 0.24 for
    /// 0.51. Saturated places now count as print when there are many, and
    /// print among the rest: 0.50.
    @Test(arguments: [(0.5, 0.5, 22.0), (0.35, 0.45, 14.0)])
    func glareMeasuredOnLimitedRange(u: Double, v: Double, radius: Double) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "rocket")
        var s = scenes.scene()
        s.limited_range = 1
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.yaw_deg = 6
        s.glare = 1
        s.glare_u = u
        s.glare_v = v
        s.glare_radius_mm = radius
        let (m, frame) = measureHeld(scenes, s)
        let truth = Double(frame.truth.glare_fraction)
        #expect(truth > 0.1, "the scene must saturate a good part of the card")
        #expect(m.found == 1)
        #expect(abs(Double(m.glare) - truth) <= max(0.02, 0.2 * truth))
    }

    /// What the rule above must not admit: a blank rectangle of the card's
    /// shape, saturated (a lit window, a white screen, paper under a lamp),
    /// has no print at all and is no card, at full and at limited range.
    @Test(arguments: [(255, HKCV_RANGE_FULL), (235, HKCV_RANGE_LIMITED)])
    func saturatedBlankRectangleIsNotACard(white: Int, range: hkcv_color_range) {
        let width = 1280, height = 720
        var pixels = [UInt8](repeating: 128, count: width * height * 3 / 2)
        var noise = SeededGenerator(seed: 7)
        let (x0, x1, y0, y1) = (400, 880, 230, 533)  // 480 x 303: the card's aspect
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= x0 && x < x1 && y >= y0 && y < y1
                let jitter = Int(noise.next() % 7) - 3
                pixels[y * width + x] = UInt8(inside ? white : max(0, min(255, 100 + jitter)))
            }
        }
        let frame = Frame(width: width, height: height, pixels: pixels, truth: cr_truth(), range: range)
        let tracker = Tracker()
        var found = 0
        for k in 0..<5 where tracker.process(frame, pts: Int64(k) * 33_333_333).found == 1 { found += 1 }
        #expect(found == 0)
    }

    /// The same card, front-on at 45 % of the width, over real photographs:
    /// a coffee table (the card over the white cup), a portrait. Control:
    /// the drawn desk, IoU 0.998.
    @Test(arguments: ["coffee", "astronaut"])
    func cardOnPhotographBackground(photo: String) {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.95)
    }

    /// A card in full view on a brick wall, held by a thumb on its top edge
    /// or a palm behind it, where a box of bricks that the frame's border
    /// cuts (its fourth side guessed beyond the border) outranks the card
    /// and then does not hold at full size, frame after frame: the next
    /// quad, the card, must be tried rather than nothing found (it is, from
    /// the second frame). Two scenes of `hkid-bench scenes` (266 and 1116),
    /// their values copied, with their seeds. The search before ranked the
    /// card second in both and found nothing on any of the five frames.
    @Test(arguments: [
        (266, 1280, 720, 199.87, -10.23, 23.60, 7.33, 788.08, 336.45, 2.43, 1.22, 0.924,
         cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_TOP, pos: 0.41, width_mm: 20.2, reach_mm: 12.2)),
        (1116, 1920, 1080, 193.44, -8.98, -6.22, -2.18, 934.36, 493.32, 1.85, 0.0, 1.105,
         cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_TOP, pos: 0.43, width_mm: 40.9, reach_mm: 24.0)),
    ])
    func cutBoxOfBricksDoesNotHideTheCard(seed: Int, width: Int, height: Int, distance: Double, yaw: Double,
                                          pitch: Double, roll: Double, x: Double, y: Double, noise: Double,
                                          blur: Double, brightness: Double, hand: cr_hand_part) {
        let iou = Self.batteryScene(seed: seed, photo: "brick", width: width, height: height, distance: distance,
                                    pose: (yaw, pitch, roll), at: (x, y), noise: noise, blur: blur,
                                    brightness: brightness, hands: [hand])
        #expect(iou >= 0.95)
    }

    /// A card where the lines along two sides that leave one of its sides
    /// both end early, a third or more short of the side opposite: a thumb
    /// over the bottom on a lifted photograph (scene 6 of `hkid-bench
    /// scenes`); a thumb over one short side on dark brick, the top being
    /// two traces of its edge (scene 481). The far side is a line of its
    /// own, but beyond where the legs end, and there the search looked only
    /// on its coarse look: nothing was found on any of the five frames.
    /// Such quads are now tried once a frame has gone by without a card
    /// (FourthSide in internal.hpp). Values copied from `--describe` at full
    /// precision, with their seeds: these scenes sit on an edge (scene 6
    /// with its values rounded to four places is found by the search before
    /// as well).
    @Test(arguments: [
        (6, "astronaut", 1920, 1080, 120.71753693988185, -1.5750918441417099, 11.24901170866093, 13.993399335045446,
         1202.6302020826502, 451.1973323602972, 1.2605581350133925, 0.8742841239572938, 0.40337280305851453, false,
         [cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_BOTTOM, pos: 0.24090670224674932, width_mm: 16.53949152104556,
                       reach_mm: 11.286711019916062)]),
        (481, "brick", 1920, 1080, 135.95329236269345, 20.34433813636167, 8.304187961455092, 11.353013046017178,
         680.906945661432, 492.9406057070231, 2.6495523542494754, 0.921558512592737, 0.0, true,
         [cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.4243085602445589, width_mm: 18.93786255780923,
                       reach_mm: 7.183901921796904)]),
    ])
    func oppositeSideBeyondWhereBothLegsEnd(seed: Int, photo: String, width: Int, height: Int, distance: Double,
                                            yaw: Double, pitch: Double, roll: Double, x: Double, y: Double,
                                            noise: Double, brightness: Double, lift: Double, limited: Bool,
                                            hands: [cr_hand_part]) {
        let iou = Self.batteryScene(seed: seed, photo: photo, width: width, height: height, distance: distance,
                                    pose: (yaw, pitch, roll), at: (x, y), noise: noise, brightness: brightness,
                                    lift: lift, limited: limited, hands: hands)
        #expect(iou >= 0.95)
    }

    /// Scene 220: a card on lifted gravel, a palm behind its left side,
    /// whose sides are traced in pieces too far apart to merge. The search
    /// that joins such pieces ran when a search found nothing, but not in
    /// the coarse look (the look at a near card, out of focus), which then
    /// found nothing, and a quad half off the card was taken (IoU 0.56);
    /// the coarse look joins them too now. The same on
    /// `dev_near_then_ok_2018`: a
    /// card held at 6 cm before a white cup, the middle of its top edge
    /// lost against the cup, was found only once its bottom came into view
    /// (NEAR in a 4-frame window, never at 0.6 of the size); now from
    /// frame 70, with three sides in view.
    @Test func coarseLookJoinsASideInPieces() {
        let iou = Self.batteryScene(
            seed: 220, photo: "gravel", width: 960, height: 540, distance: 223.233884221049,
            pose: (9.616032646388092, -16.38190976052263, -13.353219610436128),
            at: (485.57023922675603, 201.30189646649467), noise: 3.483750542960203, brightness: 0.639905133717394,
            lift: 0.7150533575938881, limited: false,
            hands: [cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_LEFT, pos: 0.4649193197650567,
                                 width_mm: 39.87776078961393, reach_mm: 31.485455361854257)])
        #expect(iou >= 0.95)
    }

    /// Scenes 239 (on grass) and 656 (on gravel): a card in plain view,
    /// all four edges clear, and beyond one of its corners a grass blade or
    /// a pebble's edge that runs on from one side. A quad with one side on
    /// that line and the next side run on along the card's edge past its
    /// corner is larger than the card, and each of its sides lies on some
    /// edge across it (texture has edges everywhere), so it outranked the
    /// card: IoU 0.83 and 0.90 (corners 77 and 109 px off). A side now
    /// counts where an edge runs along it, not wherever one crosses it.
    /// (Grass is one of the photographs the detector had not been measured
    /// on: samples/photos/README.md.)
    @Test(arguments: [239, 656])
    func sideIsNotBorrowedFromTheTexturePastACorner(seed: Int) {
        let iou: Double
        if seed == 239 {
            iou = Self.batteryScene(
                seed: 239, photo: "grass", width: 1280, height: 720, distance: 231.86932947952943,
                pose: (-11.364390724507704, 7.775555632060389, -11.312942238671084),
                at: (544.9642690343167, 333.1185120417779), noise: 3.855353625466886, brightness: 0.8065581745476981,
                hands: [])
        } else {
            iou = Self.batteryScene(
                seed: 656, photo: "gravel", width: 960, height: 540, distance: 155.41322740648195,
                pose: (-10.391009378946261, -14.664818294319332, -2.2751577698936654),
                at: (502.6803536263794, 263.03760267416624), noise: 2.7982919580524968, brightness: 1.1000539735654047,
                limited: true, hands: [])
        }
        #expect(iou >= 0.95)
    }

    /// Scene 1127: a card with a frame printed 2.5 mm inside its edge, on
    /// grass, a thumb over its right side. The printed frame is a cleaner
    /// edge than the card's own, and the search may take a quad with two
    /// sides on it (top and left) and two on the card's edge: nearly a
    /// card's shape. Moving either printed side out to the card's edge
    /// alone makes a quad that is not one (the other side still inset), so
    /// the widening refused both and the quad stayed 14 px inside the card
    /// (IoU 0.93, with a side counted by the edges along it); the sides so
    /// refused are now moved out together.
    @Test func frameRoundTheFaceDoesNotHoldTwoSides() {
        let iou = Self.batteryScene(
            seed: 1127, photo: "grass", width: 640, height: 480, distance: 111.35056431872677,
            pose: (-3.354752144737322, 20.848620491738792, 8.972719791900687),
            at: (275.46653660747955, 210.7426759362474), noise: 1.3220845084152777, brightness: 0.8792401081376959,
            inner: true,
            hands: [cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.5497703929160438,
                                 width_mm: 18.870180310494668, reach_mm: 7.3067451700249215)])
        #expect(iou >= 0.95)
    }

    /// Scene 955: a 2018 card on light gravel (lifted by 0.64), nothing
    /// touching it. Its sides step from the desk on only some of their
    /// places (the desk's pebbles are as light as the card between them),
    /// and the search refused it for that: nothing was found. A side whose
    /// places step only in part now counts where the surfaces either side
    /// of it are unlike (kUnlikeSurfaces), as the card's print and the
    /// pebbles are (IoU 0.972 since).
    @Test func lightCardSteppingFromTheDeskInPlaces() {
        let iou = Self.batteryScene(
            seed: 955, photo: "gravel", width: 960, height: 540, distance: 154.03689493757105,
            pose: (-9.685789243342626, -3.7442893940863904, -10.240496859179517), at: (567.2406640216074, 293.78973205995413),
            noise: 1.7721713404065502, brightness: 0.9222799819805627, lift: 0.6379188136495718, limited: true, hands: [])
        #expect(iou >= 0.95)
    }

    /// Scene 128: a thumb and palm over one short side of a card on a light
    /// brick wall, where the card's edge fades. Found (IoU 0.98, a corner
    /// 18 px off) while a line beyond both legs' ends closed it a frame
    /// after a miss; since the search, finding nothing on frame 0, also
    /// joins the pieces of a split side, the U's of those lines give a quad
    /// 95 px off that ranks above the coarse look's and holds (IoU 0.78).
    @Test(stillOpen) func lightWallCardClosedBeyondItsLegs() {
        let iou = Self.batteryScene(
            seed: 128, photo: "brick", width: 960, height: 540, distance: 134.07871339864244,
            pose: (-17.213779265733066, -13.953661368808179, -3.5002632752107363),
            at: (365.09116776922906, 257.7814996618489), noise: 1.2251573303286105, brightness: 1.0746796199907815,
            lift: 0.6791834617522494, limited: false,
            hands: [cr_hand_part(kind: CR_HAND_THUMB, edge: CR_EDGE_RIGHT, pos: 0.22642803806403533,
                                 width_mm: 21.802839422189273, reach_mm: 12.139441432599579),
                    cr_hand_part(kind: CR_HAND_PALM, edge: CR_EDGE_RIGHT, pos: 0.4338840581853711,
                                 width_mm: 39.130225957175455, reach_mm: 41.929830698664276)])
        #expect(iou >= 0.95)
    }

    /// A scene of `hkid-bench scenes` from the values `--describe` prints,
    /// held for five frames: the IoU of what was found (0 when nothing).
    static func batteryScene(seed: Int, photo: String, width: Int, height: Int, distance: Double,
                             pose: (Double, Double, Double), at: (Double, Double), noise: Double, blur: Double = 0,
                             brightness: Double, lift: Double = 0, limited: Bool = false, inner: Bool = false,
                             hands: [cr_hand_part]) -> Double {
        let scenes = Scenes(seed: UInt64(seed))
        scenes.usePhoto(CR_PHOTO_BACKGROUND, photo)
        var s = scenes.scene(width: width, height: height)
        s.distance_mm = distance
        (s.yaw_deg, s.pitch_deg, s.roll_deg) = pose
        (s.center_x, s.center_y) = at
        (s.noise_sigma, s.blur_sigma, s.brightness, s.background_lift) = (noise, blur, brightness, lift)
        s.limited_range = limited ? 1 : 0
        s.inner_frames = inner ? 1 : 0
        for (index, hand) in hands.enumerated() { s.setHand(index, hand) }
        let (m, frame) = measureHeld(scenes, s)
        let iou = m.found == 1 ? iou(m, frame) : 0
        return iou
    }

    /// The card of the shadow battery (benchmarks.md, "Shadows"): 230 mm
    /// from the camera, a thumb over the bottom edge 30 % along it, and a
    /// shadow taking `shadow` of the light beyond a straight edge through
    /// the frame's centre, `angle` degrees from +x into the shadow.
    static func thumbUnderShadow(_ scenes: Scenes, shadow: Double, angle: Double) -> cr_scene {
        var s = scenes.scene()
        s.distance_mm = 230
        s.thumb = 1
        s.thumb_edge = CR_EDGE_BOTTOM
        s.thumb_pos = 0.3
        s.shadow = shadow
        s.shadow_angle_deg = angle
        return s
    }

    /// A 2003 card turned in front of dark brick, its sides in line with
    /// rows of mortar, a thumb on the bottom edge: quads closed by a
    /// mortar line and a card's side run on past its corner are larger
    /// than the card and as well supported, and one of them outranked it
    /// (worst IoU 0.0002; 90 of 90 frames under 0.95 in the shadow
    /// battery, whose brick scene without a shadow this is) until the
    /// search's rank counted the corners where nothing turns
    /// (kCornerWeight in detect.cpp): worst IoU 0.977.
    @Test func cardInLineWithMortarIsNotRunOnToIt() {
        let scenes = Scenes(seed: 4242)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "brick")
        var s = scenes.scene()
        s.card_type = CR_CARD_2003
        s.distance_mm = 230
        s.thumb = 1
        s.thumb_edge = CR_EDGE_BOTTOM
        s.thumb_pos = 0.3
        let (lost, worstIoU, _, _) = follow(scenes, s, frames: 90) { s, k in
            let t = Double(k) / 30
            s.yaw_deg = 22 * sin(t * 1.3)
            s.pitch_deg = 10 * sin(t * 0.9 + 1)
            s.center_x = 1280 * (0.5 + 0.05 * sin(t * 0.7))
        }
        #expect(lost == 0)
        #expect(worstIoU >= 0.95)
    }

    /// A shadow across the card and the desk (a phone or a person leaning
    /// over it, 60 % of the light gone): the card's margin is one level on
    /// the lit side and another in the shadow, so no side that the shadow's
    /// edge crosses has an even margin. A thumb on the bottom edge. On the
    /// drawn desk with the shadow's edge upright through the card's middle,
    /// and over the coffee table with it slanted by 20 degrees. Control: the
    /// same scenes without the shadow, IoU 0.999 and 0.998.
    @Test(arguments: [("", 0.0), ("coffee", 20.0)])
    func shadowAcrossTheCard(photo: String, angle: Double) {
        let scenes = Scenes(seed: 4242)
        if !photo.isEmpty { scenes.usePhoto(CR_PHOTO_BACKGROUND, photo) }
        let s = Self.thumbUnderShadow(scenes, shadow: 0.6, angle: angle)
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.97)
    }

    /// A light card on light gravel, a thumb over its bottom edge and a
    /// shadow (40 %) across both. Past each corner some pebble's edge
    /// crosses the side's line, so every side seemed to run on beyond the
    /// card's corners, as a quad put together from a wall's mortar lines
    /// does, and the card was refused: not found in any of the 5 frames.
    /// Only an edge along the side's line now runs it on.
    @Test func pebblesDoNotRunTheSidesOn() {
        let scenes = Scenes(seed: 4242)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "gravel")
        var s = Self.thumbUnderShadow(scenes, shadow: 0.4, angle: 60)
        s.background_lift = 0.5
        s.yaw_deg = 6
        s.pitch_deg = -8
        let (m, frame) = measureHeld(scenes, s)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.97)
    }

    /// A light line of the background beside a still card's edge, whose
    /// outer edge is a stronger step than the card's own: from frame 10 it
    /// widens outwards by `creep` px a frame, from the card's edge to 16 px
    /// out (a light joint of a wall beside a light card, `dev_still_2003`'s
    /// left side; the edge of a shadow or a sleeve). The print has not
    /// moved, so the side must not follow the line; today it follows it
    /// all the way (16 px). The edge fit starts each frame from the last
    /// fit moved by the print's motion, so a side that slides a pixel a
    /// frame is never further from its prediction than the fit's reach.
    /// The fit is held to where the print carried the card from the last
    /// confirming re-check (sideLeftOnAJointIsHeldToThePrint), but here the
    /// line lies against the card's edge, so no edge is left where the
    /// print puts the side, and the re-check at frame 15 confirms the quad
    /// already on the line (docs/detector.md, "Drift along a background
    /// line").
    @Test(stillOpen, arguments: [0.5, 1.0, 2.0])
    func sideDoesNotFollowALineBesideIt(creep: Double) {
        let scenes = Scenes(seed: 5150)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.35, scene: s)
        s.background_lift = 0.5
        var worst: Float = 0
        for k in 0..<50 {
            var frame = scenes.render(s)
            let c = frame.truthCorners
            if k >= 10 {
                // Luma 250 from the card's left edge to `width` px out, over
                // the side's length between its rounded corners.
                let width = min(16.0, creep * Double(k - 9))
                let edge = Double(min(c[0], c[6]))
                let x0 = Int((edge - width).rounded()), x1 = Int(edge.rounded())
                for y in (Int(c[1]) + 20)..<(Int(c[7]) - 20) {
                    for x in x0..<x1 { frame.pixels[y * frame.width + x] = 250 }
                }
            }
            let m = tracker.process(frame, pts: Int64(k) * 33_333_333)
            guard k >= 10 else { continue }
            #expect(m.found == 1)
            let q = floats(m.corners)
            worst = max(worst, abs(q[0] - c[0]), abs(q[6] - c[6]))
        }
        #expect(worst < 3)
    }

    /// A card held so near that only its top-left part is in view (1.2
    /// times the frame's width, its centre at three quarters of the frame
    /// across and down, in focus): two of its sides run into the frame's
    /// borders and the other two are beyond them. Nothing in view is the
    /// card's outline, so a search must find nothing or a card at least as
    /// wide as the frame; a box printed on it (the portrait, a line of
    /// text) taken for a card a third of the frame wide raises FAR or
    /// OVERSPEED on a card that is in fact too near. Today a fresh search
    /// takes such a box on 4 of these 10 frames (width 0.36-0.45 of the
    /// frame). On the development set, `dev_near_then_ok_2018`'s first 100
    /// frames show the same: a fresh search on each takes a box of the
    /// portrait on 15 of them; the tracker's search cadence (one frame in
    /// ten) happens to miss them all, and one in fifteen hits frame 45 and
    /// fails the video with FAR and OVERSPEED. (Refusing a quad that lies
    /// inside a corner of two long edges running into the border, rounded
    /// as a near card's is, passed this test but refused the cut-off card
    /// of `cutOffCardTouchesBorder` and a card among bold inner frames,
    /// whose backgrounds continue their sides to the border: not kept.)
    @Test(stillOpen) func nearCardCornerIsNotABoxPrintedOnIt() {
        let scenes = Scenes(seed: 5)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "coffee")
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 1.2, scene: s)
        s.center_x = 0.75 * Double(s.width)
        s.center_y = 0.8 * Double(s.height)
        var boxes: [Float] = []
        for k in 0..<10 {
            s.yaw_deg = 4 * sin(Double(k) * 0.7)
            s.pitch_deg = 3 * cos(Double(k) * 0.5)
            let frame = scenes.render(s)
            let m = Tracker().process(frame)  // a fresh search on every frame
            if m.found == 1 && m.width_ratio < 0.9 { boxes.append(m.width_ratio) }
        }
        #expect(boxes.isEmpty)
    }

    /// A card turned in front of a brick wall while the edge of a shadow
    /// (half the light) sweeps across the scene at 20 degrees: the card
    /// must be followed on every frame. Today the neighbourhood re-check
    /// finds a box of the wall around the card that ranks higher than the
    /// half-shadowed card and, enclosing it, takes over as if the card had
    /// been a box printed on it: IoU 0.30 from frame 16, then lost for 30
    /// frames. Tried and not kept: letting an enclosing quad take over
    /// only once it is seen to move with the card (a printed box moves with
    /// the card it is printed on; a wall does not). It fixed this scene,
    /// but the coarse quads a re-check finds are 2-3 px apart from frame to
    /// frame, and with the card moving a few pixels between looks the test
    /// refused the real card where the tracker had settled on a bold inner
    /// frame (a light desk: recovered after 15 frames before, not at all
    /// after) and still let a wall box take over on another. The search's
    /// rank counts corners since 2026-11-24 (kCornerWeight in detect.cpp:
    /// the wall box's corners are crossings of a shadow's edge and a row of
    /// mortar); at 0.4 this scene passes (lost 0, worst IoU 0.998) but the
    /// sample thumb-palm-light-desk-2018 never reaches ORTH, so it ships at
    /// 0.3, where this scene lost 15 frames; since the search's quads are
    /// widened to the card's edge (widen_to_card_edge) it loses none, but
    /// the worst frame is at IoU 0.88: the left side stays on the shadow's
    /// edge while the card moves away from it. Since a side too far out is
    /// moved back in (restore_faint_side) the worst is 0.946, in the first
    /// frames, before the misfit shows (a re-check may no longer hand a
    /// card all in view to a quad that runs off the frame: the wall box's
    /// bottom is beyond it).
    @Test(stillOpen) func shadowSweepDoesNotHandTheCardToTheWall() {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "brick")
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.shadow = 0.5
        s.shadow_angle_deg = 20
        s.shadow_y = 0.5
        // From frame 10: the first frames may be found with a side on the
        // shadow's edge, and put right within a quarter of a second.
        let (lost, worstIoU, _, _) = follow(scenes, s, frames: 120, from: 10) { s, k in
            let t = Double(k) / 30
            s.yaw_deg = 20 * sin(t * 1.1)
            s.pitch_deg = 10 * sin(t * 0.8 + 1)
            s.center_x = 1280 * (0.5 + 0.05 * sin(t))
            s.center_y = 720 * (0.5 + 0.03 * cos(t * 0.7))
            s.shadow_x = 0.2 + 0.6 * Double(k) / 120
        }
        #expect(lost == 0)
        #expect(worstIoU >= 0.95)
    }

    /// A card whose face is printed over a photograph (a photographic card
    /// design), over gravel, at 640x480. Control: the drawn face in the
    /// same scene, IoU 0.997. Why it fails (2026-11-24): the top is traced
    /// as two lines end to end, a pixel or two apart, which the greedy
    /// merge leaves apart (the second piece came when the first line did
    /// not yet reach it), so no corner pair shares it; and the right side's
    /// line stops half way down, so no U reaches the bottom within 1.35
    /// times its legs. A box of the photograph's launch pad wins. Joining
    /// lines that abut in a second pass and scanning the open side as far
    /// as a card could be long found it (IoU 0.984), but over the 1,200
    /// scenes of `hkid-bench scenes` gained 8 and lost 9 (larger quads with
    /// a side on gravel or brick): not kept (docs/decisions.md).
    @Test(stillOpen) func photographicCardFace() {
        let scenes = Scenes(seed: 1300)
        scenes.usePhoto(CR_PHOTO_BACKGROUND, "gravel")
        scenes.usePhoto(CR_PHOTO_PAPER, "rocket")
        var s = scenes.scene(width: 640, height: 480)
        s.card_type = CR_CARD_2003
        s.distance_mm = Scenes.distance(forWidthRatio: 0.45, scene: s)
        s.pitch_deg = 12
        let (m, frame) = measureHeld(scenes, s, cardType: HKCV_CARD_2003)
        let iou = Self.iou(m, frame)
        #expect(m.found == 1)
        #expect(iou >= 0.95)
    }
}
