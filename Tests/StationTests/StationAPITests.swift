import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The daemon over real HTTP, fed by GStreamer's live test pattern.
@Suite(.serialized) struct StationAPITests {
    /// Checks the reply and that its status is documented for the route.
    @discardableResult
    func expectStatus(_ reply: StationProcess.Reply, _ status: Int, _ method: String, _ path: String,
                      sourceLocation: SourceLocation = #_sourceLocation) -> StationProcess.Reply {
        #expect(reply.status == status, "\(method) \(path): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        #expect(OpenAPIDocument.shared.documents(status: reply.status, method: method, path: path),
                "\(method) \(path) answered \(reply.status), which docs/station-openapi.yaml does not document",
                sourceLocation: sourceLocation)
        return reply
    }

    @Test func sessionLifecycleConflictCancelAndBadInput() async throws {
        let station = StationProcess(arguments: ["--source", "test-pattern"])
        try station.start()
        defer { station.stop() }

        let health = try await station.get("/healthz")
        expectStatus(health, 200, "GET", "/healthz")

        let started = expectStatus(try await station.post("/v1/sessions", json: #"{"cardType":"2003","language":"en","overtimeSeconds":30}"#),
                                   201, "POST", "/v1/sessions")
        let id = try #require(started.json["id"] as? String)
        #expect(id.range(of: "^[0-9a-f]{32}$", options: .regularExpression) != nil)
        #expect(started.json["status"] as? String == "active")

        // One session at a time.
        expectStatus(try await station.post("/v1/sessions", json: "{}"), 409, "POST", "/v1/sessions")
        // A finished-only resource of an active session.
        expectStatus(try await station.get("/v1/sessions/\(id)/bundle"), 409, "GET", "/v1/sessions/\(id)/bundle")

        // Until the live counters show analysis going (not a fixed sleep:
        // a loaded machine analyses fewer frames in the same wall time).
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline,
              (try await station.get("/v1/sessions/\(id)").json["frames"] as? [String: Any])?["analysed"] as? Int ?? 0 <= 20 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let cancelled = expectStatus(try await station.post("/v1/sessions/\(id)/cancel"), 200, "POST", "/v1/sessions/\(id)/cancel")
        #expect(cancelled.json["status"] as? String == "cancelled")
        expectStatus(try await station.post("/v1/sessions/\(id)/cancel"), 409, "POST", "/v1/sessions/\(id)/cancel")
        let ended = try await station.waitUntilEnded(id)
        #expect(ended["status"] as? String == "cancelled")
        let frames = try #require(ended["frames"] as? [String: Any])
        #expect((frames["analysed"] as? Int ?? 0) > 20, "the test pattern should have been analysed: \(frames)")

        let bundle = expectStatus(try await station.get("/v1/sessions/\(id)/bundle"), 200, "GET", "/v1/sessions/\(id)/bundle")
        #expect(bundle.body.starts(with: [0x50, 0x4b]), "the bundle is a zip")
        expectStatus(try await station.get("/v1/sessions/\(id)/video"), 200, "GET", "/v1/sessions/\(id)/video")
        let events = expectStatus(try await station.get("/v1/sessions/\(id)/events"), 200, "GET", "/v1/sessions/\(id)/events")
        #expect(events.text.contains(#"data: {"type":"operation","status":"BEGIN","value":0"#))
        #expect(events.text.contains(#""type":"end""#))

        // A second session may start now; paging and the status filter see both.
        let second = expectStatus(try await station.post("/v1/sessions", json: nil), 201, "POST", "/v1/sessions")
        let secondID = try #require(second.json["id"] as? String)
        let active = expectStatus(try await station.get("/v1/sessions?status=active"), 200, "GET", "/v1/sessions")
        #expect((active.json["sessions"] as? [[String: Any]])?.map { $0["id"] as? String } == [secondID])
        let firstPage = expectStatus(try await station.get("/v1/sessions?limit=1"), 200, "GET", "/v1/sessions")
        let cursor = try #require(firstPage.json["nextCursor"] as? String)
        let secondPage = expectStatus(try await station.get("/v1/sessions?limit=1&cursor=\(cursor)"), 200, "GET", "/v1/sessions")
        #expect((secondPage.json["sessions"] as? [[String: Any]])?.first?["id"] as? String == id)
        expectStatus(try await station.post("/v1/sessions/\(secondID)/cancel"), 200, "POST", "/v1/sessions/\(secondID)/cancel")

        // Malformed ids, bodies and queries: 4xx, never 5xx.
        for bad in ["nope", "../../etc/passwd", "%2e%2e%2fkeys", String(repeating: "a", count: 31),
                    String(repeating: "A", count: 32), String(repeating: "g", count: 32)] {
            let reply = try await station.get("/v1/sessions/\(bad)")
            #expect((400..<500).contains(reply.status), "GET /v1/sessions/\(bad) gave \(reply.status)")
        }
        expectStatus(try await station.get("/v1/sessions/\(String(repeating: "0", count: 32))"), 404, "GET", "/v1/sessions/x")
        expectStatus(try await station.get("/v1/sessions/\(id)/images/passwd"), 404, "GET", "/v1/sessions/\(id)/images/passwd")
        for body in ["{", "[]", "null", #"{"cardType":"1999"}"#, #"{"overtimeSeconds":-1}"#, #"{"language":"fr"}"#,
                     #"{"cardType":2018}"#] {
            expectStatus(try await station.post("/v1/sessions", json: body), 400, "POST", "/v1/sessions")
        }
        // A misspelt field is refused by name rather than silently ignored.
        let misspelt = expectStatus(try await station.post("/v1/sessions", json: #"{"cardType":"2018","overtime":3}"#), 400,
                                    "POST", "/v1/sessions")
        #expect(misspelt.json["error"] as? String == #"unknown field "overtime"; the body takes cardType, overtimeSeconds, language"#)
        let huge = "{\"cardType\":\"" + String(repeating: "x", count: 100_000) + "\"}"
        expectStatus(try await station.post("/v1/sessions", json: huge), 413, "POST", "/v1/sessions")
        expectStatus(try await station.get("/v1/sessions?limit=0"), 400, "GET", "/v1/sessions")
        expectStatus(try await station.get("/v1/sessions?status=happy"), 400, "GET", "/v1/sessions")
        expectStatus(try await station.get("/v1/sessions?cursor=abc"), 400, "GET", "/v1/sessions")
        // An empty cursor is the first page (clients that template the URL send it).
        let emptyCursor = expectStatus(try await station.get("/v1/sessions?limit=1&cursor="), 200, "GET", "/v1/sessions")
        #expect((emptyCursor.json["sessions"] as? [[String: Any]])?.first?["id"] as? String == secondID)
        // A known path asked with another method: 405 naming the methods, not 404.
        for (method, path, allow) in [("DELETE", "/v1/sessions", "GET, POST"), ("PUT", "/healthz", "GET"),
                                      ("DELETE", "/v1/sessions/\(id)", "GET"), ("GET", "/v1/sessions/\(id)/cancel", "POST")] {
            let reply = try await station.request(method, path)
            #expect(reply.status == 405, "\(method) \(path): \(reply.status)")
            #expect(reply.headers["allow"] == allow, "\(method) \(path): Allow \(reply.headers["allow"] ?? "none")")
        }
        #expect(try await station.get("/v1/nothing").status == 404)

        let metrics = expectStatus(try await station.get("/metrics"), 200, "GET", "/metrics")
        #expect(metrics.text.contains("hkid_station_sessions_total"))
        #expect(metrics.text.contains("hkid_station_frames_analysed_total"))
        #expect(metrics.text.contains("hkid_station_frame_analysis_seconds_bucket"))
        let key = expectStatus(try await station.get("/v1/public-key"), 200, "GET", "/v1/public-key")
        #expect(key.text.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let page = expectStatus(try await station.get("/"), 200, "GET", "/")
        #expect(page.text.contains("<svg id=\"overlay\""))
        expectStatus(try await station.get("/v1/preview.jpg"), 200, "GET", "/v1/preview.jpg")

        // Files are private.
        let sessionDirectory = station.dataDirectory + "/sessions/" + id
        for name in try FileManager.default.contentsOfDirectory(atPath: sessionDirectory) {
            let mode = try FileManager.default.attributesOfItem(atPath: sessionDirectory + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name) has mode \(String(mode ?? 0, radix: 8))")
        }
        let rootMode = try FileManager.default.attributesOfItem(atPath: station.dataDirectory)[.posixPermissions] as? Int
        #expect(rootMode == 0o700)
        let keyMode = try FileManager.default.attributesOfItem(atPath: station.dataDirectory + "/keys/station.key")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(!station.output.contains("BEGIN PRIVATE KEY"), "the private key must never be logged")
    }

    /// A command line that does not parse is exit 64 (EX_USAGE), a bad
    /// configuration 78 (EX_CONFIG); the systemd unit restarts on neither.
    @Test func exitCodesMatchTheUnitFile() throws {
        let camera = StationProcess(arguments: ["--source", "camera"])
        #expect(throws: (any Error).self) { try camera.start(timeout: .seconds(10)) }
        #expect(camera.waitForExit() == 64, "\(camera.output)")
        #expect(camera.output.contains("camera"), "\(camera.output)")
        let unit = try String(contentsOf: StationProcess.repository.appendingPathComponent("docs/hkid-station.service"),
                              encoding: .utf8)
        let prevent = unit.split(separator: "\n").first { $0.hasPrefix("RestartPreventExitStatus=") }
        #expect(prevent.map { Set($0.dropFirst("RestartPreventExitStatus=".count).split(separator: " ")) } == ["64", "78"])
    }

    @Test func refusesToListenOffLoopbackWithoutAToken() throws {
        let station = StationProcess(arguments: ["--source", "test-pattern", "--host", "0.0.0.0"])
        #expect(throws: (any Error).self) { try station.start(timeout: .seconds(10)) }
        #expect(station.waitForExit() == 78)
        #expect(station.output.contains("needs a bearer token"))
    }

    /// A source that decodes to no video at all: /healthz names the reason,
    /// sessions are refused with 503, and the daemon stays up to retry.
    /// Before, this file (taken for subtitles) left the camera waiting
    /// forever with no error anywhere.
    @Test func sourceWithoutVideoIsReportedOnHealth() async throws {
        let file = StationProcess.fixture("taken-for-subtitles.mp4")
        let station = StationProcess(arguments: ["--source", "file", "--file", file])
        try station.start(waitingForCamera: false)
        defer { station.stop() }
        var camera: [String: Any] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        while camera["lastError"] == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            camera = try await station.get("/healthz").json["camera"] as? [String: Any] ?? [:]
        }
        #expect(camera["lastError"] as? String == "\(file): has no video stream", "\(camera)")
        // Retried with back-off (2 s, then 4 s, ...), logged once while the
        // error stays the same (before: an error line every 2 s for ever).
        try await Task.sleep(for: .seconds(7))
        #expect(station.output.components(separatedBy: "camera failed").count - 1 == 1, "\(station.output)")
        #expect(camera["running"] as? Bool == false)
        let health = expectStatus(try await station.get("/healthz"), 200, "GET", "/healthz")
        #expect(health.json["status"] as? String == "degraded")
        expectStatus(try await station.post("/v1/sessions", json: "{}"), 503, "POST", "/v1/sessions")
        expectStatus(try await station.get("/v1/preview.jpg"), 503, "GET", "/v1/preview.jpg")
        #expect(station.process?.isRunning == true, "the daemon must stay up and retry the source")
    }

    @Test func tokenIsRequiredWhenConfigured() async throws {
        let directory = StationProcess.temporaryDirectory()
        let tokenPath = directory + "/token"
        let token = "s3cret-token-0123456789abcdef"
        try token.write(toFile: tokenPath, atomically: true, encoding: .utf8)
        // A token others can read is refused (exit 78), like the signing key.
        chmod(tokenPath, 0o644)
        let readable = StationProcess(dataDirectory: directory + "/data",
                                      arguments: ["--source", "test-pattern", "--host", "0.0.0.0", "--token-file", tokenPath])
        #expect(throws: (any Error).self) { try readable.start(timeout: .seconds(10)) }
        #expect(readable.waitForExit() == 78)
        #expect(readable.output.contains("\(tokenPath): the token file is readable by others (mode 644); chmod 600 it"),
                "\(readable.output)")
        chmod(tokenPath, 0o600)
        let station = StationProcess(dataDirectory: directory + "/data",
                                     arguments: ["--source", "test-pattern", "--host", "0.0.0.0", "--token-file", tokenPath])
        try station.start()
        defer { station.stop() }
        expectStatus(try await station.get("/healthz"), 200, "GET", "/healthz")
        expectStatus(try await station.get("/v1/sessions"), 401, "GET", "/v1/sessions")
        expectStatus(try await station.get("/v1/sessions", token: "wrong-token-0123456789abcdef"), 401, "GET", "/v1/sessions")
        expectStatus(try await station.post("/v1/sessions", json: "{}"), 401, "POST", "/v1/sessions")
        expectStatus(try await station.get("/v1/sessions", token: token), 200, "GET", "/v1/sessions")
        // The scheme is case-insensitive.
        var lowercase = URLRequest(url: URL(string: "http://127.0.0.1:\(station.port)/v1/sessions")!)
        lowercase.setValue("bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: lowercase)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "Authorization: bearer … was refused")
        expectStatus(try await station.get("/?access_token=\(token)"), 200, "GET", "/")
    }
}
