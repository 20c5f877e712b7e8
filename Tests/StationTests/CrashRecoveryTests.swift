import Foundation
import HKIDMedia
import HKIDSignature
import Testing

/// The real daemon killed with SIGKILL at each point of a session's end
/// (HKID_STATION_HOLD_AT stops it exactly there, so nothing races the
/// clock), then started again: every session ends sealed, its bundle
/// verifies, and what it says matches what was on disk.
@Suite(.serialized) struct CrashRecoveryTests {
    /// Starts a daemon that holds at `point`, ends a session so that it
    /// reaches the hold, kills it there, and returns the session id and the
    /// data directory.
    private func killAt(_ point: String, arguments: [String], body: String = "{}",
                        end: (StationProcess, String) async throws -> Void) async throws -> (String, String) {
        let directory = StationProcess.temporaryDirectory()
        let station = StationProcess(dataDirectory: directory, arguments: arguments,
                                     environment: ["HKID_STATION_HOLD_AT": point])
        try station.start()
        let started = try await station.post("/v1/sessions", json: body)
        #expect(started.status == 201, "\(started.text)")
        let id = try #require(started.json["id"] as? String)
        try await end(station, id)
        try station.waitForOutput("at=\(point)")
        station.signal(SIGKILL)
        #expect(station.waitForExit() != nil)
        return (id, directory)
    }

    /// Cancels in the background once a second of pictures went by: the
    /// reply never comes, the daemon holds.
    private func cancelWithoutWaiting(_ station: StationProcess, _ id: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline,
              (try await station.get("/v1/sessions/\(id)").json["frames"] as? [String: Any])?["analysed"] as? Int ?? 0 < 30 {
            try await Task.sleep(for: .milliseconds(100))
        }
        Task { _ = try? await station.request("POST", "/v1/sessions/\(id)/cancel", timeout: 120) }
    }

    /// Restarts on the same data, waits for the session to be sealed, checks
    /// the bundle offline and returns the session and its manifest.
    private func recover(_ id: String, in directory: String, arguments: [String])
        async throws -> ([String: Any], SessionManifest) {
        let again = StationProcess(dataDirectory: directory, arguments: arguments)
        try again.start()
        defer { again.stop() }
        let session = try await again.waitUntilEnded(id, timeout: .seconds(30))
        let bundle = try await again.get("/v1/sessions/\(id)/bundle")
        #expect(bundle.status == 200)
        let bundlePath = directory + "/bundle-\(id).zip", keyPath = directory + "/station.pub"
        try bundle.body.write(to: URL(fileURLWithPath: bundlePath))
        try await again.get("/v1/public-key").body.write(to: URL(fileURLWithPath: keyPath))
        let report = BundleVerifier(publicKey: try KeyFile.readPublicKey(at: keyPath))
            .verify(bundleAt: URL(fileURLWithPath: bundlePath))
        #expect(report.isValid, "\(report.problems)")
        let manifest = try #require(report.manifest)
        #expect(manifest.status == session["status"] as? String)
        #expect(manifest.videoTimestamp == session["videoTimestamp"] as? String)

        // The sealed video plays.
        #expect(manifest.files[BundleLayout.video] != nil, "no video sealed: \(manifest.files.keys.sorted())")
        let videoPath = directory + "/video-\(id).mkv"
        try await again.get("/v1/sessions/\(id)/video").body.write(to: URL(fileURLWithPath: videoPath))
        var frames = 0
        _ = try FrameSource(.replay, input: videoPath).run { _ in frames += 1 }
        #expect(frames > 10, "the sealed video decodes to \(frames) frames")
        // No partial file is left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory + "/sessions/\(id)").filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "left over: \(left)")
        return (session, manifest)
    }

    static let testPattern = ["--source", "test-pattern"]

    /// A cancelled session killed at each point of its end. Before the
    /// index is told (before-mark) the cancel is lost with the process: the
    /// session is recovered as interrupted; from then on it is cancelled.
    @Test(.serialized, arguments: [("before-mark", "interrupted"), ("before-seal", "cancelled"), ("during-seal", "cancelled"),
                      ("after-seal", "cancelled")])
    func killedWhileACancelledSessionEnds(point: String, status: String) async throws {
        let (id, directory) = try await killAt(point, arguments: Self.testPattern, end: cancelWithoutWaiting)
        let (session, _) = try await recover(id, in: directory, arguments: Self.testPattern)
        #expect(session["status"] as? String == status, "\(session)")
        let stamps = (session["videoTimestamp"] as? String ?? "").split(separator: "|").compactMap { Int64($0) }
        #expect(stamps.count == 4 && stamps[0] > 0 && stamps[3] >= stamps[0], "\(stamps)")
        let frames = try #require(session["frames"] as? [String: Any])
        #expect(frames["analysed"] as? Int ?? 0 > 10, "\(frames)")
    }

