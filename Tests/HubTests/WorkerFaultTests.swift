import Foundation
import HKIDSignature
import Testing

/// Workers against faults: two at once, one killed mid-check, started
/// before the database, the database restarted under a run of 100 checks.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct WorkerFaultTests {
    let fixture: HubFixture

    init() throws {
        fixture = try HubFixture()
    }

    @Test func twoWorkersNeverRunTheSameCheck() throws {
        let database = try PostgresServer.shared.createDatabase()
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let video = try fixture.tinyVideo()
        var ids: [String] = []
        for index in 0..<16 { ids.append(try #require(try client.upload(video, key: "k\(index)").json["id"] as? String)) }
        let workers = try ["a", "b"].map { try fixture.startWorker(database: database, name: $0) }
        defer { workers.forEach { $0.stop() } }
        for id in ids { #expect(try client.waitUntilFinished(id)["state"] as? String == "done") }
        let sql = { try PostgresServer.shared.sql($0, database: database) }
        // Every check started exactly once, and both workers took some.
        #expect(try sql("SELECT count(*) FROM hub_runs") == "16")
        #expect(try sql("SELECT count(*) FROM (SELECT check_id FROM hub_runs GROUP BY check_id HAVING count(*) > 1) AS twice") == "0")
        let perWorker = try sql("SELECT worker, count(*) FROM hub_runs GROUP BY worker")
        #expect(try sql("SELECT count(DISTINCT worker) FROM hub_runs") == "2", "\(perWorker)")
        #expect(try sql("SELECT count(*) FROM hub_checks WHERE state = 'done' AND attempts = 1") == "16")
    }

    @Test func aWorkerKilledMidCheckIsReplacedWithinTheLease() throws {
        let database = try PostgresServer.shared.createDatabase()
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let sql = { try PostgresServer.shared.sql($0, database: database) }
        let lease = 3.0
        // The first worker holds its claim long enough to be killed in the middle.
        let doomed = try fixture.startWorker(database: database, name: "doomed", lease: lease,
                                             environment: ["HKID_WORKER_HOLD_AFTER_CLAIM": "60"])
        let id = try #require(try client.upload(ChildProcess.sample("genuine-2018.mp4"), key: "kill").json["id"] as? String)
        _ = try doomed.waitFor("claimed")
        doomed.signal(SIGKILL)
        doomed.process.waitUntilExit()
        let killed = ContinuousClock.now
        let rescuer = try fixture.startWorker(database: database, name: "rescuer", lease: lease)
        defer { rescuer.stop() }
        let check = try client.waitUntilFinished(id, timeout: .seconds(60))
        let took = ContinuousClock.now - killed
        #expect(check["state"] as? String == "done", "\(check)\n\(rescuer.output)")
        #expect(took < .seconds(lease + 5), "finished \(took) after the kill")
        #expect(check["attempts"] as? Int == 2)
        #expect(try sql("SELECT attempt, worker, coalesce(outcome, 'none') FROM hub_runs ORDER BY attempt")
                == "1|doomed|none\n2|rescuer|done")
        #expect(try sql("SELECT count(*) FROM hub_check_files WHERE name = 'events.jsonl'") == "1")
        let bundle = try client.request("GET", "/v1/checks/\(id)/bundle")
        let path = fixture.directory + "/bundle.zip"
        try bundle.body.write(to: URL(fileURLWithPath: path))
        #expect(BundleVerifier(publicKey: fixture.publicKey).verify(bundleAt: URL(fileURLWithPath: path)).problems == [])
    }

    @Test func aWorkerTerminatedMidCheckFinishesItBeforeExiting() throws {
        let database = try PostgresServer.shared.createDatabase()
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let worker = try fixture.startWorker(database: database, name: "draining",
                                             environment: ["HKID_WORKER_HOLD_AFTER_CLAIM": "1.5"])
        let first = try #require(try client.upload(ChildProcess.sample("no-card.mp4"), key: "drain-1").json["id"] as? String)
        _ = try worker.waitFor("claimed")
        let second = try #require(try client.upload(ChildProcess.sample("no-card.mp4"), key: "drain-2").json["id"] as? String)
        worker.signal(SIGTERM)
        worker.process.waitUntilExit()
        #expect(worker.process.terminationStatus == 0, "\(worker.output)")
        // The check in hand was finished and written; the next was left queued.
        #expect(try client.request("GET", "/v1/checks/\(first)").json["state"] as? String == "done", "\(worker.output)")
        #expect(try client.request("GET", "/v1/checks/\(second)").json["state"] as? String == "queued")
    }

    @Test func aCheckWhoseWorkerDiesOnEveryAttemptFailsAfterTheLastOne() throws {
        let database = try PostgresServer.shared.createDatabase()
        let (hub, port) = try fixture.startHub(database: database, arguments: ["--max-attempts", "2"])
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let id = try #require(try client.upload(ChildProcess.sample("no-card.mp4"), key: "poison").json["id"] as? String)
        for attempt in 1...2 {
            let worker = try fixture.startWorker(database: database, name: "crash\(attempt)", lease: 1,
                                                 environment: ["HKID_WORKER_HOLD_AFTER_CLAIM": "60"])
            _ = try worker.waitFor("claimed", timeout: .seconds(30))
            worker.signal(SIGKILL)
            worker.process.waitUntilExit()
        }
        // A third worker never runs it: the lease ran out on the last attempt.
        let last = try fixture.startWorker(database: database, name: "last", lease: 1)
        defer { last.stop() }
        let check = try client.waitUntilFinished(id, timeout: .seconds(30))
        #expect(check["state"] as? String == "failed")
        #expect(check["reason"] as? String == "the worker stopped answering on each of 2 attempts (lease expired)")
        #expect(try PostgresServer.shared.sql("SELECT count(*) FROM hub_runs", database: database) == "2")
    }

    /// A hub started before its database (a host booting, a container
    /// scheduled first) retries the schema's migration and serves once the
    /// database comes; a worker started with it runs the check.
    @Test func aHubAndWorkerStartedBeforeTheirDatabaseServeOnceItComes() throws {
        let server = try PostgresServer()
        defer { server.stopQuietly() }
        let database = try server.createDatabase()
        try server.stop(mode: "fast")
        let hub = try ChildProcess([ChildProcess.binary("hkid-hub"), "--database", database, "--tokens", fixture.tokenPath,
                                    "--port", "0"])
        defer { hub.stop() }
        let worker = try fixture.startWorker(database: database, name: "early")
        defer { worker.stop() }
        _ = try worker.waitFor("worker started")
        Thread.sleep(forTimeInterval: 1)  // both are asking for a connection
        #expect(!hub.output.contains("address="), "the hub listened before its schema existed:\n\(hub.output)")
        try server.start()
        let port = Int(try hub.waitFor(#"address=http://[0-9.]+:(\d+)"#))!
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let id = try #require(try client.upload(ChildProcess.sample("no-card.mp4"), key: "early").json["id"] as? String)
        let check = try client.waitUntilFinished(id, timeout: .seconds(60))
        #expect(check["state"] as? String == "done", "\(check)\n\(worker.output)")
    }

    @Test func aDatabaseRestartDuringAHundredChecksLosesAndRepeatsNone() throws {
        let server = try PostgresServer()
        defer { server.stopQuietly() }
        let database = try server.createDatabase()
        let (hub, port) = try fixture.startHub(database: database)
        defer { hub.stop() }
        let client = HubClient(base: "http://127.0.0.1:\(port)")
        let video = try fixture.tinyVideo()
        var ids: [String] = []
        for index in 0..<100 { ids.append(try #require(try client.upload(video, key: "r\(index)").json["id"] as? String)) }
        let workers = try ["a", "b"].map { try fixture.startWorker(database: database, name: $0, lease: 15) }
        defer { workers.forEach { $0.stop() } }
        // Some done, then the database goes away for a while.
        let sql = { try server.sql($0, database: database) }
        let deadline = ContinuousClock.now + .seconds(60)
        while try Int(sql("SELECT count(*) FROM hub_checks WHERE state = 'done'"))! < 10 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
        try server.stop(mode: "fast")
        let down = try client.request("GET", "/v1/checks/\(ids[0])")
        #expect(down.status == 503, "\(down.text)")
        #expect(down.headers["retry-after"] == "5")
        let upload = try client.upload(video, key: "while-down")
        #expect(upload.status == 503)
        Thread.sleep(forTimeInterval: 3)
        try server.start()
        for id in ids {
            let check = try client.waitUntilFinished(id, timeout: .seconds(120))
            #expect(check["state"] as? String == "done", "\(check)")
        }
        #expect(try sql("SELECT count(*) FROM hub_checks WHERE state = 'done'") == "100")
        // None done twice: one finished run per check.
        #expect(try sql("SELECT count(*) FROM hub_runs WHERE outcome = 'done'") == "100")
        #expect(try sql("SELECT count(*) FROM hub_check_files WHERE name = 'events.jsonl'") == "100")
        // Each worker lost its LISTEN connection and made it again.
        for worker in workers { #expect(worker.output.contains("listen: connection lost, reconnecting")) }
        // Neither is left waiting on a query the restart cut off: each stops when asked.
        for worker in workers {
            worker.stop(grace: .seconds(10))
            #expect(worker.process.terminationReason == .exit && worker.process.terminationStatus == 0,
                    "a worker did not stop on SIGTERM:\n\(worker.output.suffix(3000))")
        }
    }
}
