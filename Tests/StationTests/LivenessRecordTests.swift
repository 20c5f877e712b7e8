import Foundation
import HKIDSignature
@testable import HKIDStation
import Testing

/// Issue 13 at the station: the liveness mode and challenge are recorded when
/// a session starts, its verdict and spoof score when it ends, in the session
/// row (the API), the signed manifest and the operator page.
///
/// What the checks decide about the sample is the detector's business; these
/// tests hold the station to recording whatever was decided, consistently.
@Suite(.serialized) struct LivenessRecordTests {
    /// The final result line of a session's event stream (Server-Sent
    /// Events: each line after `data: `).
    static func finalResultLine(_ events: String) throws -> [String: Any] {
        let lines = events.split(separator: "\n").compactMap { line -> [String: Any]? in
            let json = line.hasPrefix("data: ") ? line.dropFirst(6) : line[...]
            return try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        }
        return try #require(lines.last { $0["type"] as? String == "result" && $0["retCode"] as? Int != 1 })
    }

    static func manifest(of id: String, from station: StationProcess) async throws -> SessionManifest {
        let directory = StationProcess.temporaryDirectory()
        let bundlePath = directory + "/bundle.zip", keyPath = directory + "/station.pub"
        try await station.get("/v1/sessions/\(id)/bundle").body.write(to: URL(fileURLWithPath: bundlePath))
        try await station.get("/v1/public-key").body.write(to: URL(fileURLWithPath: keyPath))
        let report = BundleVerifier(publicKey: try KeyFile.readPublicKey(at: keyPath)).verify(bundleAt: URL(fileURLWithPath: bundlePath))
        #expect(report.isValid, "\(report.problems)")
        return try #require(report.manifest)
    }

