import Foundation
import GRDB

/// Webhook deliveries in the embedded SQLite store: the same table and
/// trigger as in PostgreSQL; one writer at a time makes a claim exclusive.
extension SQLiteJobStore {
    static func migrateWebhooks(_ db: Database) throws {
        if try !db.columns(in: "hub_checks").contains(where: { $0.name == "webhook_url" }) {
            try db.execute(sql: "ALTER TABLE hub_checks ADD COLUMN webhook_url TEXT")
        }
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS hub_webhooks (
                check_id TEXT PRIMARY KEY REFERENCES hub_checks (id) ON DELETE CASCADE, url TEXT NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0,
                lease_until INTEGER, sender TEXT, last_status INTEGER, last_error TEXT, delivered_at INTEGER);
            CREATE TRIGGER IF NOT EXISTS hub_checks_webhook AFTER UPDATE OF state ON hub_checks FOR EACH ROW
            WHEN NEW.state IN ('done', 'failed') AND OLD.state IS NOT NEW.state AND NEW.webhook_url IS NOT NULL
            BEGIN
                INSERT OR IGNORE INTO hub_webhooks (check_id, url) VALUES (NEW.id, NEW.webhook_url);
            END;
            """)
    }

    public func claimDelivery(sender: String, lease: Duration, maxAttempts: Int) async throws -> WebhookDelivery? {
        try await database.write { db in
            let now = Self.now()
            guard let row = try Row.fetchOne(db, sql: """
                UPDATE hub_webhooks SET attempts = attempts + 1, sender = ?, lease_until = ?
                WHERE check_id = (
                    SELECT check_id FROM hub_webhooks
                    WHERE state = 'pending' AND next_at <= ? AND attempts < ? AND (lease_until IS NULL OR lease_until < ?)
                    ORDER BY next_at LIMIT 1)
                RETURNING check_id, url, attempts
                """, arguments: [sender, now + Int64(lease.seconds * 1000), now, maxAttempts, now]) else { return nil }
            return WebhookDelivery(checkId: row["check_id"], url: row["url"], attempt: row["attempts"], sender: sender)
        }
    }

    public func record(_ delivery: WebhookDelivery, outcome: WebhookAttemptOutcome) async throws {
        let state = outcome.delivered ? "delivered" : outcome.retryAfter == nil ? "failed" : "pending"
        try await database.write { db in
            let now = Self.now()
            try db.execute(sql: """
                UPDATE hub_webhooks SET state = ?, lease_until = NULL, last_status = ?, last_error = ?, next_at = ?,
                    delivered_at = ?
                WHERE check_id = ? AND sender = ? AND attempts = ?
                """, arguments: [state, outcome.status, outcome.error,
                                 now + Int64((outcome.retryAfter?.seconds ?? 0) * 1000), (outcome.delivered ? now : nil) as Int64?,
                                 delivery.checkId, delivery.sender, delivery.attempt])
        }
    }

    public func webhook(id: String) async throws -> WebhookStatus? {
        try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT c.webhook_url AS url, coalesce(w.state, 'waiting') AS state, coalesce(w.attempts, 0) AS attempts,
                    w.last_status, w.last_error, w.delivered_at
                FROM hub_checks c LEFT JOIN hub_webhooks w ON w.check_id = c.id
                WHERE c.id = ? AND c.webhook_url IS NOT NULL
                """, arguments: [id]) else { return nil }
            return WebhookStatus(state: row["state"], url: row["url"], attempts: row["attempts"], lastStatus: row["last_status"],
                                 lastError: row["last_error"], deliveredAt: row["delivered_at"])
        }
    }
}
