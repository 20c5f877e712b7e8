import Foundation
import HKIDSignature
import Testing

/// How sessions end when operators are quick or many: a cancel in the first
/// moments, twenty cancels at once.
@Suite(.serialized) struct SessionEndingTests {
    /// Cancelled right after its 201: before, the bundle signed a 336-byte
    /// Matroska header no tool could open. Now whatever video is signed
    /// plays, and a session without a playable frame names no video.
    @Test func aSessionCancelledAtOnceSignsOnlyAVideoThatPlays() async throws {
        let station = StationProcess(arguments: ["--source", "test-pattern"])
        try station.start()
        defer { station.stop() }
        let keyPath = station.dataDirectory + "/station.pub"
        try await station.get("/v1/public-key").body.write(to: URL(fileURLWithPath: keyPath))
        let verifier = BundleVerifier(publicKey: try KeyFile.readPublicKey(at: keyPath))
        for round in 0..<3 {
            let id = try #require(try await station.post("/v1/sessions", json: "{}").json["id"] as? String)
            #expect(try await station.post("/v1/sessions/\(id)/cancel").status == 200)
            let session = try await station.waitUntilEnded(id)
            let bundlePath = station.dataDirectory + "/bundle-\(round).zip"
            try await station.get("/v1/sessions/\(id)/bundle").body.write(to: URL(fileURLWithPath: bundlePath))
            let report = verifier.verify(bundleAt: URL(fileURLWithPath: bundlePath))
            #expect(report.isValid, "\(report.problems)")
            let signsVideo = report.manifest?.files[BundleLayout.video] != nil
            let links = session["links"] as? [String: Any] ?? [:]
            #expect(signsVideo == (links["video"] != nil), "the API and the manifest disagree about the video")
            #expect(report.manifest?.videoSha256 == report.manifest?.files[BundleLayout.video])
            if signsVideo {
                let path = station.dataDirectory + "/video-\(round).mkv"
                try await station.get("/v1/sessions/\(id)/video").body.write(to: URL(fileURLWithPath: path))
                let flags = try GenuineSessionTests.firstFrameFlags(of: path)
                #expect(!flags.isEmpty && !flags.contains("delta-unit"), "round \(round): signed video's first frame: '\(flags)'")
            }
        }
    }

    /// Twenty cancels of one session at once: exactly one is 200, the rest
    /// 409 (before, two could both get 200).
    @Test func onlyOneOfManyConcurrentCancelsWins() async throws {
        let station = StationProcess(arguments: ["--source", "test-pattern"])
        try station.start()
        defer { station.stop() }
        let id = try #require(try await station.post("/v1/sessions", json: "{}").json["id"] as? String)
        try await Task.sleep(for: .seconds(1))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await station.post("/v1/sessions/\(id)/cancel").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses.sorted())")
        #expect(statuses.filter { $0 == 409 }.count == 19, "\(statuses.sorted())")
        let ended = try await station.waitUntilEnded(id)
        #expect(ended["status"] as? String == "cancelled")
    }
}
