import Foundation
import HKIDSignature
import Testing

/// One hub and one worker over a real PostgreSQL: an upload is checked with
/// the CLI's replay, its events and signed bundle fetched over HTTP.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CheckFlowTests {
    let fixture: HubFixture
    let database: String

    init() throws {
        fixture = try HubFixture()
        database = try PostgresServer.shared.createDatabase()
    }

    @Test func anUploadIsCheckedLikeTheCLIAndItsBundleVerifies() throws {
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let worker = try fixture.startWorker(database: database, name: "w1")
        defer { worker.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")

        let sample = ChildProcess.sample("genuine-2018.mp4")
        let created = try client.upload(sample, key: "session-1")
        #expect(created.status == 202, "\(created.text)")
        #expect(created.headers["location"] == "/v1/checks/\(created.json["id"] as? String ?? "")")
        let id = try #require(created.json["id"] as? String)
        let check = try client.waitUntilFinished(id)
        #expect(check["state"] as? String == "done", "\(check)\n\(worker.output)")
        #expect(check["resultCode"] as? Int == 0)
        #expect(check["verdict"] as? String == "genuine")
        #expect(check["attempts"] as? Int == 1)
        #expect((check["result"] as? [String: Any])?["retCode"] as? Int == 0)

        // The event stream is the CLI's, line for line but the end line's wall time.
        let events = try client.request("GET", "/v1/checks/\(id)/events")
        #expect(events.status == 200)
        #expect(events.headers["content-type"] == "application/x-ndjson")
        let cli = Shell.run([ChildProcess.cli, "replay", sample, "--json"])
        try #require(cli.code == 0, "\(cli.output)")
        func withoutTimes(_ text: String) -> [String] {
            text.split(separator: "\n").map { String($0).replacing(/"seconds":[0-9.e-]+/, with: "\"seconds\":_") }
        }
        #expect(withoutTimes(events.text) == withoutTimes(cli.output))
        #expect(((check["events"] as? [Any])?.count ?? 0) == withoutTimes(cli.output).count)

        // The bundle verifies offline, with the CLI's own verifier.
        let bundle = try client.request("GET", "/v1/checks/\(id)/bundle")
        #expect(bundle.status == 200)
        let path = fixture.directory + "/bundle.zip"
        try bundle.body.write(to: URL(fileURLWithPath: path))
        let report = BundleVerifier(publicKey: fixture.publicKey).verify(bundleAt: URL(fileURLWithPath: path))
        #expect(report.problems == [])
        #expect(report.manifest?.sessionId == id)
        #expect(report.manifest?.resultCode == 0)
        #expect(Set(report.verifiedFiles) == ["events.jsonl", "video.mp4", "card.jpg", "head.jpg", "first-card.jpg"])
        let verify = Shell.run([ChildProcess.cli, "verify", path, "--public-key", fixture.publicKeyPath])
        #expect(verify.code == 0, "\(verify.output)")

        // Another client does not see it; the list does, with its cursor.
        var other = client
        other.token = HubFixture.otherToken
        #expect(try other.request("GET", "/v1/checks/\(id)").status == 404)
        let list = try client.request("GET", "/v1/checks?limit=10")
        #expect((list.json["checks"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        #expect(try client.request("GET", "/v1/checks", headers: ["Authorization": "Bearer wrong"]).status == 401)

        // /metrics: the queue as the database sees it, and the check's time
        // from claim to result in the histogram's buckets at and above it.
        let metrics = try Self.metrics(client)
        #expect(metrics["hkid_hub_checks{state=\"done\"}"] == 1, "\(metrics)")
        #expect(metrics["hkid_hub_queue_depth"] == 0)
        #expect(metrics["hkid_hub_checks_finished_total{state=\"failed\"}"] == 0)
        #expect(metrics["hkid_hub_check_seconds_count"] == 1)
        let seconds = try #require(metrics["hkid_hub_check_seconds_sum"])
        #expect(seconds > 0 && seconds < 60, "\(metrics)")
        for bound in ["0.5", "1", "2", "5", "10", "20", "30", "60", "120", "300", "+Inf"] {
            let inBucket = metrics["hkid_hub_check_seconds_bucket{le=\"\(bound)\"}"]
            #expect(inBucket == ((Double(bound) ?? .infinity) >= seconds ? 1 : 0), "le \(bound): \(metrics)")
        }
    }

    /// `GET /metrics` as sample name → value.
    static func metrics(_ client: HubClient) throws -> [String: Double] {
        let reply = try client.request("GET", "/metrics")
        try #require(reply.status == 200, "\(reply.text)")
        var samples: [String: Double] = [:]
        for line in reply.text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return samples
    }

    @Test func theSameKeyGivesTheSameCheckAndNoSecond() throws {
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let sample = ChildProcess.sample("no-card.mp4")
        let first = try client.upload(sample, key: "dup")
        let second = try client.upload(sample, key: "dup")
        #expect(first.status == 202)
        #expect(second.status == 200)
        #expect(first.json["id"] as? String != nil)
        #expect(second.json["id"] as? String == first.json["id"] as? String)
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_checks", database: database) == "1")
        // The same key from another client is that client's own check.
        var other = client
        other.token = HubFixture.otherToken
        let third = try other.upload(sample, key: "dup")
        #expect(third.status == 202)
        #expect(third.json["id"] as? String != first.json["id"] as? String)

        // The list: a client its own checks; a token with `all` every
        // client's, or one client's with client=NAME.
        func listed(_ token: String, _ query: String = "") throws -> [String] {
            var caller = client
            caller.token = token
            let reply = try caller.request("GET", "/v1/checks\(query)")
            try #require(reply.status == 200, "\(query): \(reply.text)")
            return (reply.json["checks"] as? [[String: Any]] ?? []).map { "\($0["client"] ?? "")" }
        }
        #expect(try listed(HubFixture.token) == ["bank"])
        #expect(try listed(HubFixture.token, "?client=bank") == ["bank"])
        #expect(try listed(HubFixture.auditorToken) == ["bank", "other"])
        #expect(try listed(HubFixture.auditorToken, "?client=other") == ["other"])
        #expect(try listed(HubFixture.auditorToken, "?client=nobody&limit=5") == [])
        let forbidden = try client.request("GET", "/v1/checks?client=other")
        #expect(forbidden.status == 403)
        #expect(forbidden.json["error"] as? String == "client bank sees only its own checks; client=other needs a token with all")
        var auditor = client
        auditor.token = HubFixture.auditorToken
        #expect(try auditor.request("GET", "/v1/checks?client=").status == 400)
    }

    @Test func anUploadOverTheLimitIs413AndLeavesNothing() throws {
        let (hub, port) = try fixture.startHub(database: database, arguments: ["--max-video-mib", "1"])
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let big = fixture.directory + "/big.bin"
        var bytes = Data()
        for index in 0..<(3 << 19) { bytes.append(UInt8(truncatingIfNeeded: index &* 2654435761 >> 7)) }
        try bytes.write(to: URL(fileURLWithPath: big))
        // Refused on Content-Length before reading, and mid-stream when chunked.
        let declared = try client.upload(big, key: "big-1")
        #expect(declared.status == 413, "\(declared.text)")
        let streamed = try client.upload(big, key: "big-2", chunked: true)
        #expect(streamed.status == 413, "\(streamed.text)")
        #expect(streamed.json["error"] as? String == "the video is larger than the limit of 1048576 bytes")
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_checks", database: database) == "0")
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_video_chunks", database: database) == "0")
        // The key is free for a good upload afterwards.
        #expect(try client.upload(ChildProcess.sample("no-card.mp4"), key: "big-2").status == 202)
    }

    @Test func aNonVideoOrTruncatedUploadFailsWithItsReasonWithinTheAttempts() throws {
        let (hub, port) = try fixture.startHub(database: database, arguments: ["--max-attempts", "2"])
        defer { hub.stop() }
        let worker = try fixture.startWorker(database: database, name: "w1")
        defer { worker.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let text = fixture.directory + "/notes.txt"
        try Data(String(repeating: "not a video\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        let truncated = fixture.directory + "/truncated.mp4"
        let whole = try Data(contentsOf: URL(fileURLWithPath: ChildProcess.sample("genuine-2018.mp4")))
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: truncated))
        for (file, key) in [(text, "text"), (truncated, "truncated")] {
            let id = try #require(try client.upload(file, key: key).json["id"] as? String)
            let check = try client.waitUntilFinished(id)
            #expect(check["state"] as? String == "failed", "\(key): \(check)")
            let reason = check["reason"] as? String ?? ""
            #expect(reason.hasPrefix("the upload is not a video that can be decoded") || reason.hasPrefix("the upload could not be decoded"),
                    "\(key): \(reason)")
            #expect((check["attempts"] as? Int ?? 99) <= 2)
            #expect(try client.request("GET", "/v1/checks/\(id)/bundle").status == 409)
        }
        let metrics = try Self.metrics(client)
        #expect(metrics["hkid_hub_checks_finished_total{state=\"failed\"}"] == 2, "\(metrics)")
        #expect(metrics["hkid_hub_checks{state=\"done\"}"] == 0)
        #expect(metrics["hkid_hub_check_seconds_count"] == 0)
        #expect(metrics["hkid_hub_check_seconds_bucket{le=\"+Inf\"}"] == 0)
    }
}
