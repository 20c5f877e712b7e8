import Foundation
import Testing

/// `hkid-liveness verify` on a bundle a real station served: valid as is;
/// any change, another station's key, or an unreadable file is reported.
@Suite("hkid-liveness verify")
struct VerifyTests {
    static let bundle = CLI.fixture("station-bundle.zip")
    static let key = CLI.fixture("station.pub")

    @Test("the bundle as served verifies, listing every file it checked")
    func valid() throws {
        let run = try CLI.run(["verify", Self.bundle, "--public-key", Self.key])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.lines.first == "\(Self.bundle): OK")
        #expect(run.stdout.contains("sha256 ok  video.mkv") && run.stdout.contains("sha256 ok  events.jsonl"))
    }

    @Test("one changed byte in the video is named with both hashes")
    func tamperedVideo() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.bundle))
        let at = try #require(bytes.range(of: Data("matroska".utf8))).lowerBound
        bytes[at] ^= 0x20
        let path = try CLI.temporaryDirectory() + "/tampered.zip"
        try bytes.write(to: URL(fileURLWithPath: path))
        let run = try CLI.run(["verify", path, "--public-key", Self.key])
        #expect(run.status == 1)
        #expect(run.lines.first == "\(path): NOT VALID")
        #expect(run.lines.contains { $0.hasPrefix("  - video.mkv: SHA-256 is ") && $0.contains(", the manifest says ") })
    }

    @Test("another station's key does not verify the signature")
    func wrongKey() throws {
        let run = try CLI.run(["verify", Self.bundle, "--public-key", CLI.fixture("other-station.pub")])
        #expect(run.status == 1)
        #expect(run.lines == ["\(Self.bundle): NOT VALID",
                              "  - signature: the manifest was signed by key 6e8a4654d9d617f2, not by the given key c63ae6f20874cf30"])
    }

    @Test("a missing bundle is one line and exit 2")
    func missing() throws {
        let run = try CLI.run(["verify", "/nonexistent/bundle.zip", "--public-key", Self.key])
        #expect(run.status == 2)
        #expect(run.stderr == "hkid-liveness verify: /nonexistent/bundle.zip: cannot be read\n")
    }
}
