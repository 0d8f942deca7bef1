import Foundation
import Logging
import PostgresNIO

/// The schema and its migrations.
extension PostgresProviderStore {
    // MARK: Schema

    /// The schema, one list of statements per version; a database at version N runs the lists after N.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY, user_id TEXT, claimed_name TEXT, device_info TEXT NOT NULL, is_admin BOOLEAN NOT NULL,
                status TEXT NOT NULL, paired_at DOUBLE PRECISION NOT NULL, last_seen DOUBLE PRECISION, position BIGSERIAL)
            """,
            "CREATE TABLE events (seq BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, frame TEXT NOT NULL)",
            "CREATE INDEX events_by_user ON events (user_id, seq)",
            """
            CREATE TABLE client_messages (
                device_id TEXT NOT NULL, client_id TEXT NOT NULL, fingerprint TEXT NOT NULL, event_id TEXT NOT NULL,
                failed BOOLEAN NOT NULL DEFAULT FALSE, PRIMARY KEY (device_id, client_id))
            """,
            """
            CREATE TABLE assets (
                asset_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, mime_type TEXT NOT NULL, size BIGINT NOT NULL,
                uploaded_at DOUBLE PRECISION NOT NULL, referenced BOOLEAN NOT NULL DEFAULT FALSE)
            """,
            // Settings every node shares: the token signing key.
            "CREATE TABLE settings (name TEXT PRIMARY KEY, value BYTEA NOT NULL)",
            // The bytes of uploads, in chunks, so every node serves them.
            """
            CREATE TABLE asset_chunks (
                asset_id TEXT NOT NULL REFERENCES assets (asset_id) ON DELETE CASCADE, chunk INTEGER NOT NULL, bytes BYTEA NOT NULL,
                PRIMARY KEY (asset_id, chunk))
            """,
            // Cluster messages too large for a notification.
            "CREATE TABLE cluster_messages (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)",
        ],
        [
            // An upload's quota sums the account's uploads.
            "CREATE INDEX assets_by_user ON assets (user_id)"
        ],
        [
            // What a pairing left undone, shared by every node.
            "ALTER TABLE devices ADD COLUMN pairing_note TEXT NOT NULL DEFAULT 'none'"
        ],
        [
            // Each account's events are numbered 1, 2, 3… in commit order (nodes send a socket an
            // account's events in that order); the events stored so far are numbered as they were.
            "ALTER TABLE events ADD COLUMN number BIGINT",
            """
            UPDATE events SET number = numbered.n
            FROM (SELECT seq, row_number() OVER (PARTITION BY user_id ORDER BY seq) AS n FROM events) AS numbered
            WHERE events.seq = numbered.seq
            """,
            "CREATE UNIQUE INDEX events_by_number ON events (user_id, number)",
        ],
        [
            // A counter of the changes that can end a device's sockets (`devicesRevision()`),
            // shared by every node: the maintenance looks up every connected device only when it moved.
            "CREATE TABLE device_revision (value BIGINT NOT NULL)",
            "INSERT INTO device_revision (value) VALUES (0)",
            """
            CREATE FUNCTION device_revision_bump() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE device_revision SET value = value + 1;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER device_standing_changed AFTER UPDATE OF status, user_id, paired_at ON devices FOR EACH ROW
            WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.user_id IS DISTINCT FROM NEW.user_id
                OR OLD.paired_at IS DISTINCT FROM NEW.paired_at)
            EXECUTE FUNCTION device_revision_bump()
            """,
            "CREATE TRIGGER device_removed AFTER DELETE ON devices FOR EACH ROW EXECUTE FUNCTION device_revision_bump()",
        ],
    ]

    /// A key of PostgreSQL's advisory locks that no other use of the database takes: the schema's.
    private static let migrationLock = 0x636C_6177

    /// Creates the schema (when named) and migrates the tables, all under one advisory lock, so
    /// nodes starting at once do it once (`CREATE SCHEMA IF NOT EXISTS` alone races).
    func migrate(creatingSchema schema: String?) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            if let schema { try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger) }
            try await connection.query("CREATE TABLE IF NOT EXISTS clawline_schema (version INTEGER NOT NULL)", logger: logger)
            var version = 0
            for try await value in try await connection.query("SELECT version FROM clawline_schema", logger: logger).decode(Int.self) {
                version = value
            }
            guard version < Self.migrations.count else { return }
            for statement in Self.migrations[version...].joined() {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("DELETE FROM clawline_schema", logger: logger)
            try await connection.query("INSERT INTO clawline_schema (version) VALUES (\(Self.migrations.count))", logger: logger)
        }
    }
}
