import Foundation
import HKIDSignature
import Hummingbird
import NIOCore

/// What the station says of itself: the operator page (`/`), `/healthz`,
/// `/metrics` and `/v1/public-key`.
struct StationInfoController<Context: RequestContext> {
    let camera: CameraService
    let signer: ManifestSigner
    let metrics: StationMetrics
    /// The active session's id, if one runs.
    let activeSession: @Sendable () async -> SessionID?

    func addRoutes(to router: Router<Context>) {
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: OperatorPage.html)))
        }
        router.get("/healthz") { _, _ in await health() }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/v1/public-key") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/x-pem-file",
                                            HTTPFields.Element.Name("X-Key-Id")!: signer.keyId],
                     body: .init(byteBuffer: ByteBuffer(string: KeyFile.pem(publicKey: signer.publicKey))))
        }
    }

    private func health() async -> Response {
        let camera = camera.health
        let body = Health(status: camera.running ? "ok" : "degraded",
                          camera: .init(running: camera.running, framesSeen: camera.framesSeen, frameWidth: camera.frameWidth,
                                                        frameHeight: camera.frameHeight, lastError: camera.lastError),
                          activeSession: await activeSession()?.rawValue, keyId: signer.keyId)
        return JSONResponse.response(body)
    }
}
