import Logging
import ServiceLifecycle

/// The station as a swift-service-lifecycle service: recovers and starts the
/// camera when the group runs, and on graceful shutdown (SIGTERM) ends the
/// active session as interrupted with its recording finalised, then stops
/// the camera.
///
/// It is listed after the HTTP server in the group, so it is shut down first
/// (groups shut down in reverse order): the live event streams end with the
/// session, and the server's own drain does not wait on them.
public struct StationService: Service {
    let station: Station

    public init(station: Station) {
        self.station = station
    }

    public func run() async throws {
        await station.start()
        // Returns on graceful shutdown, throws on cancellation: clean up either way.
        try? await gracefulShutdown()
        await station.shutdown()
    }
}
