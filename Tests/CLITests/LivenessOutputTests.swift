import Foundation
import Testing

/// Issue 13 on the command line: `--liveness`, `--challenge`, the result
/// line's `liveness` object and the report's liveness section. What the
/// checks decide about a sample is the detector's business; these tests pin
/// down how a decision reaches the user.
@Suite("hkid-liveness liveness output")
struct LivenessOutputTests {
    static func finalResult(_ lines: [[String: Any]]) throws -> [String: Any] {
        try #require(lines.last { $0["type"] as? String == "result" && $0["retCode"] as? Int != 1 })
    }

    static func statuses(_ lines: [[String: Any]]) -> [String] {
        lines.compactMap { $0["type"] as? String == "operation" ? $0["status"] as? String : nil }
    }

    @Test("the final result line carries liveness; report mode never ends with 5, enforce ends with 5 exactly when the verdict is spoof")
    func resultLineCarriesLiveness() throws {
        let sample = CLI.sample("genuine-2018.mp4")
        let report = try CLI.run(["replay", sample, "--json", "--liveness", "report"])
        let enforce = try CLI.run(["replay", sample, "--json"])
        #expect(report.status == 0 && enforce.status == 0, "stderr: \(report.stderr) \(enforce.stderr)")

        let reported = try Self.finalResult(report.jsonLines)
        #expect(reported["retCode"] as? Int == 0 && reported["success"] as? Bool == true)
        #expect(Self.statuses(report.jsonLines).last == "COMPLETE")
        let liveness = try #require(reported["liveness"] as? [String: Any])
        #expect(liveness["mode"] as? String == "report")
        let verdict = try #require(liveness["verdict"] as? String)
        #expect(["genuine", "spoof"].contains(verdict), "frames were seen, so the verdict is measured: \(verdict)")
        let score = try #require(liveness["spoofScore"] as? Double)
        #expect(score >= 0 && score <= 1)
        #expect((score > 0.5) == (verdict == "spoof"))
        let checks = try #require(liveness["checks"] as? [[String: Any]])
        #expect(!checks.isEmpty)
        for check in checks {
            #expect(check["name"] is String && check["threshold"] is Double && check["frames"] is Int)
            #expect(["pass", "fail", "unmeasured"].contains(check["verdict"] as? String ?? "?"))
        }
        // Result 1 is not final: no liveness on it.
        let first = try #require(report.jsonLines.first { $0["retCode"] as? Int == 1 })
        #expect(first["liveness"] == nil)

        // Same video, same evidence: enforce judges it the same way and acts on it.
        let enforced = try Self.finalResult(enforce.jsonLines)
        let enforcedLiveness = try #require(enforced["liveness"] as? [String: Any])
        #expect(enforcedLiveness["mode"] as? String == "enforce")
        #expect(enforcedLiveness["verdict"] as? String == verdict)
        #expect(enforcedLiveness["spoofScore"] as? Double == score)
        if verdict == "spoof" {
            #expect(enforced["retCode"] as? Int == 5 && enforced["message"] as? String == "spoof")
            #expect(enforced["success"] as? Bool == false)
            #expect((enforced["images"] as? [String: Any])?.isEmpty == true)
            #expect(!Self.statuses(enforce.jsonLines).contains("COMPLETE"))
        } else {
            #expect(enforced["retCode"] as? Int == 0)
        }
    }

    @Test("run's end line carries the session's liveness, the final result's")
    func runEndLine() throws {
        let run = try CLI.run(["run", "--source", "realtime-file", "--input", CLI.sample("genuine-2018.mp4"), "--json"],
                              timeout: .seconds(60))
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let lines = run.jsonLines
        let end = try #require(lines.last)
        #expect(end["type"] as? String == "end")
        let final = try Self.finalResult(lines)
        let endLiveness = try #require(end["liveness"] as? [String: Any])
        let resultLiveness = try #require(final["liveness"] as? [String: Any])
        #expect(endLiveness["verdict"] as? String == resultLiveness["verdict"] as? String)
        #expect(endLiveness["spoofScore"] as? Double == resultLiveness["spoofScore"] as? Double)
    }

