import Foundation
import HKIDLiveness
import HKIDSignature
import Testing

/// A session recorded with a random challenge is re-checked asking for the
/// first rotation it was recorded for (`firstRotation`), not a fresh draw a
/// recording cannot follow: the hub's check is the CLI's
/// `replay --challenge random --first-rotation DIR`, event for event.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct RandomChallengeTests {
    let fixture: HubFixture
    let database: String

    init() throws {
        fixture = try HubFixture()
        database = try PostgresServer.shared.createDatabase()
    }

    /// The first seed whose fresh draw for a 2018 card asks for `first`.
    static func seed(drawing first: RotationDirection) throws -> UInt64 {
        let seed = (UInt64(1)..<64).first { seed in
            var generator = SeededGenerator(seed: seed)
            return RotationChallenge.draw(.random, cardType: .hkid2018, using: &generator).first == first
        }
        return try #require(seed)
    }

    static func statuses(_ events: String) -> [String] {
        events.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if let status = object?["status"] as? String { return status }
            return (object?["retCode"] as? Int).map { "result \($0)" }
        }
    }

    static func withoutTimes(_ text: String) -> [String] {
        text.split(separator: "\n").map { String($0).replacing(/"seconds":[0-9.e-]+/, with: "\"seconds\":_") }
    }

    @Test func aRecordedRandomChallengeIsReplayedWithItsFirstRotation() throws {
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let worker = try fixture.startWorker(database: database, name: "w1")
        defer { worker.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let sample = ChildProcess.sample("genuine-2018.mp4")

        // The sample turns right first. Asked for right, it completes; asked
        // for left, its right turn is the wrong way (5 under enforce).
        var ids: [String: String] = [:]
        for first in ["right", "left"] {
            let created = try client.request("POST", "/v1/checks?card=2018&challenge=random&firstRotation=\(first)",
                                             headers: ["Idempotency-Key": "random-\(first)"], uploadFile: sample)
            #expect(created.status == 202, "\(created.text)")
            #expect(created.json["challenge"] as? String == "random" && created.json["firstRotation"] as? String == first)
            ids[first] = try #require(created.json["id"] as? String)
        }
        // A fresh seeded draw asking for left: the same replay, given right, completes.
        let leftSeed = try Self.seed(drawing: .left)
        let drawn = Shell.run([ChildProcess.cli, "replay", sample, "--json", "--challenge", "random", "--challenge-seed", "\(leftSeed)"])
        #expect(!Self.statuses(drawn.output).contains("COMPLETE"), "\(drawn.output)")

        for (first, expected) in [("right", ["BEGIN", "result 1", "ORTH", "RESET", "LEFTDOWN", "COMPLETE", "result 0"]),
                                  ("left", ["BEGIN", "result 1", "ORTH", "result 5"])] {
            let id = try #require(ids[first])
            let check = try client.waitUntilFinished(id)
            #expect(check["state"] as? String == "done", "\(check)\n\(worker.output)")
            #expect(check["firstRotation"] as? String == first)
            let events = try client.request("GET", "/v1/checks/\(id)/events").text
            #expect(Self.statuses(events) == expected, "\(first): \(events)")
            let cli = Shell.run([ChildProcess.cli, "replay", sample, "--json", "--challenge", "random",
                                 "--challenge-seed", "\(leftSeed)", "--first-rotation", first])
            try #require(cli.code == 0, "\(cli.output)")
            #expect(Self.withoutTimes(events) == Self.withoutTimes(cli.output), "\(first)")

            // The signed manifest records the challenge the replay asked.
            let bundle = try client.request("GET", "/v1/checks/\(id)/bundle")
            let path = fixture.directory + "/\(first).zip"
            try bundle.body.write(to: URL(fileURLWithPath: path))
            let report = BundleVerifier(publicKey: fixture.publicKey).verify(bundleAt: URL(fileURLWithPath: path))
            #expect(report.problems == [])
            #expect(report.manifest?.liveness?.challenge == "random" && report.manifest?.liveness?.firstRotation == first)
        }
    }

    @Test(arguments: [
        ("card=2018&challenge=random",
         "challenge=random needs firstRotation, the direction the holder was asked to turn first (right or left for card 2018)"),
        ("card=2018&challenge=random&firstRotation=up", "firstRotation must be right or left for card 2018, not up"),
        ("card=2003&challenge=random&firstRotation=sideways", "firstRotation must be up or down for card 2003, not sideways"),
        ("card=2018&firstRotation=left", "firstRotation left is only for challenge=random: the fixed challenge asks for right first"),
    ])
    func aMissingOrWrongFirstRotationIs400(query: String, message: String) throws {
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let reply = try client.request("POST", "/v1/checks?\(query)", headers: ["Idempotency-Key": "bad"],
                                       uploadFile: ChildProcess.sample("no-card.mp4"))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.json["error"] as? String == message)
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_checks", database: database) == "0")
    }
}
