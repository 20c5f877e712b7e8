import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HKIDMedia
import HKIDSignature
import Logging

/// Uploads each sealed session with a video to a hub's `POST /v1/checks`
/// (docs/hub.md, "Stations report to the hub"), working from the data
/// directory alone, so a session sealed while the hub was down, or before a
/// restart, is delivered later.
///
/// - Idempotent: the session id is the `Idempotency-Key`, and the hub keys
///   checks by client (this station's bearer token) and key, so a session
///   sent twice (an answer lost, a restart mid-upload) is one check.
/// - Acknowledged: a 200 or 202 writes `hub-check.json` beside the bundle
///   (the hub's check id); a session with that file is never sent again.
/// - Retried: a network error, 401/403, 408, 429 or 5xx ends the round and
///   the next comes after a backoff (1 s doubling to 30 s). Any other 4xx
///   is the hub refusing this upload for good (too large, say): written to
///   the same file with the reason, logged, and not retried.
actor HubReporter {
    /// Beside `bundle.zip`: what the hub answered (check id, or refusal).
    static let acknowledgementFile = "hub-check.json"
    static let backoffBase: Duration = .seconds(1)
    static let backoffCap: Duration = .seconds(30)
    /// How often an idle reporter looks for sealed sessions nobody announced
    /// (sealed by recovery or after a full disk).
    static let rescanInterval: Duration = .seconds(10)

    private let directory: DataDirectory
    private let endpoint: URL
    private let token: String
    private let logger: Logger
    private let session: URLSession
    private var loop: Task<Void, Never>?
    private var poked = false

    /// The reporter the configuration asks for, or nil when no hub is set.
    static func make(configuration: StationConfiguration, directory: DataDirectory,
                     logger: Logger) throws(StationError) -> HubReporter? {
        guard let hub = configuration.hubURL else { return nil }
        guard let tokenFile = configuration.hubTokenFile else {
            throw StationError(.configuration, "hub_url needs hub_token_file (the station's bearer token on the hub)")
        }
        let token = try TokenFile.read(at: tokenFile)
        guard let base = URL(string: hub), let scheme = base.scheme, ["http", "https"].contains(scheme), base.host != nil else {
            throw StationError(.configuration, "hub_url \(hub) is not an http(s) URL")
        }
        return HubReporter(directory: directory, endpoint: base.appendingPathComponent("v1/checks"), token: token,
                           logger: logger)
    }

    private init(directory: DataDirectory, endpoint: URL, token: String, logger: Logger) {
        self.directory = directory
        self.endpoint = endpoint
        self.token = token
        self.logger = logger
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    /// Starts delivering: everything sealed and not acknowledged first.
    func start() {
        guard loop == nil else { return }
        logger.info("reporting sealed sessions to the hub", metadata: ["hub": "\(endpoint)"])
        loop = Task { await self.run() }
    }

    /// A session was just sealed: look now rather than at the next rescan.
    func poke() { poked = true }

    /// Stops delivering; an upload in flight is abandoned and sent again next start.
    func stop() {
        loop?.cancel()
        loop = nil
    }

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            poked = false
            if await deliverPending() {
                failures = 0
                await idle()
            } else {
                failures += 1
                let delay = min(Self.backoffBase * (1 << min(failures - 1, 10)), Self.backoffCap)
                // A cancelled sleep (shutdown) only ends the wait; the loop checks for it.
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// Until poked, cancelled, or the rescan interval passes.
    private func idle() async {
        let end = ContinuousClock.now + Self.rescanInterval
        while !poked, !Task.isCancelled, ContinuousClock.now < end {
            // A cancelled sleep (shutdown) only ends the wait; the loop checks for it.
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// One round over the unacknowledged sessions; false when the hub could
    /// not be reached or asked to be tried again (the rest wait with it).
    private func deliverPending() async -> Bool {
        for id in pendingSessions() {
            if Task.isCancelled { return true }
            guard await deliver(id) else { return false }
        }
        return true
    }

    /// Sealed (`bundle.zip` in place), with a video, not yet answered; by id.
    private func pendingSessions() -> [SessionID] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.sessionsDirectory.path)
        } catch {
            logger.error("cannot list the sessions to report; trying again at the next round", metadata: [
                "directory": "\(directory.sessionsDirectory.path)", "error": "\(error.localizedDescription)"])
            return []
        }
        return names.sorted().compactMap(SessionID.init).filter { id in
            let exists = { (name: String) in FileManager.default.fileExists(atPath: self.directory.file(name, of: id)) }
            return exists("bundle.zip") && exists(BundleLayout.video) && !exists(Self.acknowledgementFile)
        }
    }

    /// Uploads one session; true when the hub answered for good.
    private func deliver(_ id: SessionID) async -> Bool {
        let manifest: [String: Any]
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory.file(BundleLayout.manifest, of: id)))
            manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        } catch {
            // Without its manifest the hub would check the video against a
            // guessed card type: leave the session for the next round.
            logger.error("cannot read the session's manifest; not sent this round", metadata: [
                "session": "\(id)", "error": "\(error.localizedDescription)"])
            return true
        }
        guard let card = manifest["cardType"] as? String else {
            logger.error("the session's manifest names no card type; not sent this round", metadata: ["session": "\(id)"])
            return true
        }
        let liveness = manifest["liveness"] as? [String: Any]
        let challenge = liveness?["challenge"] as? String ?? "fixed"
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "card", value: card), URLQueryItem(name: "challenge", value: challenge)]
        // A random challenge is re-checked with the direction the holder was
        // asked for, not a fresh draw the recording could not have followed.
        if challenge == "random", let first = liveness?["firstRotation"] as? String {
            components.queryItems?.append(URLQueryItem(name: "firstRotation", value: first))
        }
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(id.rawValue, forHTTPHeaderField: "Idempotency-Key")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let video = URL(fileURLWithPath: directory.file(BundleLayout.video, of: id))
        let status: Int, body: Data
        do {
            let (data, response) = try await session.upload(for: request, fromFile: video)
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            body = data
        } catch {
            logger.warning("the hub did not take the session; retrying", metadata: [
                "session": "\(id)", "error": "\(error.localizedDescription)"])
            return false
        }
        // A reply that is not JSON (a proxy's error page) still has its
        // status; the body only adds the hub's reason.
        let answer = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        switch status {
        case 200, 202:
            let check = answer["id"] as? String ?? ""
            guard record(["check": check, "status": status], for: id) else { return false }
            logger.info("the hub acknowledged the session", metadata: ["session": "\(id)", "check": "\(check)"])
            return true
        case 401, 403, 408, 429, 500...599, 0:
            logger.warning("the hub did not take the session; retrying", metadata: [
                "session": "\(id)", "status": "\(status)", "error": "\(answer["error"] ?? "")"])
            return false
        default:
            let reason = answer["error"] as? String ?? "HTTP \(status)"
            logger.error("the hub refused the session; not sent again", metadata: ["session": "\(id)", "reason": "\(reason)"])
            return record(["refused": reason, "status": status], for: id)
        }
    }

    /// Writes the hub's answer beside the bundle, durably; false (the round
    /// ends, the upload is repeated, and the hub answers with the same check)
    /// when the disk will not take it.
    private func record(_ answer: [String: Any], for id: SessionID) -> Bool {
        var answer = answer
        answer["hub"] = endpoint.absoluteString
        answer["at"] = VideoTimestamps.nowMilliseconds()
        do {
            let data = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])
            try DurableFile.write(data + Data("\n".utf8), to: directory.file(Self.acknowledgementFile, of: id), mode: 0o600)
            return true
        } catch {
            logger.error("the hub's answer was not recorded", metadata: ["session": "\(id)", "error": "\(error)"])
            return false
        }
    }
}
