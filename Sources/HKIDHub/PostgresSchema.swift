import PostgresNIO

/// The hub's tables in PostgreSQL. `migrate` runs at every start of a hub or
/// worker, under an advisory lock so that processes starting together do
/// not race; each step is idempotent.
enum PostgresSchema {
    /// Any constant; names the advisory lock every migrating process takes.
    static let migrationLock: Int64 = 0x686b_6964_6875_62
    /// The channel a new check is announced on.
    static let channel = "hkid_checks"

    static let statements: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS hub_checks (
            id text PRIMARY KEY,
            seq bigserial UNIQUE,
            client text NOT NULL,
            idempotency_key text NOT NULL,
            card_type text NOT NULL,
            challenge text NOT NULL,
            state text NOT NULL DEFAULT 'queued',
            attempts integer NOT NULL DEFAULT 0,
            max_attempts integer NOT NULL,
            run_after timestamptz NOT NULL DEFAULT now(),
            lease_until timestamptz,
            worker text,
            reason text,
            video_bytes bigint NOT NULL DEFAULT 0,
            video_sha256 text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            started_at timestamptz,
            finished_at timestamptz,
            result_code integer,
            verdict text,
            spoof_score double precision,
            result text,
            manifest bytea,
            signature text,
            UNIQUE (client, idempotency_key)
        )
        """,
        "CREATE INDEX IF NOT EXISTS hub_checks_runnable ON hub_checks (seq) WHERE state IN ('queued', 'running')",
        """
        CREATE TABLE IF NOT EXISTS hub_video_chunks (
            check_id text NOT NULL REFERENCES hub_checks (id) ON DELETE CASCADE,
            seq integer NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (check_id, seq)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_check_files (
            check_id text NOT NULL REFERENCES hub_checks (id) ON DELETE CASCADE,
            name text NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY (check_id, name)
        )
        """,
        // One row per claim: who ran which attempt, and how it ended (null
        // while running or when the worker died). The audit trail of retries.
        """
        CREATE TABLE IF NOT EXISTS hub_runs (
            check_id text NOT NULL REFERENCES hub_checks (id) ON DELETE CASCADE,
            attempt integer NOT NULL,
            worker text NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now(),
            ended_at timestamptz,
            outcome text,
            PRIMARY KEY (check_id, attempt)
        )
        """,
        // Webhooks (WebhookQueue): the URL a check was uploaded with, and one
        // delivery row per ended check, written by a trigger in the same
        // transaction that ends it (whichever path ends it).
        "ALTER TABLE hub_checks ADD COLUMN IF NOT EXISTS webhook_url text",
        // The first rotation a random challenge asked for (null: fixed).
        "ALTER TABLE hub_checks ADD COLUMN IF NOT EXISTS first_rotation text",
        """
        CREATE TABLE IF NOT EXISTS hub_webhooks (
            check_id text PRIMARY KEY REFERENCES hub_checks (id) ON DELETE CASCADE,
            url text NOT NULL,
            state text NOT NULL DEFAULT 'pending',
            attempts integer NOT NULL DEFAULT 0,
            next_at timestamptz NOT NULL DEFAULT now(),
            lease_until timestamptz,
            sender text,
            last_status integer,
            last_error text,
            delivered_at timestamptz
        )
        """,
        "CREATE INDEX IF NOT EXISTS hub_webhooks_due ON hub_webhooks (next_at) WHERE state = 'pending'",
        """
        CREATE OR REPLACE FUNCTION hub_queue_webhook() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO hub_webhooks (check_id, url) VALUES (NEW.id, NEW.webhook_url) ON CONFLICT (check_id) DO NOTHING;
            RETURN NEW;
        END $$
        """,
        """
        CREATE OR REPLACE TRIGGER hub_checks_webhook AFTER UPDATE OF state ON hub_checks FOR EACH ROW
        WHEN (NEW.state IN ('done', 'failed') AND OLD.state IS DISTINCT FROM NEW.state AND NEW.webhook_url IS NOT NULL)
        EXECUTE FUNCTION hub_queue_webhook()
        """,
    ]
}
