import Foundation
import HKIDSignature
import Testing

/// `hkid-hub --embedded`: SQLite and in-process workers, no PostgreSQL, the
/// same API and the same bundle.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct EmbeddedHubTests {
    @Test func anEmbeddedHubChecksAnUploadAndSignsItsBundle() throws {
        let fixture = try HubFixture()
        let folder = fixture.directory + "/embedded"
        let hub = try ChildProcess([ChildProcess.binary("hkid-hub"), "--embedded", folder, "--signing-key", fixture.privateKeyPath,
                                    "--tokens", fixture.tokenPath, "--port", "0"])
        defer { hub.stop() }
        let port = try hub.waitFor(#"address=http://[0-9.]+:(\d+)"#)
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        // A random challenge recorded asking up first, as the sample turns.
        let created = try client.request("POST", "/v1/checks?card=2003&challenge=random&firstRotation=up",
                                         headers: ["Idempotency-Key": "e1"], uploadFile: ChildProcess.sample("genuine-2003.mp4"))
        #expect(created.status == 202)
        let id = try #require(created.json["id"] as? String)
        #expect(try client.upload(ChildProcess.sample("genuine-2003.mp4"), key: "e1", card: "2003").json["id"] as? String == id)
        let check = try client.waitUntilFinished(id)
        #expect(check["state"] as? String == "done", "\(check)\n\(hub.output)")
        #expect(check["resultCode"] as? Int == 0)
        #expect(check["challenge"] as? String == "random" && check["firstRotation"] as? String == "up")
        let bundle = try client.request("GET", "/v1/checks/\(id)/bundle")
        let path = fixture.directory + "/bundle.zip"
        try bundle.body.write(to: URL(fileURLWithPath: path))
        let report = BundleVerifier(publicKey: fixture.publicKey).verify(bundleAt: URL(fileURLWithPath: path))
        #expect(report.problems == [])
        #expect(report.manifest?.cardType == "2003")
        #expect(report.manifest?.liveness?.challenge == "random" && report.manifest?.liveness?.firstRotation == "up")
        #expect(FileManager.default.fileExists(atPath: folder + "/hub.sqlite"))
        let list = try client.request("GET", "/v1/checks")
        #expect((list.json["checks"] as? [[String: Any]])?.count == 1)
        let metrics = try CheckFlowTests.metrics(client)
        #expect(metrics["hkid_hub_checks{state=\"done\"}"] == 1, "\(metrics)")
        #expect(metrics["hkid_hub_check_seconds_count"] == 1)
        #expect(metrics["hkid_hub_check_seconds_bucket{le=\"+Inf\"}"] == 1)
        #expect((metrics["hkid_hub_check_seconds_sum"] ?? 0) > 0)
    }
}
