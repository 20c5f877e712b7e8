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
            func image(_ f: cv_pixel_format, _ w: Int32, _ h: Int32, strides: (Int32, Int32, Int32)? = nil,
                       planes: Int = 3) -> cv_image {
                var im = cv_image()
                im.format = f
                im.width = w
                im.height = h
                im.planes = (base, planes > 1 ? base : nil, planes > 2 ? base : nil)
                im.strides = strides ?? (w * 4, w, w)
                return im
            }
            func run(_ im: cv_image) -> cv_status {
                var m = cv_measurement()
                m.found = 7
                var copy = im
                let s = cv_tracker_process(tracker.handle, &copy, 5, &m)
                #expect(m.found == 0)
                return s
            }
            var m = cv_measurement()
            var ok = image(CV_PIXEL_GRAY8, 64, 48)
            #expect(cv_tracker_process(nil, &ok, 0, &m) == CV_ERR_NULL)
            #expect(cv_tracker_process(tracker.handle, nil, 0, &m) == CV_ERR_NULL)
            #expect(cv_tracker_process(tracker.handle, &ok, 0, nil) == CV_ERR_NULL)
            #expect(run(ok) == CV_OK)
            #expect(run(image(CV_PIXEL_I420, 64, 48)) == CV_OK)
            #expect(run(image(CV_PIXEL_NV12, 64, 48)) == CV_OK)
            #expect(run(image(CV_PIXEL_BGR, 64, 48)) == CV_OK)
            #expect(run(image(CV_PIXEL_BGRA, 64, 48)) == CV_OK)

            #expect(run(image(CV_PIXEL_GRAY8, 0, 48)) == CV_ERR_SIZE)
            #expect(run(image(CV_PIXEL_GRAY8, 64, -1)) == CV_ERR_SIZE)
            #expect(run(image(CV_PIXEL_GRAY8, 20000, 48)) == CV_ERR_SIZE)
            #expect(run(image(CV_PIXEL_I420, 63, 48)) == CV_ERR_SIZE)
            #expect(run(image(CV_PIXEL_NV12, 64, 47)) == CV_ERR_SIZE)
            #expect(run(image(CV_PIXEL_GRAY8, 63, 47)) == CV_OK)  // odd is fine without chroma

            #expect(run(image(CV_PIXEL_GRAY8, 64, 48, strides: (63, 0, 0))) == CV_ERR_STRIDE)
            #expect(run(image(CV_PIXEL_BGR, 64, 48, strides: (64 * 3 - 1, 0, 0))) == CV_ERR_STRIDE)
            #expect(run(image(CV_PIXEL_I420, 64, 48, strides: (64, 31, 32))) == CV_ERR_STRIDE)
            #expect(run(image(CV_PIXEL_NV12, 64, 48, strides: (64, 63, 0))) == CV_ERR_STRIDE)

            #expect(run(image(cv_pixel_format(rawValue: 9), 64, 48)) == CV_ERR_FORMAT)
            #expect(run(image(CV_PIXEL_I420, 64, 48, planes: 2)) == CV_ERR_NULL)
            #expect(run(image(CV_PIXEL_NV12, 64, 48, planes: 1)) == CV_ERR_NULL)
        }

        var config = cv_config()
        cv_config_default(&config)
        config.hfov_deg = 0
        var err: Int32 = 0
        #expect(cv_tracker_create(&config, &err) == nil)
        #expect(err == CV_ERR_CONFIG.rawValue)
        cv_config_default(&config)
        let missing = "/nonexistent/cascade.xml"
        missing.withCString { path in
            config.face_cascade_path = path
            #expect(cv_tracker_create(&config, &err) == nil)
            #expect(err == CV_ERR_IO.rawValue)
        }
        #expect(cv_tracker_set_card_type(tracker.handle, cv_card_type(rawValue: 5)) == CV_ERR_CONFIG)
        #expect(cv_tracker_reset(nil) == CV_ERR_NULL)
        var buffer = cv_buffer()
        #expect(cv_tracker_encode_still(tracker.handle, CV_STILL_CARD, &buffer) == CV_ERR_NO_STILL)
        #expect(cv_tracker_encode_still(nil, CV_STILL_CARD, &buffer) == CV_ERR_NULL)
        #expect(String(cString: cv_status_string(-42)) == "unknown status")
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
