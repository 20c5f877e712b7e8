import Foundation
import Logging
@testable import HKIDLiveness
import Testing

/// The frame entry points, through the real vision shim.
@Suite("Frames")
struct FrameInputTests {
    static func liveSession(_ adjust: (inout LivenessConfiguration) -> Void = { _ in }) -> LivenessSession {
        var configuration = LivenessConfiguration.english { $0.faceCascadePath = "" }
        adjust(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return LivenessSession(configuration: configuration, logger: logger)
    }

    @Test func blankGray8FrameFindsNothing() throws {
        let session = Self.liveSession()
        let begin = session.startDetect()
        let (width, height) = (640, 480)
        let pixels = [UInt8](repeating: 0, count: width * height)
        let analysis = try pixels.withUnsafeBufferPointer { buffer in
            try session.addFrame(planes: [buffer.baseAddress!], strides: [width], width: width, height: height,
                                 format: .gray8, pts: 5_000_000)
        }
        #expect(summaries(begin) == ["BEGIN@0.0"])
        #expect(analysis.measurement?.found == false)
        #expect(analysis.events.isEmpty)
        #expect(analysis.t == .zero, "t counts from the first frame")
        #expect(session.counters == FrameCounters(received: 1, analysed: 1, dropped: 0))
        session.close()
    }

    /// setCardType takes effect at the next startDetect. The tracker is
    /// created at the first frame; it used to take the card type set since
    /// startDetect while the state machine kept the old one (2003's portrait
    /// searched on a 2018 card's still).
    @Test func setCardTypeBeforeTheFirstFrameWaitsForStartDetectInTheTrackerToo() throws {
        let session = Self.liveSession()
        session.startDetect()
        session.setCardType(.hkid2003)
        let pixels = [UInt8](repeating: 0, count: 64 * 48)
        func frame(_ pts: Int64) throws {
            _ = try pixels.withUnsafeBufferPointer { buffer in
                try session.addFrame(planes: [buffer.baseAddress!], strides: [64], width: 64, height: 48, format: .gray8, pts: pts)
            }
        }
        func cardTypes() -> (machine: CardType, tracker: CardType?) {
            session.state.withLock { ($0.machine.cardType, $0.tracker?.cardType) }
        }
        try frame(0)
        #expect(cardTypes() == (.hkid2018, .hkid2018))
        session.startDetect()
        try frame(40_000_000)
        #expect(cardTypes() == (.hkid2003, .hkid2003))
        session.close()
    }

    @Test func framesBeforeStartDetectAreNotAnalysed() throws {
        let session = Self.liveSession()
        let pixels = [UInt8](repeating: 0, count: 64 * 48)
        let analysis = try pixels.withUnsafeBufferPointer { buffer in
            try session.addFrame(planes: [buffer.baseAddress!], strides: [64], width: 64, height: 48, format: .gray8, pts: 0)
        }
        #expect(analysis.measurement == nil)
        #expect(session.counters == FrameCounters(received: 1, analysed: 0, dropped: 0))
    }

    @Test func invalidFramesAndClosedSessionsThrow() {
        let session = Self.liveSession()
        session.startDetect()
        let pixels = [UInt8](repeating: 0, count: 64 * 48)
        pixels.withUnsafeBufferPointer { buffer in
            #expect(throws: LivenessError.self) {
                try session.addFrame(planes: [buffer.baseAddress!], strides: [64], width: 64, height: 48, format: .i420, pts: 0)
            }
            #expect(throws: LivenessError.invalidFrame("no timestamp (pts -1)")) {
                try session.addFrame(planes: [buffer.baseAddress!], strides: [64], width: 64, height: 48, format: .gray8, pts: -1)
            }
            session.close()
            #expect(throws: LivenessError.closed) {
                try session.addFrame(planes: [buffer.baseAddress!], strides: [64], width: 64, height: 48, format: .gray8, pts: 0)
            }
        }
    }

    @Test func watchdogFiresOvertimeWhenFramesStop() async {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let session = LivenessSession(configuration: .english {
            $0.overtimeSeconds = 0.3
            $0.watchdogSeconds = 0.1
        }, logger: logger)
        let stream = session.events()
        session.startDetect()
        session.process(.notFound, at: .zero)
        var seen: [String] = []
        for await event in stream {
            seen.append(summary(event))
            if case .result = event { break }
        }
        #expect(seen.first == "BEGIN@0.0")
        #expect(seen.last?.hasPrefix("result4@") == true)
        session.close()
    }

    @Test func version() {
        #expect(LivenessSession.version == "1.0.0")
    }
}