    /// Report mode: the genuine sample completes whatever the verdict, and
    /// the verdict is in the row, the log, the manifest and on the page.
    @Test func reportModeRecordsTheVerdictEverywhere() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("genuine-2018.mp4"),
                                                 "--restart-file-on-session", "--liveness", "report", "--challenge", "fixed"])
        try station.start()
        defer { station.stop() }

        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"en"}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        let atStart = try #require(started.json["liveness"] as? [String: Any])
        #expect(atStart["mode"] as? String == "report" && atStart["challenge"] as? String == "fixed")
        #expect(atStart["firstRotation"] as? String == "right")
        #expect(atStart["verdict"] == nil, "no verdict before a result: \(atStart)")

        let session = try await station.waitUntilEnded(id, timeout: .seconds(60))
        #expect(session["status"] as? String == "completed", "\(session)")
        #expect((session["result"] as? [String: Any])?["retCode"] as? Int == 0)
        let liveness = try #require(session["liveness"] as? [String: Any])
        let verdict = try #require(liveness["verdict"] as? String)
        let score = try #require(liveness["spoofScore"] as? Double)
        #expect(["genuine", "spoof"].contains(verdict), "pixels were seen: \(verdict)")
        #expect(liveness["mode"] as? String == "report")

        // The same decision in the event log's result line...
        let line = try Self.finalResultLine(try await station.get("/v1/sessions/\(id)/events").text)
        let logged = try #require(line["liveness"] as? [String: Any])
        #expect(logged["verdict"] as? String == verdict && logged["spoofScore"] as? Double == score)

        // ...in the signed manifest...
        let manifest = try await Self.manifest(of: id, from: station)
        #expect(manifest.resultCode == 0)
        #expect(manifest.liveness == SessionManifest.Liveness(mode: "report", challenge: "fixed", firstRotation: "right",
                                                              verdict: verdict, spoofScore: score))

        // ...and on the operator page.
        guard let _ = OperatorPageTests.chromium else {
            Issue.record("chromium is not installed: `scripts/install-deps.sh browser` (make test does it)")
            return
        }
        let folder = StationProcess.temporaryDirectory()
        let expected = "Liveness · \(verdict) · \(String(format: "%.3f", score)) · report only · fixed challenge"
        let dom = try OperatorPageTests.render("http://127.0.0.1:\(station.port)/", screenshot: folder + "/liveness.png") {
            OperatorPageTests.element("resultLiveness", in: $0) == expected
        }
        #expect(OperatorPageTests.element("resultLiveness", in: dom) == expected)
    }

    /// Enforce mode (the default): the session ends with 5 exactly when the
    /// verdict is spoof, and the row and manifest say so.
    @Test func enforceModeEndsWithTheVerdict() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("genuine-2018.mp4"),
                                                 "--restart-file-on-session"])
        try station.start()
        defer { station.stop() }
        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"en"}"#)
        let id = try #require(started.json["id"] as? String)
        #expect((started.json["liveness"] as? [String: Any])?["mode"] as? String == "enforce")

        let session = try await station.waitUntilEnded(id, timeout: .seconds(60))
        let liveness = try #require(session["liveness"] as? [String: Any])
        let verdict = try #require(liveness["verdict"] as? String)
        let result = try #require(session["result"] as? [String: Any])
        if verdict == "spoof" {
            #expect(session["status"] as? String == "failed")
            #expect(result["retCode"] as? Int == 5 && result["message"] as? String == "spoof" && result["success"] as? Bool == false)
        } else {
            #expect(session["status"] as? String == "completed" && result["retCode"] as? Int == 0)
        }
        let manifest = try await Self.manifest(of: id, from: station)
        #expect(manifest.resultCode == result["retCode"] as? Int)
        #expect(manifest.liveness?.verdict == verdict && manifest.liveness?.mode == "enforce")
        #expect(manifest.liveness?.spoofScore == liveness["spoofScore"] as? Double)
    }

    /// `--challenge random`: the draw is recorded at the start, ORTH asks
    /// for it, and the operator page labels the steps with it.
    @Test func randomChallengeIsRecordedAndAnnounced() async throws {
        let station = StationProcess(arguments: ["--source", "file", "--file", StationProcess.sample("genuine-2018.mp4"),
                                                 "--restart-file-on-session", "--challenge", "random"])
        try station.start()
        defer { station.stop() }
        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"en"}"#)
        let id = try #require(started.json["id"] as? String)
        let atStart = try #require(started.json["liveness"] as? [String: Any])
        #expect(atStart["challenge"] as? String == "random")
        let first = try #require(atStart["firstRotation"] as? String)
        #expect(first == "right" || first == "left")

        // Until ORTH (its moment is the timestamp's second field), then cancel.
        try await station.waitUntilORTH(id)
        #expect(try await station.post("/v1/sessions/\(id)/cancel").status == 200)
        let ended = try await station.waitUntilEnded(id)
        #expect((ended["liveness"] as? [String: Any])?["firstRotation"] as? String == first)
        let events = try await station.get("/v1/sessions/\(id)/events").text
        #expect(events.contains(#""status":"ORTH","value":1,"hint":"Slowly rotate the card to the \#(first)""#), "\(events.prefix(600))")
        // No result ended it: the end line says what was measured until the cancel.
        let endLine = try #require(events.split(separator: "\n").last { $0.contains(#""type":"end""#) })
        let end = try #require(try JSONSerialization.jsonObject(with: Data(endLine.dropFirst(6).utf8)) as? [String: Any])
        let interim = try #require(end["liveness"] as? [String: Any], "\(endLine)")
        #expect(["pending", "genuine"].contains(interim["verdict"] as? String ?? "?"), "\(endLine)")
        let manifest = try await Self.manifest(of: id, from: station)
        #expect(manifest.liveness?.challenge == "random" && manifest.liveness?.firstRotation == first)
        #expect(manifest.liveness?.verdict == nil, "cancelled: no result, no verdict")

        guard OperatorPageTests.chromium != nil else {
            Issue.record("chromium is not installed: `scripts/install-deps.sh browser` (make test does it)")
            return
        }
        let expected = #"<span>First rotation</span><span>\#(first)</span>"#
        let dom = try OperatorPageTests.render("http://127.0.0.1:\(station.port)/",
                                               screenshot: StationProcess.temporaryDirectory() + "/random.png") {
            $0.contains(expected)
        }
        #expect(dom.contains(expected), "the first step is not labelled with the drawn direction")
        let second = first == "right" ? "left" : "right"
        #expect(dom.contains(#"<span>Second rotation</span><span>\#(second)</span>"#))
    }

    @Test func configurationFileTakesLivenessAndChallenge() throws {
        let folder = StationProcess.temporaryDirectory()
        let path = folder + "/station.yaml"
        try "liveness: report\nchallenge: random\n".write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try StationConfiguration(yamlFile: path)
        #expect(configuration.liveness == .report && configuration.challenge == .random)
        #expect(StationConfiguration().liveness == .enforce && StationConfiguration().challenge == .fixed)

        for (text, message) in [("liveness: strict\n", "liveness must be enforce or report, not 'strict'"),
                                ("challenge: sometimes\n", "challenge must be fixed or random, not 'sometimes'")] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: StationError.self) { try StationConfiguration(yamlFile: path) }
            do { _ = try StationConfiguration(yamlFile: path) } catch {
                #expect(error.message == "\(path): \(message)")
            }
        }
    }
}

