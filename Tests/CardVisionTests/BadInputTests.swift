// BadInputTests.swift — every malformed input gets its error code, never a crash.
import CCardRender
import CCardVision
import Foundation
import Testing

@Suite struct BadInputTests {
    @Test func errorCodes() {
        let tracker = Tracker()
        var pixels = [UInt8](repeating: 128, count: 64 * 48 * 4)
        pixels.withUnsafeMutableBufferPointer { p in
            let base = UnsafePointer(p.baseAddress!)
            func image(_ f: hkcv_pixel_format, _ w: Int32, _ h: Int32, strides: (Int32, Int32, Int32)? = nil,
                       planes: Int = 3) -> hkcv_image {
                var im = hkcv_image()
                im.format = f
                im.width = w
                im.height = h
                im.planes = (base, planes > 1 ? base : nil, planes > 2 ? base : nil)
                im.strides = strides ?? (w * 4, w, w)
                return im
            }
            func run(_ im: hkcv_image) -> hkcv_status {
                var m = hkcv_measurement()
                m.found = 7
                var copy = im
                let s = hkcv_tracker_process(tracker.handle, &copy, 5, &m)
                #expect(m.found == 0)
                return s
            }
            var m = hkcv_measurement()
            var ok = image(HKCV_PIXEL_GRAY8, 64, 48)
            #expect(hkcv_tracker_process(nil, &ok, 0, &m) == HKCV_ERR_NULL)
            #expect(hkcv_tracker_process(tracker.handle, nil, 0, &m) == HKCV_ERR_NULL)
            #expect(hkcv_tracker_process(tracker.handle, &ok, 0, nil) == HKCV_ERR_NULL)
            #expect(run(ok) == HKCV_OK)
            #expect(run(image(HKCV_PIXEL_I420, 64, 48)) == HKCV_OK)
            #expect(run(image(HKCV_PIXEL_NV12, 64, 48)) == HKCV_OK)
            #expect(run(image(HKCV_PIXEL_BGR, 64, 48)) == HKCV_OK)
            #expect(run(image(HKCV_PIXEL_BGRA, 64, 48)) == HKCV_OK)

            #expect(run(image(HKCV_PIXEL_GRAY8, 0, 48)) == HKCV_ERR_SIZE)
            #expect(run(image(HKCV_PIXEL_GRAY8, 64, -1)) == HKCV_ERR_SIZE)
            #expect(run(image(HKCV_PIXEL_GRAY8, 20000, 48)) == HKCV_ERR_SIZE)
            #expect(run(image(HKCV_PIXEL_I420, 63, 48)) == HKCV_ERR_SIZE)
            #expect(run(image(HKCV_PIXEL_NV12, 64, 47)) == HKCV_ERR_SIZE)
            #expect(run(image(HKCV_PIXEL_GRAY8, 63, 47)) == HKCV_OK)  // odd is fine without chroma

            #expect(run(image(HKCV_PIXEL_GRAY8, 64, 48, strides: (63, 0, 0))) == HKCV_ERR_STRIDE)
            #expect(run(image(HKCV_PIXEL_BGR, 64, 48, strides: (64 * 3 - 1, 0, 0))) == HKCV_ERR_STRIDE)
            #expect(run(image(HKCV_PIXEL_I420, 64, 48, strides: (64, 31, 32))) == HKCV_ERR_STRIDE)
            #expect(run(image(HKCV_PIXEL_NV12, 64, 48, strides: (64, 63, 0))) == HKCV_ERR_STRIDE)

            #expect(run(image(hkcv_pixel_format(rawValue: 9), 64, 48)) == HKCV_ERR_FORMAT)
            #expect(run(image(HKCV_PIXEL_I420, 64, 48, planes: 2)) == HKCV_ERR_NULL)
            #expect(run(image(HKCV_PIXEL_NV12, 64, 48, planes: 1)) == HKCV_ERR_NULL)
        }

        var config = hkcv_config()
        hkcv_config_default(&config)
        config.hfov_deg = 0
        var err: Int32 = 0
        #expect(hkcv_tracker_create(&config, &err) == nil)
        #expect(err == HKCV_ERR_CONFIG.rawValue)
        hkcv_config_default(&config)
        let missing = "/nonexistent/cascade.xml"
        missing.withCString { path in
            config.face_cascade_path = path
            #expect(hkcv_tracker_create(&config, &err) == nil)
            #expect(err == HKCV_ERR_IO.rawValue)
        }
        #expect(hkcv_tracker_set_card_type(tracker.handle, hkcv_card_type(rawValue: 5)) == HKCV_ERR_CONFIG)
        #expect(hkcv_tracker_reset(nil) == HKCV_ERR_NULL)
        var still: OpaquePointer?
        #expect(hkcv_tracker_take_still(tracker.handle, &still) == HKCV_ERR_NO_STILL && still == nil)
        #expect(hkcv_tracker_take_still(nil, &still) == HKCV_ERR_NULL)
        var buffer = hkcv_buffer()
        #expect(hkcv_still_encode(nil, HKCV_STILL_CARD, &buffer) == HKCV_ERR_NULL && buffer.data == nil)
        var halfFrameMargin = hkcv_config()
        hkcv_config_default(&halfFrameMargin)
        halfFrameMargin.border_margin = 0.5
        #expect(hkcv_tracker_create(&halfFrameMargin, &err) == nil && err == HKCV_ERR_CONFIG.rawValue)
        #expect(String(cString: hkcv_status_string(-42)) == "unknown status")
    }

    @Test func rendererRejectsBadScenes() {
        let scenes = Scenes(seed: 1)
        var s = scenes.scene()
        s.distance_mm = -5
        var pixels = [UInt8](repeating: 0, count: 1280 * 720 * 3)
        let st = pixels.withUnsafeMutableBufferPointer { cr_render_bgr(scenes.renderer, &s, $0.baseAddress, 1280 * 3, nil) }
        #expect(st == CR_ERR_ARG)
        var t = scenes.scene()
        let st2 = pixels.withUnsafeMutableBufferPointer { cr_render_bgr(scenes.renderer, &t, $0.baseAddress, 100, nil) }
        #expect(st2 == CR_ERR_SIZE)
    }
}
