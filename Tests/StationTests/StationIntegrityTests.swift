import Foundation
import HKIDMedia
import HKIDSignature
import Testing

/// Issue 40: a full disk and racing requests never sign a lie. Each test
/// drives the real daemon over loopback; the races are made certain with
/// hold points (`HKID_STATION_HOLD_AT` with `HKID_STATION_HOLD_SECONDS`)
/// rather than by timing requests against the wall clock.
@Suite(.serialized) struct StationIntegrityTests {
    static let genuine = StationProcess.sample("genuine-2018.mp4")

    /// The data directory on a 3 MB tmpfs, in the daemon's own mount
    /// namespace; the test reaches it through /proc/<pid>/root.
    static func stationOnSmallDisk(_ arguments: [String]) -> StationProcess {
        let directory = StationProcess.temporaryDirectory()
        let mount = #"mount -t tmpfs -o size=3m,mode=0700 tmpfs "$0" && exec "$@""#
        return StationProcess(dataDirectory: directory, arguments: arguments,
                              wrapper: ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", mount, directory])
    }

    /// Fills the file system under `path` with `filler` until `leave` bytes are free.
    static func fill(_ path: String, leaving leave: UInt64, filler: String) throws {
        var info = statvfs()
        try #require(statvfs(path, &info) == 0)
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        let size = free > leave ? Int(free - leave) : 0
        try Data(count: size).write(to: URL(fileURLWithPath: filler))
    }

    /// Starts a session; its id, or the reply in the failure.
    static func start(_ station: StationProcess, _ json: String = "{}") async throws -> String {
        let reply = try await station.request("POST", "/v1/sessions", body: Data(json.utf8), timeout: 90)
        return try #require(reply.json["id"] as? String, "\(reply.status) \(reply.text)\n\(station.output)")
    }

    /// The file source, started again for each session; a loaded machine
    /// may take long to play it again, which is not what these tests test.
    static func genuineSource() throws -> [String] {
        ["--config", try StationRobustnessTests.config("source_start_timeout_seconds: 60\n"),
         "--source", "file", "--file", genuine, "--restart-file-on-session"]
    }

    /// The files of a session's folder, as the daemon sees them.
    static func files(in folder: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs for the data directory needs root (CI runs as root)"))
    func aFullDiskFailsTheSessionAndSealsItOnceSpaceReturns() async throws {
        let station = Self.stationOnSmallDisk(try Self.genuineSource())
        try station.start()
        defer { station.stop() }
        let pid = try #require(station.process?.processIdentifier)
        let disk = "/proc/\(pid)/root\(station.dataDirectory)"
        try Self.fill(disk, leaving: 400_000, filler: disk + "/filler")

        let started = try await station.post("/v1/sessions", json: "{}")
        #expect(started.status == 201, "\(started.status) \(started.text)")
        let id = try #require(started.json["id"] as? String)
        let ended = try await StationRobustnessTests.waitUntilNotActive(station, id, timeout: .seconds(40))
        #expect(ended["status"] as? String == "failed", "\(ended)")
        #expect((ended["reason"] as? String)?.hasPrefix("storage full: ") == true, "\(ended)")
        #expect(ended["bundleReady"] as? Bool == false)
        #expect(try await station.get("/healthz").json["activeSession"] == nil, "no ghost active session")
        let active = try await station.get("/v1/sessions?status=active").json["sessions"] as? [[String: Any]]
        #expect(active?.isEmpty == true, "listed as active: \(active ?? [])")
        let folder = disk + "/sessions/\(id)"
        #expect(!Self.files(in: folder).contains(".bundle.zip.partial"), "a partial bundle was left: \(Self.files(in: folder))")

        // Another start while the disk is full: refused with nothing left
        // behind, or started and failed the same way.
        let again = try await station.post("/v1/sessions", json: "{}")
        let folders = Self.files(in: disk + "/sessions")
        if again.status == 500 {
            #expect(folders == [id], "a refused start left a folder: \(folders)")
        } else {
            #expect(again.status == 201, "\(again.status) \(again.text)")
            let second = try #require(again.json["id"] as? String)
            let failed = try await StationRobustnessTests.waitUntilNotActive(station, second, timeout: .seconds(40))
            #expect((failed["reason"] as? String)?.hasPrefix("storage full: ") == true, "\(failed)")
        }

        // Space comes back: sealed without a restart.
        try FileManager.default.removeItem(atPath: disk + "/filler")
        let sealed = try await station.waitUntilEnded(id, timeout: .seconds(30))
        #expect(sealed["status"] as? String == "failed")
        #expect(!Self.files(in: folder).contains { $0.hasSuffix(".partial") || $0.hasSuffix(".recording") || $0.hasSuffix(".repaired") },
                "\(Self.files(in: folder))")

        let bundle = StationProcess.temporaryDirectory() + "/bundle.zip", key = StationProcess.temporaryDirectory() + "/station.pub"
        try await station.get("/v1/sessions/\(id)/bundle").body.write(to: URL(fileURLWithPath: bundle))
        try await station.get("/v1/public-key").body.write(to: URL(fileURLWithPath: key))
        let report = BundleVerifier(publicKey: try KeyFile.readPublicKey(at: key)).verify(bundleAt: URL(fileURLWithPath: bundle))
        #expect(report.isValid, "\(report.problems)")
        #expect(report.manifest?.status == "failed")
        #expect(report.manifest?.reason?.hasPrefix("storage full: ") == true, "\(String(describing: report.manifest))")

        // The signed files hold what they claim: whole lines, and a video as long as it says.
        let events = try Data(contentsOf: URL(fileURLWithPath: folder + "/events.jsonl"))
        #expect(events.last == UInt8(ascii: "\n"), "the signed log ends in half a line")
        for line in events.split(separator: UInt8(ascii: "\n")) {
            #expect((try? JSONSerialization.jsonObject(with: Data(line))) != nil, "not a JSON line: \(String(decoding: line, as: UTF8.self))")
        }
        if report.manifest?.files[BundleLayout.video] != nil {
            let video = folder + "/video.mkv"
            let stated = try #require(RecordingRepair.statedDuration(of: video))
            var last: Int64 = 0
            _ = try FrameSource(.replay, input: video).run { frame in last = max(last, frame.pts) }
            #expect(abs(stated - Double(last) / 1e9) < 0.5, "the video states \(stated) s and holds \(Double(last) / 1e9) s")
        }
    }

    /// A cancel that arrives once the session has its result, before the
    /// station has ended it: 409, and the session is completed with it.
    /// (Before, the cancel won: `cancelled` with result 0 and a genuine verdict.)
    @Test func aCancelAfterTheResultIsRefused() async throws {
        let station = StationProcess(arguments: try Self.genuineSource(),
                                     environment: ["HKID_STATION_HOLD_AT": "before-result-ends", "HKID_STATION_HOLD_SECONDS": "3"])
        try station.start()
        defer { station.stop() }
        let id = try await Self.start(station)
        try station.waitForOutput("at=before-result-ends")
        let cancel = try await station.post("/v1/sessions/\(id)/cancel")
        #expect(cancel.status == 409, "\(cancel.status) \(cancel.text)")
        #expect((cancel.json["error"] as? String)?.hasSuffix("it has reached its result") == true, "\(cancel.text)")
        let ended = try await station.waitUntilEnded(id)
        #expect(ended["status"] as? String == "completed", "\(ended)")
        #expect((ended["result"] as? [String: Any])?["retCode"] as? Int == 0)
        let metrics = try await station.get("/metrics").text
        #expect(!metrics.contains(#"status="cancelled""#), "counted as cancelled:\n\(metrics)")
    }

    /// A cancel that wins, with the result reached while the station is
    /// ending the session: cancelled, no result, and the signed log holds no
    /// result line after it. (Before: cancelled with result 0 and success.)
    @Test func aCancelThatWinsKeepsNoLaterResult() async throws {
        let station = StationProcess(arguments: try Self.genuineSource(),
                                     environment: ["HKID_STATION_HOLD_AT": "after-claim", "HKID_STATION_HOLD_SECONDS": "9"])
        try station.start()
        defer { station.stop() }
        let id = try await Self.start(station)
        try await station.waitUntilORTH(id)
        let cancel = try await station.request("POST", "/v1/sessions/\(id)/cancel", timeout: 60)
        #expect(cancel.status == 200, "\(cancel.status) \(cancel.text)")
        // The analysis went on during the hold and reached its result: the race happened.
        #expect(station.output.contains("a result reached after the session began ending is not kept"), "\(station.output)")
        let ended = try await station.waitUntilEnded(id)
        #expect(ended["status"] as? String == "cancelled")
        #expect(ended["result"] == nil, "a cancelled session with a result: \(ended)")
        #expect((ended["liveness"] as? [String: Any])?["verdict"] == nil, "\(ended)")
        let events = try await station.get("/v1/sessions/\(id)/events").text
        #expect(!events.contains(#""retCode":0"#), "the signed log holds the result")
    }

    /// `/events` opened the moment the session is listed (while the start
    /// still waits for the file to play again) delivers BEGIN. (Before: the
    /// stream ended at once with no event.)
    @Test func eventsOpenedAsSoonAsTheSessionIsListedStartWithBEGIN() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", Self.genuine, "--restart-file-on-session",
                                                 "--record-mode", "none"])
        try station.start()
        defer { station.stop() }
        let post = Task { try await station.post("/v1/sessions", json: "{}") }
        var id: String?
        let deadline = ContinuousClock.now + .seconds(20)
        while id == nil, ContinuousClock.now < deadline {
            let listed = try await station.get("/v1/sessions?status=active").json["sessions"] as? [[String: Any]]
            id = listed?.first?["id"] as? String
        }
        let listed = try #require(id, "the session was never listed as active")
        let stream = Task { try await station.request("GET", "/v1/sessions/\(listed)/events", timeout: 60).text }
        #expect(try await post.value.status == 201)
        try await Task.sleep(for: .seconds(1))
        #expect(try await station.post("/v1/sessions/\(listed)/cancel").status == 200)
        let events = try await stream.value
        let first = events.split(separator: "\n").first { $0.hasPrefix("data: ") }
        #expect(first?.contains(#""status":"BEGIN""#) == true, "the stream began with \(String(describing: first)):\n\(events)")
    }

    /// `loop_file`: the session clock goes on across the wraps of a
    /// one-second file, so event times never go back and overtime fires
    /// (before: times restarted at 0 each second and overtime never came),
    /// and the wraps log nothing about seeking.
    @Test func aLoopingFileKeepsTheSessionClock() async throws {
        let clip = try StationRobustnessTests.oneSecondClip()
        let station = StationProcess(arguments: ["--source", "file", "--file", clip, "--record-mode", "none"])
        try station.start()
        defer { station.stop() }
        let id = try await Self.start(station, #"{"overtimeSeconds":3}"#)
        let ended = try await station.waitUntilEnded(id, timeout: .seconds(30))
        #expect(ended["status"] as? String == "failed", "\(ended)")
        #expect((ended["result"] as? [String: Any])?["retCode"] as? Int == 4, "overtime: \(ended)")
        let events = try await station.get("/v1/sessions/\(id)/events").text
        let times = events.split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("data: "), let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)),
                  let t = (object as? [String: Any])?["t"] as? Double else { return nil }
            return t
        }
        #expect(times.count > 30, "\(times.count) timed lines:\n\(events.prefix(1500))")
        #expect(times == times.sorted(), "event times went back: \(times)")
        #expect((times.last ?? 0) >= 3, "the last event at \(times.last ?? 0) s")
        #expect(!station.output.contains("cannot seek back"), "\(station.output)")
    }

    /// A start while the camera is down retries it at once, and the 503
    /// names the camera's own error. (Before: 503 at once, without it.)
    @Test func aStartWithoutACameraRetriesItAndSaysWhy() async throws {
        let file = StationProcess.fixture("taken-for-subtitles.mp4")
        let config = try StationRobustnessTests.config("source_start_timeout_seconds: 2\n")
        let station = StationProcess(arguments: ["--config", config, "--source", "file", "--file", file])
        try station.start(waitingForCamera: false)
        defer { station.stop() }
        try station.waitForOutput("camera failed; retrying with back-off")
        let refused = try await station.request("POST", "/v1/sessions", body: Data("{}".utf8), timeout: 20)
        #expect(refused.status == 503, "\(refused.status) \(refused.text)")
        let message = refused.json["error"] as? String ?? ""
        #expect(message.hasPrefix("the camera is not running: no pipeline ran within 2.0 seconds"), "\(message)")
        #expect(message.contains("has no video stream"), "the camera's own error is named: \(message)")
    }
}
