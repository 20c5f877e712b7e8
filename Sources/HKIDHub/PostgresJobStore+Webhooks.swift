import Foundation
import PostgresNIO

/// Webhook deliveries in PostgreSQL: claimed with `FOR UPDATE SKIP LOCKED`
/// and a lease, so any number of hubs send each one, one at a time.
extension PostgresJobStore {
    public func claimDelivery(sender: String, lease: Duration, maxAttempts: Int) async throws -> WebhookDelivery? {
        try await timed("claiming a webhook") {
            let rows = try await self.client.query("""
                UPDATE hub_webhooks SET attempts = attempts + 1, sender = \(sender),
                    lease_until = now() + make_interval(secs => \(lease.seconds))
                WHERE check_id = (
                    SELECT check_id FROM hub_webhooks
                    WHERE state = 'pending' AND next_at <= now() AND attempts < \(Int32(maxAttempts))
                      AND (lease_until IS NULL OR lease_until < now())
                    ORDER BY next_at
                    FOR UPDATE SKIP LOCKED
                    LIMIT 1)
                RETURNING check_id, url, attempts
                """, logger: self.logger)
            for try await (id, url, attempt) in rows.decode((String, String, Int32).self) {
                return WebhookDelivery(checkId: id, url: url, attempt: Int(attempt), sender: sender)
            }
            return nil
        }
    }

    public func record(_ delivery: WebhookDelivery, outcome: WebhookAttemptOutcome) async throws {
        let state = outcome.delivered ? "delivered" : outcome.retryAfter == nil ? "failed" : "pending"
        let delay = outcome.retryAfter?.seconds ?? 0
        try await timed("recording a webhook attempt") {
            _ = try await self.client.query("""
                UPDATE hub_webhooks SET state = \(state), lease_until = NULL, last_status = \(outcome.status.map(Int32.init)),
                    last_error = \(outcome.error), next_at = now() + make_interval(secs => \(delay)),
                    delivered_at = CASE WHEN \(outcome.delivered) THEN now() END
                WHERE check_id = \(delivery.checkId) AND sender = \(delivery.sender) AND attempts = \(Int32(delivery.attempt))
                """, logger: self.logger)
        }
    }

    public func webhook(id: String) async throws -> WebhookStatus? {
        try await timed("reading a webhook") {
            let rows = try await self.client.query("""
                SELECT c.webhook_url, coalesce(w.state, 'waiting'), coalesce(w.attempts, 0), w.last_status, w.last_error,
                    (extract(epoch FROM w.delivered_at) * 1000)::bigint
                FROM hub_checks c LEFT JOIN hub_webhooks w ON w.check_id = c.id
                WHERE c.id = \(id) AND c.webhook_url IS NOT NULL
                """, logger: self.logger)
            for try await (url, state, attempts, status, error, delivered)
                in rows.decode((String, String, Int32, Int32?, String?, Int64?).self) {
                return WebhookStatus(state: state, url: url, attempts: Int(attempts), lastStatus: status.map(Int.init),
                                     lastError: error, deliveredAt: delivered)
            }
            return nil
        }
    }
}