/// Crash recovery reads the verdict back from the event log, as the index
/// would have had it: a result 5 is a final result, with its liveness.
@Suite struct LivenessRecoveryTests {
    @Test func eventLogSummaryReadsTheVerdict() throws {
        let path = StationProcess.temporaryDirectory() + "/events.jsonl"
        let lines = [
            #"{"type":"operation","status":"BEGIN","value":0,"hint":"x","t":0.0}"#,
            #"{"type":"result","success":false,"retCode":1,"message":"first","t":0.3,"images":{}}"#,
            #"{"type":"operation","status":"ORTH","value":1,"hint":"x","t":0.3}"#,
            #"{"type":"result","success":false,"retCode":5,"message":"spoof","t":5.333,"images":{},"liveness":{"mode":"enforce","verdict":"spoof","spoofScore":0.785,"checks":[]}}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let summary = EventLogSummary(contentsOf: path)
        #expect(summary.finalResult?.retCode == 5 && summary.finalResult?.message == "spoof")
        #expect(summary.liveness?.verdict == "spoof" && summary.liveness?.spoofScore == 0.785)
    }
}

/// An index written before issue 13 (migration v1 only) opens, gains the
/// liveness columns, and its rows read back without a verdict.
@Suite struct LivenessMigrationTests {
    @Test func aVersion1IndexIsMigrated() throws {
        let path = StationProcess.temporaryDirectory() + "/station.sqlite"
        let id = "0123456789abcdef0123456789abcdef"
        try StationRobustnessTests.sqlite(path, """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1');
            CREATE TABLE session (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
              cardType TEXT NOT NULL, language TEXT NOT NULL, overtimeSeconds DOUBLE NOT NULL, recordMode TEXT NOT NULL,
              createdAt INTEGER NOT NULL, endedAt INTEGER, resultCode INTEGER, resultMessage TEXT, reason TEXT,
              timestamps TEXT NOT NULL, framesReceived INTEGER NOT NULL, framesAnalysed INTEGER NOT NULL,
              framesDropped INTEGER NOT NULL, wallSeconds DOUBLE, hasVideo BOOLEAN NOT NULL, bundleReady BOOLEAN NOT NULL);
            INSERT INTO session (id, status, cardType, language, overtimeSeconds, recordMode, createdAt, endedAt, resultCode,
              resultMessage, timestamps, framesReceived, framesAnalysed, framesDropped, wallSeconds, hasVideo, bundleReady)
            VALUES ('\(id)', 'completed', '2018', 'en', 30, 'whole-session', 1000, 2000, 0, '',
              '{"start":1000,"firstMotion":1200,"secondMotion":1500,"stop":2000}', 160, 160, 0, 1.0, 1, 1);
            """)
        let store = try SessionStore(path: path)
        let sessionID = try #require(SessionID(id))
        var record = try #require(try store.find(sessionID))
        #expect(record.resultCode == 0 && record.framesAnalysed == 160 && record.timestamps.secondMotion == 1500)
        #expect(record.livenessMode == nil && record.livenessVerdict == nil && record.spoofScore == nil)
        #expect(record.challenge == nil && record.firstRotation == nil)

        record.livenessMode = "enforce"
        record.livenessVerdict = "spoof"
        record.spoofScore = 0.785
        try store.update(record)
        let again = try #require(try store.find(sessionID))
        #expect(again.livenessVerdict == "spoof" && again.spoofScore == 0.785 && again.livenessMode == "enforce")
    }
}
