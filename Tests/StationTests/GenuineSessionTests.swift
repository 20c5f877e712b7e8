import Foundation
import HKIDSignature
import Testing

/// The whole station on the genuine 2018 sample played at real-time speed:
/// the session completes with result 0, and its bundle verifies offline;
/// a tampered bundle does not.
@Suite(.serialized) struct GenuineSessionTests {
    @Test func genuineSessionCompletesAndItsBundleVerifies() async throws {
        let sample = StationProcess.sample("genuine-2018.mp4")
        // Fails rather than skips: the sample library is part of the repository.
        try #require(FileManager.default.fileExists(atPath: sample), "samples/genuine-2018.mp4 is missing")
        let station = StationProcess(arguments: ["--source", "file", "--file", sample, "--restart-file-on-session"])
        try station.start()
        defer { station.stop() }

        let wallStart = ContinuousClock.now
        let started = try await station.post("/v1/sessions", json: #"{"cardType":"2018","language":"en"}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        let session = try await station.waitUntilEnded(id, timeout: .seconds(60))
        let wall = ContinuousClock.now - wallStart
        #expect(session["status"] as? String == "completed", "\(session)")
        let result = try #require(session["result"] as? [String: Any])
        #expect(result["retCode"] as? Int == 0)
        let timestamps = try #require(session["videoTimestamp"] as? String).split(separator: "|").compactMap { Int64($0) }
        #expect(timestamps.count == 4 && timestamps.allSatisfy { $0 > 0 } && timestamps == timestamps.sorted(),
                "start|first|second|stop must all be set and in order: \(timestamps)")
        let frames = try #require(session["frames"] as? [String: Any])
        let analysed = frames["analysed"] as? Int ?? 0, dropped = frames["dropped"] as? Int ?? -1
        // (Frames that arrive after the result are received, neither analysed nor dropped.)
        #expect(analysed > 0 && dropped >= 0 && analysed + dropped <= frames["received"] as? Int ?? 0, "frames: \(frames)")
        #expect(wall < .seconds(30), "the session took \(wall) from the POST to the sealed bundle")

        let events = try await station.get("/v1/sessions/\(id)/events").text
        for status in ["BEGIN", "ORTH", "RESET", "LEFTDOWN", "COMPLETE"] {
            #expect(events.contains("\"status\":\"\(status)\""), "no \(status) in the event stream")
        }

        let directory = StationProcess.temporaryDirectory()
        let bundlePath = directory + "/bundle.zip", keyPath = directory + "/station.pub"
        try await station.get("/v1/sessions/\(id)/bundle").body.write(to: URL(fileURLWithPath: bundlePath))
        try await station.get("/v1/public-key").body.write(to: URL(fileURLWithPath: keyPath))
        let key = try KeyFile.readPublicKey(at: keyPath)
        let report = BundleVerifier(publicKey: key).verify(bundleAt: URL(fileURLWithPath: bundlePath))
        #expect(report.isValid, "\(report.problems)")
        let manifest = try #require(report.manifest)
        #expect(manifest.resultCode == 0)
        #expect(Set(manifest.files.keys) == [BundleLayout.events, BundleLayout.video, BundleLayout.firstCard,
                                             BundleLayout.card, BundleLayout.head])
        #expect(manifest.imageSha256 == manifest.files[BundleLayout.card])

        // The recording starts on a keyframe (before, with
        // restart_file_on_session, it began with up to a second of delta
        // frames nothing could decode, over the first still's moment).
        let videoPath = directory + "/video.mkv"
        try await station.get("/v1/sessions/\(id)/video").body.write(to: URL(fileURLWithPath: videoPath))
        let flags = try Self.firstFrameFlags(of: videoPath)
        #expect(!flags.isEmpty && !flags.contains("delta-unit"), "the first frame is not a keyframe: \(flags)")

        // Flip one byte of the zip's video: the verifier names the file.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: bundlePath))
        let marker = Data("matroska".utf8)
        let at = try #require(bytes.range(of: marker)).lowerBound
        bytes[at] ^= 0x20
        let tamperedPath = directory + "/tampered.zip"
        try bytes.write(to: URL(fileURLWithPath: tamperedPath))
        let tampered = BundleVerifier(publicKey: key).verify(bundleAt: URL(fileURLWithPath: tamperedPath))
        #expect(!tampered.isValid)
        #expect(tampered.problems.contains { $0.hasPrefix(BundleLayout.video) }, "\(tampered.problems)")
    }

    /// GStreamer's buffer flags of a Matroska file's first video frame, as
    /// `gst-launch-1.0 -v … identity silent=false` prints them.
    static func firstFrameFlags(of path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = ["-v", "filesrc", "location=\(path)", "!", "matroskademux", "!", "identity", "silent=false",
                             "!", "fakesink"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let chain = text.split(separator: "\n").first(where: { $0.contains("chain") && $0.contains("flags:") }),
              let range = chain.range(of: "flags: ") else { return "" }
        return String(chain[range.upperBound...].prefix { $0 != "," })
    }
}
