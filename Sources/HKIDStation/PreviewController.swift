import Foundation
import Hummingbird
import NIOCore

/// The camera's preview: `/v1/preview.jpg` (the newest picture) and
/// `/v1/preview.mjpeg` (a stream of them, for the operator page).
struct PreviewController<Context: RequestContext> {
    let preview: PreviewStore
    let framesPerSecond: Int
    /// Whether the station is shutting down (the stream ends then).
    let isShuttingDown: @Sendable () async -> Bool

    func addRoutes(to router: Router<Context>) {
        router.get("/v1/preview.jpg") { _, _ in try previewPicture() }
        router.get("/v1/preview.mjpeg") { _, _ in previewStream() }
    }

    private func previewPicture() throws -> Response {
        guard let picture = preview.picture else {
            throw APIError(.serviceUnavailable, "no camera picture yet")
        }
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: picture.jpeg)))
    }

    /// MJPEG: `multipart/x-mixed-replace`, one part per new preview picture,
    /// until the client goes or the station shuts down.
    private func previewStream() -> Response {
        let boundary = "hkidpreview"
        let preview = self.preview, isShuttingDown = self.isShuttingDown
        let interval = Duration.milliseconds(1000 / max(framesPerSecond, 1) / 2)
        return Response(status: .ok,
                        headers: [.contentType: "multipart/x-mixed-replace; boundary=\(boundary)", .cacheControl: "no-store"],
                        body: ResponseBody { writer in
                            var sent = 0
                            while !(await isShuttingDown()), !Task.isCancelled {
                                if let picture = preview.picture, picture.sequence != sent {
                                    sent = picture.sequence
                                    var part = ByteBuffer(string: "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(picture.jpeg.count)\r\n\r\n")
                                    part.writeBytes(picture.jpeg)
                                    part.writeString("\r\n")
                                    try await writer.write(part)
                                }
                                try await Task.sleep(for: interval)
                            }
                            try await writer.finish(nil)
                        })
    }
}
