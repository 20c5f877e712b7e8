import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import Logging
import Testing

/// The live path's one mailbox, on real GStreamer frames: the newest frame
/// waits, older ones are dropped and counted, nothing is copied or lost
/// track of, and the loop ends when told.
@Suite("Live driver")
struct LiveDriverTests {
    /// `count` frames of the test pattern in `format`, decoded and held (as
    /// a camera's frames are while they wait in the mailbox).
    static func frames(_ count: Int, format: String) throws -> [VideoFrame] {
        let description = PipelineDescription(
            text: "videotestsrc name=src num-buffers=\(count) ! video/x-raw,format=\(format),width=320,height=240,framerate=30/1 "
                + "! appsink name=sink sync=false drop=false max-buffers=\(count + 1)",
            origin: "test pattern")
        var frames: [VideoFrame] = []
        _ = try FrameSource(description, input: nil).run { frames.append($0) }
        return frames
    }

    static func session() -> LivenessSession {
        var configuration = LivenessConfiguration()
        configuration.faceCascadePath = ""
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return LivenessSession(configuration: configuration, logger: logger)
    }

    @Test func framesOfferedWhileTheAnalysisIsBusyAreDroppedExceptTheNewest() throws {
        let frames = try Self.frames(12, format: "I420")
        #expect(frames.count == 12)
        let session = Self.session()
        session.startDetect()
        let driver = LiveDriver(session: session)
        // The loop has not started: it is as busy as it can be.
        for frame in frames { driver.offer(frame) }
        #expect(driver.counters == FrameCounters(received: 12, analysed: 0, dropped: 11))
        let analysis = Thread { driver.run() }
        analysis.start()
        driver.finish()
        // Only the newest frame was analysed: the session's clock starts at it.
        #expect(driver.counters == FrameCounters(received: 12, analysed: 1, dropped: 11))
        #expect(session.counters.received == 1)
        driver.offer(frames[0])
        #expect(driver.counters.received == 12, "frames after finish are not taken")
        session.close()
    }

    @Test func everyFormatTheShimReadsIsAnalysed() throws {
        // The station used to skip anything but I420 with a warning per frame.
        for format in ["NV12", "GRAY8", "BGR", "BGRx"] {
            let frames = try Self.frames(3, format: format)
            let session = Self.session()
            session.startDetect()
            let driver = LiveDriver(session: session)
            let analysis = Thread { driver.run() }
            analysis.start()
            for frame in frames {
                driver.offer(frame)
                // One at a time, so none is dropped (a frame the session
                // refused would never count: give up after 10 s).
                let deadline = ContinuousClock.now + .seconds(10)
                while driver.counters.analysed + driver.counters.dropped < driver.counters.received,
                      ContinuousClock.now < deadline { usleep(1_000) }
            }
            driver.finish()
            #expect(driver.counters == FrameCounters(received: 3, analysed: 3, dropped: 0), "\(format)")
            session.close()
        }
    }

    @Test func stopDropsTheWaitingFrameAndEndsTheLoop() throws {
        let frames = try Self.frames(2, format: "I420")
        let session = Self.session()
        session.startDetect()
        let driver = LiveDriver(session: session)
        driver.offer(frames[0])
        // stop() returns once the loop has ended, whenever it starts.
        Thread { usleep(100_000); driver.run() }.start()
        driver.stop()
        driver.offer(frames[1])
        #expect(driver.counters == FrameCounters(received: 1, analysed: 0, dropped: 0))
        session.close()
    }
}
