// StillTests.swift — the kept front-on still and its head crop.
import CCardRender
import CCardVision
import Foundation
import Synchronization
import Testing

/// Width and height from a baseline/progressive JPEG's SOF marker, or nil.
func jpegSize(_ data: [UInt8]) -> (Int, Int)? {
    guard data.count > 4, data[0] == 0xFF, data[1] == 0xD8, data[data.count - 2] == 0xFF, data[data.count - 1] == 0xD9 else { return nil }
    var i = 2
    while i + 9 < data.count {
        guard data[i] == 0xFF else { return nil }
        let marker = data[i + 1]
        let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
        if marker == 0xC0 || marker == 0xC2 {
            let h = Int(data[i + 5]) << 8 | Int(data[i + 6]), w = Int(data[i + 7]) << 8 | Int(data[i + 8])
            return (w, h)
        }
        i += 2 + length
    }
    return nil
}

/// The tracker's kept still, taken out of it; nil when none is kept.
final class TakenStill {
    let handle: OpaquePointer
    init?(_ t: Tracker) {
        var still: OpaquePointer?
        guard hkcv_tracker_take_still(t.handle, &still) == HKCV_OK, let still else { return nil }
        handle = still
    }
    deinit { hkcv_still_release(handle) }

    var pts: Int64 { hkcv_still_pts(handle) }

    func encode(_ kind: hkcv_still_kind) -> [UInt8]? {
        var buffer = hkcv_buffer()
        guard hkcv_still_encode(handle, kind, &buffer) == HKCV_OK else { return nil }
        defer { hkcv_buffer_free(&buffer) }
        return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.size))
    }

    func headRegion() -> (rect: [Float], face: Int32)? {
        var rect: [Float] = [0, 0, 0, 0]
        var face: Int32 = -1
        guard hkcv_still_head_region(handle, &rect, &face) == HKCV_OK else { return nil }
        return (rect, face)
    }
}

