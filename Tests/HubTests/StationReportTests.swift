import Foundation
import Testing

/// A recording station pointed at a hub (the real hkid-station and hkid-hub
/// binaries over loopback, the hub on a real PostgreSQL): sessions sealed
/// while the hub is down, across a station restart, are all delivered once
/// the hub comes up, each exactly once, and never sent again.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct StationReportTests {
    static let stationToken = "counter-7-token-0123456789abcdef"
    static let operatorToken = "operator-token-0123456789abcdef"
    static let acknowledged = "the hub acknowledged the session"

    let fixture: HubFixture
    let database: String
    let hubPort: Int
    let stationData: String
    let stationTokenPath: String

    init() throws {
        fixture = try HubFixture()
        database = try PostgresServer.shared.createDatabase()
        hubPort = try FreePort.pick()
        stationData = fixture.directory + "/station"
        stationTokenPath = fixture.directory + "/station-hub-token"
        // The station is client counter-7 on the hub; the operator sees every client's checks.
        let tokens = try String(contentsOfFile: fixture.tokenPath, encoding: .utf8)
            + "counter-7 \(Self.stationToken)\noperator \(Self.operatorToken) all\n"
        try tokens.write(toFile: fixture.tokenPath, atomically: true, encoding: .utf8)
        try "\(Self.stationToken)\n".write(toFile: stationTokenPath, atomically: true, encoding: .utf8)
        chmod(stationTokenPath, 0o600)
    }

    /// The station on a free port, its camera a looping file without a card
    /// (a session runs until cancelled), reporting to the hub's port, with
    /// a random challenge (a drawn first rotation the hub must be told).
    func startStation() throws -> (ChildProcess, HubClient) {
        let station = try ChildProcess([
            ChildProcess.binary("hkid-station"), "--port", "0", "--data-directory", stationData,
            "--source", "file", "--file", ChildProcess.sample("no-card.mp4"), "--restart-file-on-session", "--challenge", "random",
            "--hub-url", "http://127.0.0.1:\(hubPort)", "--hub-token-file", stationTokenPath,
        ])
        let port = try station.waitFor(#"address=http://[0-9.]+:(\d+)"#)
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let health = try client.request("GET", "/healthz").json
            if (health["camera"] as? [String: Any])?["running"] as? Bool == true { return (station, client) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ShellError("the station's camera did not start:\n\(station.output)")
    }

    /// Records a session of a couple of seconds, cancels it, and waits for its sealed bundle.
    func recordSession(on station: HubClient) throws -> String {
        let started = try station.request("POST", "/v1/sessions")
        let id = try #require(started.json["id"] as? String, "\(started.status) \(started.text)")
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try station.request("POST", "/v1/sessions/\(id)/cancel").status == 200)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let session = try station.request("GET", "/v1/sessions/\(id)").json
            if session["bundleReady"] as? Bool == true {
                #expect((session["links"] as? [String: Any])?["video"] != nil, "\(session)")
                return id
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw ShellError("session \(id) was not sealed")
    }

    func acknowledgement(of id: String) -> [String: Any]? {
        let path = "\(stationData)/sessions/\(id)/hub-check.json"
        return FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    func occurrences(of text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }

    @Test func sessionsSealedWhileTheHubIsDownAreAllDeliveredOnceItReturns() throws {
        var (station, stationClient) = try startStation()
        var outputs: [String] = []
        let ids = [try recordSession(on: stationClient), try recordSession(on: stationClient)]
        // The hub is down: the station tried, and keeps both sessions unacknowledged.
        _ = try station.waitFor("the hub did not take the session")
        #expect(ids.allSatisfy { acknowledgement(of: $0) == nil })
        station.stop()
        outputs.append(station.output)

        // Restarted with the hub still down: it finds both again on disk.
        (station, stationClient) = try startStation()
        _ = try station.waitFor("the hub did not take the session")
        #expect(ids.allSatisfy { acknowledgement(of: $0) == nil })

        let (hub, _) = try fixture.startHub(database: database, port: hubPort)
        defer { hub.stop() }
        let hubClient = HubClient(base: "http://127.0.0.1:\(hubPort)", token: Self.operatorToken)
        // Retried with backoff (at most 30 s apart): both arrive.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !ids.allSatisfy({ acknowledgement(of: $0) != nil }) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let checks = try #require(try hubClient.request("GET", "/v1/checks?limit=50").json["checks"] as? [[String: Any]])
        #expect(checks.count == 2, "\(checks)\n\(station.output)")
        #expect(Set(checks.compactMap { $0["idempotencyKey"] as? String }) == Set(ids))
        #expect(checks.allSatisfy { $0["client"] as? String == "counter-7" })
        #expect(checks.allSatisfy { $0["cardType"] as? String == "2018" && ($0["videoBytes"] as? Int ?? 0) > 0 })
        for id in ids {
            let check = checks.first { $0["idempotencyKey"] as? String == id }
            #expect(acknowledgement(of: id)?["check"] as? String == check?["id"] as? String, "\(id)")
            // The check asks for the first rotation the station drew and signed.
            let manifest = try #require(FileManager.default.contents(atPath: "\(stationData)/sessions/\(id)/manifest.json")
                .flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] })
            let liveness = manifest["liveness"] as? [String: Any]
            let first = try #require(liveness?["firstRotation"] as? String, "\(manifest)")
            #expect(liveness?["challenge"] as? String == "random")
            #expect(check?["challenge"] as? String == "random" && check?["firstRotation"] as? String == first, "\(String(describing: check))")
        }

        // Restarted with the hub up: nothing is sent again.
        station.stop()
        outputs.append(station.output)
        (station, stationClient) = try startStation()
        defer { station.stop() }
        _ = try station.waitFor("reporting sealed sessions to the hub")
        Thread.sleep(forTimeInterval: 2)
        outputs.append(station.output)
        #expect(outputs.map { occurrences(of: Self.acknowledged, in: $0) } == [0, 2, 0], "\(outputs.joined())")
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_checks", database: database) == "2")
    }
}
