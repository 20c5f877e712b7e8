import Foundation
import HKIDMedia
import HKIDSignature
import Testing

/// A station killed with SIGKILL mid-session: the next start marks the
/// session interrupted, keeps the recording so far (playable, Matroska) and
/// serves it in a signed bundle. SIGTERM ends the session cleanly instead.
@Suite(.serialized) struct RecoveryTests {
    @Test func killNineMidSessionLeavesAPlayableInterruptedSession() async throws {
        let directory = StationProcess.temporaryDirectory()
        let first = StationProcess(dataDirectory: directory, arguments: ["--source", "test-pattern"])
        try first.start()
        let started = try await first.post("/v1/sessions", json: #"{"cardType":"2018"}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        try await Task.sleep(for: .seconds(4))
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let second = StationProcess(dataDirectory: directory, arguments: ["--source", "test-pattern"])
        try second.start()
        defer { second.stop() }
        let session = try await second.waitUntilEnded(id, timeout: .seconds(20))
        #expect(session["status"] as? String == "interrupted")
        #expect((session["reason"] as? String)?.contains("crash") == true)

        // The recording so far plays back, every frame up to the kill.
        let video = try await second.get("/v1/sessions/\(id)/video")
        #expect(video.status == 200)
        let path = directory + "/recovered-\(id).mkv"
        try video.body.write(to: URL(fileURLWithPath: path))
        var frames = 0
        let source = try FrameSource(.replay, input: path)
        do {
            try source.run { _ in frames += 1 }
        } catch {
            // An unfinalised Matroska may end with a cut cluster; what played counts.
            Issue.record("recovered video did not decode to its end: \(error)")
        }
        #expect(frames > 60, "about 4 s at 30 fps were recorded before the kill; decoded \(frames)")

        // And it is sealed like any other session.
        let bundle = try await second.get("/v1/sessions/\(id)/bundle")
        #expect(bundle.status == 200)
        let bundlePath = directory + "/recovered-\(id).zip"
        try bundle.body.write(to: URL(fileURLWithPath: bundlePath))
        let keyPath = directory + "/station.pub"
        try await second.get("/v1/public-key").body.write(to: URL(fileURLWithPath: keyPath))
        let report = BundleVerifier(publicKey: try KeyFile.readPublicKey(at: keyPath)).verify(bundleAt: URL(fileURLWithPath: bundlePath))
        #expect(report.isValid, "\(report.problems)")
        #expect(report.manifest?.status == "interrupted")
        #expect(report.manifest?.files[BundleLayout.video] != nil)
    }

    @Test func sigtermEndsTheActiveSessionAsInterruptedWithAFinalisedRecording() async throws {
        let directory = StationProcess.temporaryDirectory()
        let station = StationProcess(dataDirectory: directory, arguments: ["--source", "test-pattern"])
        try station.start()
        let id = try #require(try await station.post("/v1/sessions", json: nil).json["id"] as? String)
        try await Task.sleep(for: .seconds(2))
        station.signal(SIGTERM)
        #expect(station.waitForExit(timeout: .seconds(20)) == 0, "graceful shutdown exits 0:\n\(station.output)")

        let again = StationProcess(dataDirectory: directory, arguments: ["--source", "test-pattern"])
        try again.start()
        defer { again.stop() }
        let session = try await again.get("/v1/sessions/\(id)").json
        #expect(session["status"] as? String == "interrupted")
        #expect(session["reason"] as? String == "the station shut down")
        #expect(session["bundleReady"] as? Bool == true)
        #expect(!again.output.contains("recovered an interrupted session"), "nothing was left to recover")
    }
}
