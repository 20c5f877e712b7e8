import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ServiceLifecycle

/// How the hub sends webhooks.
public struct WebhookConfiguration: Sendable {
    /// Names this sender in delivery leases (host and pid by default).
    public var name: String
    /// Attempts before a delivery is failed for good.
    public var maxAttempts = 10
    /// Delay after attempt n: `base * 2^(n-1)`, at most `cap`; with the
    /// defaults the 10 attempts span about 4.6 hours.
    public var backoff = RetryBackoff(base: .seconds(30), cap: .seconds(3600))
    /// How long one attempt may take before it counts as unanswered.
    public var timeout: Duration = .seconds(10)
    /// Looks for due deliveries this often.
    public var poll: Duration = .seconds(1)

    public init(name: String) {
        self.name = name
    }
}

/// Runs in every hub: takes due webhook deliveries from the store, POSTs the
/// check's outcome signed with its client's secret, and records the answer;
/// retried with exponential backoff until a 2xx or the last attempt.
public final class WebhookSender: Service, Sendable {
    let store: any JobStore
    let tokens: ClientTokens
    let configuration: WebhookConfiguration
    let logger: Logger
    let session: URLSession

    public init(store: any JobStore, tokens: ClientTokens, configuration: WebhookConfiguration, logger: Logger) {
        self.store = store
        self.tokens = tokens
        self.configuration = configuration
        self.logger = logger
        let session = URLSessionConfiguration.ephemeral
        session.timeoutIntervalForRequest = configuration.timeout.seconds
        session.timeoutIntervalForResource = configuration.timeout.seconds
        self.session = URLSession(configuration: session)
    }

    public func run() async throws {
        var delay = Duration.milliseconds(200)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                if let delivery = try await store.claimDelivery(sender: configuration.name, lease: configuration.timeout * 3,
                                                                 maxAttempts: configuration.maxAttempts) {
                    let outcome = await send(delivery)
                    try await store.record(delivery, outcome: outcome)
                    delay = .milliseconds(200)
                    continue
                }
                delay = .milliseconds(200)
                try? await Task.sleep(for: configuration.poll)
            } catch {
                // The schema may not be ready yet, or the database is down.
                logger.debug("webhooks: cannot reach the store; retrying", metadata: ["error": "\(error)", "in": "\(delay)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// One attempt: the answer's status, or why there was none.
    func send(_ delivery: WebhookDelivery) async -> WebhookAttemptOutcome {
        let retry = delivery.attempt < configuration.maxAttempts
            ? configuration.backoff.delay(afterAttempt: delivery.attempt) : nil
        do {
            guard let check = try await store.check(id: delivery.checkId, client: nil),
                  let secret = tokens.webhookSecret(ofClient: check.client) else {
                return WebhookAttemptOutcome(status: nil, error: "the check or its client's webhook secret is gone", retryAfter: nil)
            }
            guard let url = URL(string: delivery.url) else {
                return WebhookAttemptOutcome(status: nil, error: "\(delivery.url) is not a URL", retryAfter: nil)
            }
            let body = try Self.body(of: check, attempt: delivery.attempt)
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(WebhookSignature.sign(body, secret: secret, timestamp: Int64(Date().timeIntervalSince1970)),
                             forHTTPHeaderField: WebhookSignature.header)
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let delivered = (200..<300).contains(status)
            logger.info(delivered ? "webhook delivered" : "webhook refused",
                        metadata: ["check": "\(delivery.checkId)", "attempt": "\(delivery.attempt)", "status": "\(status)"])
            return WebhookAttemptOutcome(status: status, error: delivered ? nil : "the receiver answered \(status)",
                                         retryAfter: delivered ? nil : retry)
        } catch {
            logger.info("webhook unanswered", metadata: ["check": "\(delivery.checkId)", "attempt": "\(delivery.attempt)",
                                                         "error": "\(error.localizedDescription)"])
            return WebhookAttemptOutcome(status: nil, error: "no answer: \(error.localizedDescription)", retryAfter: retry)
        }
    }

    /// The JSON a receiver gets: the check's outcome and where to fetch the rest.
    static func body(of check: Check, attempt: Int) throws -> Data {
        var object: [String: Any] = [
            "type": "check.finished", "id": check.id, "state": check.state.rawValue, "cardType": check.cardType,
            "idempotencyKey": check.idempotencyKey, "deliveryAttempt": attempt,
            "links": ["self": "/v1/checks/\(check.id)", "events": "/v1/checks/\(check.id)/events",
                      "bundle": "/v1/checks/\(check.id)/bundle"],
        ]
        if let code = check.resultCode { object["resultCode"] = code }
        if let verdict = check.verdict { object["verdict"] = verdict }
        if let reason = check.reason { object["reason"] = reason }
        if let finished = check.finishedAt { object["finishedAt"] = finished }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