@Suite struct StillTests {
    @Test(arguments: [(CR_CARD_2018, HKCV_CARD_2018), (CR_CARD_2003, HKCV_CARD_2003)])
    func stillAndHeadCrop(renderType: cr_card_type, visionType: hkcv_card_type) throws {
        let scenes = Scenes(seed: 71)
        let tracker = Tracker(cardType: visionType)
        #expect(TakenStill(tracker) == nil)
        var s = scenes.scene()
        s.card_type = renderType
        s.distance_mm = Scenes.distance(forWidthRatio: 0.55, scene: s)
        for k in 0..<6 {
            s.yaw_deg = Double(k) - 3
            s.roll_deg = 4
            tracker.process(scenes.render(s), pts: Int64(k) * 33_333_333)
        }
        let still = try #require(TakenStill(tracker))
        #expect(still.pts >= 0 && still.pts <= 5 * 33_333_333)

        let card = try #require(still.encode(HKCV_STILL_CARD))
        let size = try #require(jpegSize(card))
        #expect(size.0 == 856 && size.1 == 540)

        let head = try #require(still.encode(HKCV_STILL_HEAD))
        let headSize = try #require(jpegSize(head))
        #expect(headSize.0 > 60 && headSize.0 < 428)

        let (rect, face) = try #require(still.headRegion())
        let centreX = rect[0] + rect[2] / 2
        #expect(face == 1, "head region \(rect)")  // the cartoon portrait is a face to OpenCV's detectors
        if visionType == HKCV_CARD_2018 { #expect(centreX < 0.5, "head region \(rect)") } else { #expect(centreX > 0.5, "head region \(rect)") }

        // A reset forgets the kept still; the one taken out stays valid.
        #expect(hkcv_tracker_reset(tracker.handle) == HKCV_OK)
        #expect(TakenStill(tracker) == nil)
        #expect(still.encode(HKCV_STILL_CARD) == card)
    }

    /// The default detector is the fast LBP cascade; its face box is mapped
    /// to the same head as the Haar cascade's, so the crop must not depend
    /// on which of the two found the face. With no detector the crop is the
    /// layout's portrait area.
    @Test(arguments: [(CR_CARD_2018, HKCV_CARD_2018), (CR_CARD_2003, HKCV_CARD_2003)])
    func headCropAgreesAcrossFaceDetectors(renderType: cr_card_type, visionType: hkcv_card_type) throws {
        func headRegion(cascade: String?) -> (rect: [Float], face: Int32) {
            let scenes = Scenes(seed: 73)
            // The tracker copies the path; the pointer need not outlive creation.
            let tracker = cascade.map { cascade in
                cascade.withCString { path in Tracker(cardType: visionType) { $0.face_cascade_path = path } }
            } ?? Tracker(cardType: visionType)
            var s = scenes.scene()
            s.card_type = renderType
            s.distance_mm = Scenes.distance(forWidthRatio: 0.55, scene: s)
            tracker.process(scenes.render(s))
            return TakenStill(tracker)?.headRegion() ?? ([0, 0, 0, 0], -1)
        }
        let lbp = headRegion(cascade: nil)
        let haar = headRegion(cascade: "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
        let none = headRegion(cascade: "")
        #expect(lbp.face == 1 && haar.face == 1 && none.face == 0)
        func iou(_ a: [Float], _ b: [Float]) -> Float {
            let w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
            let h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
            return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)
        }
        #expect(iou(lbp.rect, haar.rect) > 0.85, "LBP \(lbp.rect) vs Haar \(haar.rect)")
        // Both faces lie inside the layout's portrait area, and are smaller.
        #expect(iou(lbp.rect, none.rect) < 0.8 && iou(lbp.rect, none.rect) > 0.3)
    }

    /// A taken still is the tracker's still, detached: every still taken
    /// from the same kept frame encodes to the same JPEG bytes, still there after the tracker is reset and destroyed, and the same
    /// bytes when several threads encode it at once (as the delivery queue
    /// and an `addFrame` caller may).
    @Test func takenStillOutlivesItsTracker() throws {
        let scenes = Scenes(seed: 74)
        var tracker: Tracker? = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.55, scene: s)
        tracker!.process(scenes.render(s), pts: 5_000_000)
        let first = try #require(TakenStill(tracker!))
        let expectedCard = try #require(first.encode(HKCV_STILL_CARD))
        let expectedHead = try #require(first.encode(HKCV_STILL_HEAD))

        var taken: OpaquePointer?
        #expect(hkcv_tracker_take_still(tracker!.handle, &taken) == HKCV_OK)
        let still = try #require(taken)
        defer { hkcv_still_release(still) }
        #expect(hkcv_still_pts(still) == 5_000_000)
        #expect(hkcv_tracker_reset(tracker!.handle) == HKCV_OK)
        var none: OpaquePointer?
        #expect(hkcv_tracker_take_still(tracker!.handle, &none) == HKCV_ERR_NO_STILL && none == nil)
        tracker = nil

        // The shim says a hkcv_still may be used from any thread; Swift cannot
        // know that of an OpaquePointer, so the threads get its address.
        @Sendable func encodeTaken(_ address: Int, _ kind: hkcv_still_kind) -> [UInt8]? {
            var buffer = hkcv_buffer()
            guard hkcv_still_encode(OpaquePointer(bitPattern: address), kind, &buffer) == HKCV_OK else { return nil }
            defer { hkcv_buffer_free(&buffer) }
            return Array(UnsafeBufferPointer(start: buffer.data, count: buffer.size))
        }
        let address = Int(bitPattern: UnsafeRawPointer(still))
        let results = Mutex<[[UInt8]?]>(Array(repeating: nil, count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let jpeg = encodeTaken(address, i % 2 == 0 ? HKCV_STILL_CARD : HKCV_STILL_HEAD)
            results.withLock { $0[i] = jpeg }
        }
        for (i, jpeg) in results.withLock({ $0 }).enumerated() {
            #expect(jpeg == (i % 2 == 0 ? expectedCard : expectedHead), "thread \(i)")
        }
        var rect: [Float] = [0, 0, 0, 0]
        var face: Int32 = -1
        #expect(hkcv_still_head_region(still, &rect, &face) == HKCV_OK && face == 1)
    }

    /// Tilted views are never kept as the front-on still.
    @Test func noStillWhenTilted() {
        let scenes = Scenes(seed: 72)
        let tracker = Tracker()
        var s = scenes.scene()
        s.distance_mm = Scenes.distance(forWidthRatio: 0.5, scene: s)
        s.yaw_deg = 30
        for k in 0..<3 { tracker.process(scenes.render(s), pts: Int64(k) * 33_333_333) }
        #expect(TakenStill(tracker) == nil)
    }
}
