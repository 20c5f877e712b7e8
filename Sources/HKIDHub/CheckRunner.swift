import Foundation
import HKIDLiveness
import HKIDMedia
import HKIDPipeline
import HKIDSignature

/// Runs one check: the replay `hkid-liveness replay --json` runs, on the
/// video in a local file, then signs the manifest of its bundle.
public struct CheckRunner: Sendable {
    /// Why a check cannot be done: the input's fault (not retried) or not.
    public struct Failure: Error, CustomStringConvertible {
        public var reason: String
        public var retryable: Bool
        public var description: String { reason }
    }

    public let signer: ManifestSigner

    public init(signer: ManifestSigner) {
        self.signer = signer
    }

    /// Blocking: decodes and analyses every frame on the calling thread.
    public func run(_ claim: ClaimedCheck, videoPath: String) throws(Failure) -> CheckOutcome {
        var configuration = LivenessConfiguration()
        configuration.cardType = claim.cardType == "2003" ? .hkid2003 : .hkid2018
        configuration.challenge = Challenge(rawValue: claim.challenge) ?? .fixed
        configuration.firstRotation = claim.firstRotation.flatMap(RotationDirection.init(rawValue:))
        let session = LivenessSession(configuration: configuration)
        defer { session.close() }
        let encoder = EventLineEncoder()
        var lines: [String] = []
        let outcome: SessionReplay.Outcome
        do {
            let source = try FrameSource(.replay, input: videoPath)
            outcome = try SessionReplay(session: session).run(source, onEvent: { lines.append(encoder.line(for: $0)) })
        } catch {
            throw Failure(reason: "the upload is not a video that can be decoded (\(error))", retryable: false)
        }
        if let error = outcome.error {
            throw Failure(reason: "the upload could not be decoded to its end (\(error))", retryable: false)
        }
        lines.append(encoder.endLine(counters: outcome.counters, seconds: outcome.seconds, liveness: session.liveness))
        let events = Data((lines.joined(separator: "\n") + "\n").utf8)
        let final = outcome.finalResult

        var files: [String: Data] = [HubBundle.events: events]
        for event in outcome.events {
            guard case .result(let result) = event else { continue }
            for image in result.images {
                let name = result.code == .first ? BundleLayout.firstCard
                    : image.kind == .card ? BundleLayout.card : BundleLayout.head
                if result.code == .first && image.kind != .card { continue }
                files[name] = image.data
            }
        }
        do {
            let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: videoPath)).read(upToCount: 12) ?? Data()
            let videoName = HubBundle.videoName(forHeader: header)
            var digests = files.mapValues { FileDigest.sha256Hex(of: $0) }
            digests[videoName] = claim.videoSha256
            let status = final.map { $0.success ? "completed" : "failed" } ?? "interrupted"
            let challenge = session.evidence.challenge
            let manifest = SessionManifest(
                sessionId: claim.id, cardType: claim.cardType, resultCode: final?.retCode, status: status,
                videoTimestamp: "0|0|0|0", videoSha256: claim.videoSha256,
                imageSha256: digests[BundleLayout.card] ?? digests[BundleLayout.firstCard],
                files: digests, detectorVersion: "hkid-liveness \(LivenessSession.version)", keyId: signer.keyId,
                createdAt: Int64(Date().timeIntervalSince1970 * 1000),
                liveness: SessionManifest.Liveness(mode: configuration.liveness.rawValue, challenge: challenge?.kind.rawValue,
                                                   firstRotation: challenge?.first.rawValue,
                                                   verdict: final?.liveness?.verdict.rawValue, spoofScore: final?.liveness?.spoofScore))
            let bytes = manifest.canonicalJSON()
            let resultLine = final.map { encoder.line(for: .result($0)) }
            return CheckOutcome(resultCode: final?.retCode, verdict: final?.liveness?.verdict.rawValue,
                                spoofScore: final?.liveness?.spoofScore, result: resultLine, events: events, files: files,
                                manifest: bytes, signature: try signer.signature(of: bytes))
        } catch {
            throw Failure(reason: "the bundle could not be signed (\(error))", retryable: true)
        }
    }
}