    @Test("--challenge random draws the first rotation per session: the drawn direction is announced, the other one never advances")
    func randomChallenge() throws {
        // The sample turns right, then left. Seeds are drawn until both
        // challenges have been seen (each draw is one bit).
        var outcomes: [String: [String]] = [:]
        for seed in 1...12 where outcomes.count < 2 {
            let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--json", "--lang", "en", "--liveness", "report",
                                   "--challenge", "random", "--challenge-seed", "\(seed)"])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let orth = try #require(run.jsonLines.first { $0["status"] as? String == "ORTH" })
            let hint = try #require(orth["hint"] as? String)
            let finals = run.jsonLines.filter { $0["type"] as? String == "result" }.compactMap { $0["retCode"] as? Int }
            outcomes[hint] = Self.statuses(run.jsonLines) + finals.map { "result \($0)" }
            // The same seed draws the same challenge.
            let again = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--json", "--lang", "en", "--liveness", "report",
                                     "--challenge", "random", "--challenge-seed", "\(seed)"])
            #expect(again.jsonLines.first { $0["status"] as? String == "ORTH" }?["hint"] as? String == hint)
        }
        #expect(outcomes["Slowly rotate the card to the right"]
                == ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "COMPLETE", "result 1", "result 0"])
        // Asked for left first: the right turn is the wrong sign; the left
        // turn counts as the first rotation, and the video ends before a
        // right turn comes (overtime would end the session).
        #expect(outcomes["Slowly rotate the card to the left"] == ["BEGIN", "ORTH", "RESET", "result 1"])
    }

    @Test("--first-rotation replays a random challenge with the direction it asked for, whatever the seed would draw")
    func firstRotationReplacesTheDraw() throws {
        // A seed whose draw asks for left first: the sample, which turns
        // right first, does not complete under it.
        func replay(_ extra: [String]) throws -> CLI.Run {
            let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), "--json", "--lang", "en", "--challenge", "random"] + extra)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            return run
        }
        func orth(_ run: CLI.Run) -> String? {
            run.jsonLines.first { $0["status"] as? String == "ORTH" }?["hint"] as? String
        }
        var drawingLeft: Int?
        for seed in 1...12 where drawingLeft == nil {
            if orth(try replay(["--challenge-seed", "\(seed)"])) == "Slowly rotate the card to the left" { drawingLeft = seed }
        }
        let seed = try #require(drawingLeft)
        let given = try replay(["--challenge-seed", "\(seed)", "--first-rotation", "right"])
        #expect(orth(given) == "Slowly rotate the card to the right")
        let finals = given.jsonLines.filter { $0["type"] as? String == "result" }.compactMap { $0["retCode"] as? Int }
        #expect(Self.statuses(given.jsonLines) + finals.map { "result \($0)" }
                == ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "COMPLETE", "result 1", "result 0"])
    }

    @Test("bad --liveness and --challenge values are refused with exit 64", arguments: [
        (["--liveness", "maybe"],
         "hkid-liveness: The value 'maybe' is invalid for '--liveness <liveness>'. Please provide one of 'enforce' and 'report'."),
        (["--challenge", "sometimes"],
         "hkid-liveness: The value 'sometimes' is invalid for '--challenge <challenge>'. Please provide one of 'fixed' and 'random'."),
        (["--challenge-seed", "abc"],
         "hkid-liveness: The value 'abc' is invalid for '--challenge-seed <challenge-seed>'"),
        (["--challenge", "random", "--first-rotation", "sideways"],
         "hkid-liveness: The value 'sideways' is invalid for '--first-rotation <first-rotation>'. Please provide one of 'right', 'left', 'up' or 'down'."),
        (["--challenge", "random", "--first-rotation", "up"],
         "hkid-liveness: --first-rotation must be right or left for --card 2018, not up"),
        (["--card", "2003", "--challenge", "random", "--first-rotation", "left"],
         "hkid-liveness: --first-rotation must be up or down for --card 2003, not left"),
        (["--first-rotation", "left"],
         "hkid-liveness: --first-rotation needs --challenge random: the fixed challenge always asks for right first"),
    ])
    func badValues(arguments: [String], message: String) throws {
        for command in ["replay", "run"] {
            let input = command == "replay" ? [CLI.sample("genuine-2018.mp4")] : ["--input", CLI.sample("genuine-2018.mp4")]
            let run = try CLI.run([command] + input + arguments, timeout: .seconds(60))
            #expect(run.status == 64, "\(command): \(run.stderr)")
            #expect(run.stderrLine == message, "\(command)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test("the HTML report shows each session's liveness verdict and scores")
    func reportShowsLiveness() throws {
        let folder = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "/report.html"
        let run = try CLI.run(["replay", CLI.sample("genuine-2018.mp4"), CLI.sample("lost-after-first-2003.mp4"),
                               "--liveness", "report", "--report", report])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("<th>Liveness</th>"))
        let sections = html.components(separatedBy: "<section").dropFirst()
        try #require(sections.count == 2)
        for section in sections {
            #expect(section.contains("<h3>Liveness</h3>"), "a section without its liveness verdict")
            #expect(section.contains("verdict (report)"))
            #expect(section.contains("opticallyVariable"))
            #expect(section.range(of: #"class="kind (ok|bad|info)">(genuine|spoof|pending)<"#, options: .regularExpression) != nil)
        }
        // The event timeline says it on the final result too.
        #expect(html.contains(" · liveness "))
    }
}
