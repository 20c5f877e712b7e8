import Foundation
import Hummingbird

/// Every HTTP route of the station, by resource, each controller handed
/// exactly what it uses. docs/station-openapi.yaml documents exactly these
/// (a test checks).
enum StationRoutes {
    static func register<Context: RequestContext>(on router: Router<Context>, station: Station) {
        StationInfoController<Context>(camera: station.camera, signer: station.signer, metrics: station.metrics,
                                       activeSession: { await station.activeSessionID }).addRoutes(to: router)
        PreviewController<Context>(preview: station.camera.preview,
                                   framesPerSecond: station.configuration.previewFramesPerSecond,
                                   isShuttingDown: { await station.isShuttingDown }).addRoutes(to: router)
        SessionsController<Context>(station: station, directory: station.directory,
                                    maxRequestBytes: station.configuration.maxRequestBytes).addRoutes(to: router)
    }
}

/// One `Range: bytes=` request against a file of `size` bytes (RFC 9110
/// 14.1.2). Anything but one byte range is answered with the whole file,
/// which the RFC allows.
enum ByteRange: Equatable {
    case whole
    case unsatisfiable
    case part(ClosedRange<Int>)

    init(header: String, size: Int) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { self = .whole; return }
        let spec = text.dropFirst("bytes=".count)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { self = .whole; return }
        let first = bounds[0].trimmingCharacters(in: .whitespaces), last = bounds[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // bytes=-N: the last N bytes.
            guard let suffix = Int(last) else { self = .whole; return }
            guard suffix > 0, size > 0 else { self = .unsatisfiable; return }
            self = .part(max(size - suffix, 0)...(size - 1))
            return
        }
        guard let start = Int(first), start >= 0 else { self = .whole; return }
        var end = size - 1
        if !last.isEmpty {
            guard let value = Int(last), value >= start else { self = .whole; return }
            end = min(value, size - 1)
        }
        guard start < size else { self = .unsatisfiable; return }
        self = .part(start...end)
    }
}

/// The body of `GET /healthz`.
struct Health: Encodable {
    var status: String
    var camera: Camera
    var activeSession: String?
    var keyId: String
    struct Camera: Encodable {
        var running: Bool
        var framesSeen: Int
        var frameWidth: Int
        var frameHeight: Int
        var lastError: String?
    }
}