    /// The issue's case: a genuine session that completed, killed after the
    /// index said `completed` and before the seal (it stayed unsealed for
    /// good), and one killed before the index was told at all (the result is
    /// read back from its event log).
    @Test(.serialized, arguments: ["before-seal", "before-mark"])
    func killedWhileACompletedSessionEnds(point: String) async throws {
        let arguments = ["--source", "file", "--file", StationProcess.sample("genuine-2018.mp4"), "--restart-file-on-session"]
        let (id, directory) = try await killAt(point, arguments: arguments, body: #"{"cardType":"2018"}"#) { _, _ in }
        let (session, manifest) = try await recover(id, in: directory, arguments: arguments)
        #expect(session["status"] as? String == "completed", "\(session)")
        #expect((session["result"] as? [String: Any])?["retCode"] as? Int == 0)
        #expect(manifest.resultCode == 0)
        #expect(Set(manifest.files.keys).isSuperset(of: [BundleLayout.events, BundleLayout.video, BundleLayout.card,
                                                         BundleLayout.head]))
        let stamps = (session["videoTimestamp"] as? String ?? "").split(separator: "|").compactMap { Int64($0) }
        #expect(stamps.count == 4 && stamps.allSatisfy { $0 > 0 } && stamps == stamps.sorted(), "\(stamps)")
    }

    /// Killed mid-session: the moments and counters come back from what is on
    /// disk, and the remuxed recording states its real length (the cut one
    /// claimed the source file's whole length).
    @Test func killedMidSessionRebuildsMomentsCountersAndLength() async throws {
        let arguments = ["--source", "file", "--file", StationProcess.sample("still-card-2018.mp4"),
                         "--restart-file-on-session"]
        let directory = StationProcess.temporaryDirectory()
        let first = StationProcess(dataDirectory: directory, arguments: arguments)
        try first.start()
        let id = try #require(try await first.post("/v1/sessions", json: #"{"cardType":"2018"}"#).json["id"] as? String)
        // Wait (live, over the API) for ORTH, then let a second more pass.
        let deadline = ContinuousClock.now + .seconds(20)
        var live: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            live = try await first.get("/v1/sessions/\(id)").json
            let stamps = (live["videoTimestamp"] as? String ?? "").split(separator: "|")
            if stamps.count == 4 && stamps[1] != "0" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Live counters move while the session runs.
        #expect((live["frames"] as? [String: Any])?["analysed"] as? Int ?? 0 > 0, "live counters: \(live)")
        try await Task.sleep(for: .seconds(1))
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let again = StationProcess(dataDirectory: directory, arguments: arguments)
        try again.start()
        defer { again.stop() }
        let session = try await again.waitUntilEnded(id, timeout: .seconds(30))
        #expect(session["status"] as? String == "interrupted")
        let stamps = (session["videoTimestamp"] as? String ?? "").split(separator: "|").compactMap { Int64($0) }
        #expect(stamps.count == 4 && stamps[0] > 0 && stamps[1] > stamps[0] && stamps[2] == 0 && stamps[3] > stamps[1],
                "start|ORTH|0|stop expected: \(stamps)")
        let events = try await again.get("/v1/sessions/\(id)/events").text
        #expect(events.contains(#""status":"ORTH""#))
        let frameLines = events.components(separatedBy: #"data: {"type":"frame""#).count - 1
        let frames = try #require(session["frames"] as? [String: Any])
        #expect(frameLines > 30 && frames["analysed"] as? Int == frameLines, "\(frames) against \(frameLines) frame lines")

        let path = directory + "/recovered.mkv"
        try await again.get("/v1/sessions/\(id)/video").body.write(to: URL(fileURLWithPath: path))
        var decoded = 0
        _ = try FrameSource(.replay, input: path).run { _ in decoded += 1 }
        let stated = try #require(RecordingRepair.statedDuration(of: path), "the recovered file states no duration")
        let played = Double(decoded) / 30
        #expect(abs(stated - played) < 0.5, "the header says \(stated) s for \(played) s of video (\(decoded) frames)")
    }
}
