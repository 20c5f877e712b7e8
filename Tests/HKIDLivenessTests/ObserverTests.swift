import Foundation
@testable import HKIDLiveness
import Synchronization
import Testing

/// Delivery: observers, closures and streams get every event in order, one
/// callback at a time, off the analysis thread.
@Suite("Observers")
struct ObserverTests {
    @Test func observerUnregisteredMidSession() async {
        let session = makeSession()
        let leaving = RecordingObserver()
        let staying = RecordingObserver()
        session.registerObserver(leaving)
        session.registerObserver(staying)

        let firstHalf = MeasurementScript(fps: 10).front(0.5)
        var events = session.startDetect() + session.play(firstHalf)
        await session.flush()
        session.unregisterObserver(leaving)
        events += session.play(firstHalf.continued().turn(.yaw, to: 30, over: 0.5))
        await session.flush()

        #expect(leaving.events == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3"])
        #expect(staying.events == ["BEGIN@0.0", "result1@0.3", "ORTH@0.3", "RESET@0.9"])
        #expect(staying.events == summaries(events))
    }

    @Test func slowObserverDoesNotStallAnalysis() async {
        let session = makeSession()
        let slow = RecordingObserver(delay: .milliseconds(100))
        let quick = RecordingObserver()
        session.registerObserver(slow)
        session.registerObserver(quick)

        let clock = ContinuousClock()
        let started = clock.now
        let events = session.startDetect() + session.play(FlowTests.genuine)
        let analysing = clock.now - started
        // 7 events x 100 ms in the slow observer; analysis must not wait for them.
        #expect(events.count == 7)
        #expect(analysing < .milliseconds(300), "process waited for observers: \(analysing)")

        await session.flush()
        #expect(slow.events == summaries(events))
        #expect(quick.events == summaries(events))
        #expect(!slow.overlapped && !quick.overlapped)
    }

    @Test func waitUntilIdleBlocksUntilDelivered() {
        let session = makeSession()
        let slow = RecordingObserver(delay: .milliseconds(20))
        session.registerObserver(slow)
        let events = session.startDetect() + session.play(MeasurementScript(fps: 10).front(0.5))
        session.waitUntilIdle()
        #expect(slow.events == summaries(events))
    }

    @Test func closuresAndStreamsSeeTheSameOrder() async {
        let session = makeSession()
        let seen = Mutex<[String]>([])
        let results = Mutex<[Int]>([])
        session.onEvent { event in seen.withLock { $0.append(summary(event)) } }
        session.onResult { result in results.withLock { $0.append(result.retCode) } }
        let stream = session.events()

        let events = session.startDetect() + session.play(FlowTests.genuine)
        session.close()

        var streamed: [String] = []
        for await event in stream { streamed.append(summary(event)) }
        #expect(streamed == summaries(events))
        #expect(seen.withLock { $0 } == summaries(events))
        #expect(results.withLock { $0 } == [1, 0])
    }

    @Test func removedHandlerIsNotCalled() async {
        let session = makeSession()
        let count = Mutex(0)
        let token = session.onEvent { _ in count.withLock { $0 += 1 } }
        session.startDetect()
        await session.flush()
        session.removeHandler(token)
        session.play(MeasurementScript(fps: 10).front(0.5))
        await session.flush()
        #expect(count.withLock { $0 } == 1)
    }

    @Test func observersAreHeldWeakly() async {
        let session = makeSession()
        weak var gone: RecordingObserver?
        do {
            let observer = RecordingObserver()
            gone = observer
            session.registerObserver(observer)
        }
        #expect(gone == nil)
        session.startDetect()
        session.play(FlowTests.genuine)
        await session.flush()
    }

    /// The station's pattern: the owner of a session registers a closure
    /// that captures the owner. Closing the session must break that cycle,
    /// or every finished session stays in memory for the life of the daemon.
    @Test func closeReleasesClosuresThatCaptureTheSessionsOwner() async {
        final class Owner: Sendable {
            let session = makeSession()
            let seen = Mutex(0)
        }
        weak var gone: Owner?
        var events: [LivenessEvent] = []
        do {
            let owner = Owner()
            gone = owner
            owner.session.onEvent { [owner] _ in owner.seen.withLock { $0 += 1 } }
            events = owner.session.startDetect() + owner.session.play(FlowTests.genuine)
            await owner.session.flush()
            #expect(owner.seen.withLock { $0 } == events.count)
            owner.session.close()
            await owner.session.flush()
            // Registering on a closed session keeps nothing either.
            owner.session.onEvent { [owner] _ in owner.seen.withLock { $0 += 1 } }
        }
        #expect(events.count == 7)
        #expect(gone == nil, "a closed session still holds the closure that captures its owner")
    }

    @Test func frameTraceWhenAsked() async {
        let session = makeSession(.english { $0.emitsFrameTrace = true })
        let events = session.startDetect() + session.play(MeasurementScript(fps: 10).front(0.3).missing(0.1))
        #expect(summaries(events) == ["BEGIN@0.0", "frame@0.0", "frame@0.1", "frame@0.2", "frame@0.3"])
        guard case .frame(let trace) = events.last else {
            Issue.record("no frame event")
            return
        }
        #expect(trace.card == nil)
    }
}
