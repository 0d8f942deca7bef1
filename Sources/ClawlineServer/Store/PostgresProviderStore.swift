import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// A ``ProviderStore`` on PostgreSQL (PostgresNIO), for one node or several nodes sharing one
/// database. Chosen with `clawline-server serve --database postgres://…`.
///
/// - The schema is created and migrated on open, under an advisory lock, so nodes starting at once
///   migrate it once.
/// - Each account's events are appended under a transaction-scoped advisory lock on the account:
///   their sequence numbers commit in order, so a replay never skips an event another node is
///   still committing.
/// - A client message id is claimed and its echo stored in one transaction: a retry that lands on
///   another node is still a retry.
public final class PostgresProviderStore: AssetBytesStore {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let listenerConfiguration: PostgresConnection.Configuration

    private init(client: PostgresClient, runner: Task<Void, Never>, logger: Logger, listenerConfiguration: PostgresConnection.Configuration) {
        self.client = client
        self.runner = runner
        self.logger = logger
        self.listenerConfiguration = listenerConfiguration
    }

    /// A bus to the other nodes on this database (`LISTEN`/`NOTIFY`).
    public func clusterBus() -> PostgresClusterBus {
        PostgresClusterBus(client: client, connection: listenerConfiguration, logger: logger)
    }

    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database`, with
    /// `?sslmode=disable|prefer|require`, `disable` by default) and migrates its schema. With a
    /// `schema` (or `?schema=NAME` in the URL), the tables live in that PostgreSQL schema (created
    /// if needed), so several deployments or test runs can share a database.
    public static func open(
        url: String, schema: String? = nil, logger: Logger = Logger(label: "clawline.store")
    ) async throws
        -> PostgresProviderStore
    {
        let address = try Address(url)
        let schema = schema ?? address.schema
        // One connection first: a wrong address or password fails here at once, where the pool
        // would keep retrying.
        do {
            let probe = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: try address.connectionConfiguration(), id: 0, logger: logger
            ).get()
            try await probe.close()
        } catch {
            throw ServerSetupError("cannot connect to the database at \(redacted(url)): \(String(reflecting: error))")
        }
        var configuration = address.clientConfiguration
        if let schema {
            guard schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !schema.isEmpty else {
                throw ServerSetupError("the schema name '\(schema)' may hold only letters, digits and _")
            }
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        // The pool's own chatter (such as a lease requested a moment before its run loop starts)
        // stays quiet; failures reach the caller as errors.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        let runner = Task { await client.run() }
        var listenerConfiguration = try address.connectionConfiguration()
        if let schema { listenerConfiguration.options.additionalStartupParameters = [("search_path", schema)] }
        let store = PostgresProviderStore(client: client, runner: runner, logger: logger, listenerConfiguration: listenerConfiguration)
        do {
            try await store.migrate(creatingSchema: schema)
        } catch {
            runner.cancel()
            throw ServerSetupError("cannot use the database at \(redacted(url)): \(String(reflecting: error))")
        }
        return store
    }

    /// Closes every connection.
    public func close() async throws {
        runner.cancel()
        await runner.value
    }

    /// What a `postgres://` URL says.
    struct Address {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String?
        var sslMode: String
        /// The PostgreSQL schema the tables live in (`?schema=NAME`), if not the default.
        var schema: String?

        init(_ url: String) throws {
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let host = components.host, !host.isEmpty
            else {
                throw ServerSetupError("'\(redacted(url))' is not a PostgreSQL URL; write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
            }
            self.host = host
            port = components.port ?? 5432
            username = components.user ?? "postgres"
            password = components.password
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            database = path.isEmpty ? nil : path
            // Encrypted by default, unless the database is on this machine.
            sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? (Self.isLoopback(host) ? "disable" : "require")
            schema = components.queryItems?.first { $0.name == "schema" }?.value
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw ServerSetupError("sslmode '\(sslMode)' is not supported; use disable, prefer or require")
            }
        }

        /// Whether `host` names this machine.
        static func isLoopback(_ host: String) -> Bool {
            ["localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.") || host.hasPrefix("/")
        }

        var clientConfiguration: PostgresClient.Configuration {
            let tls: PostgresClient.Configuration.TLS =
                switch sslMode {
                case "require": .require(.makeClientConfiguration())
                case "prefer": .prefer(.makeClientConfiguration())
                default: .disable
                }
            return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let tls: PostgresConnection.Configuration.TLS =
                switch sslMode {
                case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case "prefer": .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .disable
                }
            return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
    }

    /// `url` without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

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
    ]

    /// A key of PostgreSQL's advisory locks that no other use of the database takes: the schema's.
    private static let migrationLock = 0x636C_6177

    /// Creates the schema (when named) and migrates the tables, all under one advisory lock, so
    /// nodes starting at once do it once (`CREATE SCHEMA IF NOT EXISTS` alone races).
    private func migrate(creatingSchema schema: String?) async throws {
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

    /// The HS256 key every node signs and verifies tokens with: made by the first node that asks
    /// (32 random bytes), then the same for all.
    public func signingKey() async throws -> [UInt8] {
        let candidate = ByteBuffer(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max) })
        try await client.query(
            "INSERT INTO settings (name, value) VALUES ('signing_key', \(candidate)) ON CONFLICT (name) DO NOTHING", logger: logger)
        for try await value in try await client.query("SELECT value FROM settings WHERE name = 'signing_key'", logger: logger).decode(
            ByteBuffer.self)
        {
            return Array(value.readableBytesView)
        }
        throw StoreFailure("the signing key was neither stored nor found")
    }

    // MARK: Devices

    private typealias DeviceRow = (String, String?, String?, String, Bool, String, Double, Double?, String)
    private static let deviceColumns = "device_id, user_id, claimed_name, device_info, is_admin, status, paired_at, last_seen, pairing_note"

    public func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await devices(
            """
            SELECT \(unescaped: Self.deviceColumns) FROM devices
            WHERE device_id = \(deviceID)
            """
        ).first
    }

    public func devices() async throws -> [DeviceRecord] {
        try await devices(
            "SELECT \(unescaped: Self.deviceColumns) FROM devices ORDER BY position")
    }

    private func devices(_ query: PostgresQuery) async throws -> [DeviceRecord] {
        var devices: [DeviceRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(DeviceRow.self) {
            guard let status = DeviceRecord.Status(rawValue: row.5) else { continue }
            devices.append(
                DeviceRecord(
                    deviceID: row.0, userID: row.1, claimedName: row.2, deviceInfo: row.3, isAdmin: row.4, status: status,
                    pairedAt: Date(timeIntervalSince1970: row.6), lastSeen: row.7.map(Date.init(timeIntervalSince1970:)),
                    pairingNote: DeviceRecord.PairingNote(rawValue: row.8) ?? .none))
        }
        return devices
    }

    public func save(_ device: DeviceRecord) async throws {
        try await client.query(Self.upsert(device), logger: logger)
    }

    public func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.firstAdminLock))", logger: logger)
            let admins = try await connection.query(
                "SELECT 1 FROM devices WHERE is_admin AND status = 'approved' LIMIT 1", logger: logger
            ).collect()
            guard admins.isEmpty else { return false }
            try await connection.query(Self.upsert(device), logger: logger)
            return true
        }
    }

    /// The advisory lock of the first-admin race.
    private static let firstAdminLock = 0x636C_6178

    private static func upsert(_ device: DeviceRecord) -> PostgresQuery {
        """
        INSERT INTO devices (\(unescaped: deviceColumns))
        VALUES (\(device.deviceID), \(device.userID), \(device.claimedName), \(device.deviceInfo), \(device.isAdmin),
            \(device.status.rawValue), \(device.pairedAt.timeIntervalSince1970), \(device.lastSeen?.timeIntervalSince1970),
            \(device.pairingNote.rawValue))
        ON CONFLICT (device_id) DO UPDATE SET user_id = excluded.user_id, claimed_name = excluded.claimed_name,
            device_info = excluded.device_info, is_admin = excluded.is_admin, status = excluded.status,
            paired_at = excluded.paired_at, last_seen = excluded.last_seen, pairing_note = excluded.pairing_note
        """
    }

    public func removeDevice(_ deviceID: String) async throws {
        try await client.query("DELETE FROM devices WHERE device_id = \(deviceID)", logger: logger)
    }

    public func markSeen(_ deviceID: String, at date: Date) async throws {
        try await client.query("UPDATE devices SET last_seen = \(date.timeIntervalSince1970) WHERE device_id = \(deviceID)", logger: logger)
    }

    public func setPairingNote(_ note: DeviceRecord.PairingNote, of deviceID: String) async throws {
        try await client.query("UPDATE devices SET pairing_note = \(note.rawValue) WHERE device_id = \(deviceID)", logger: logger)
    }

    public func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord] {
        try await devices(
            """
            SELECT \(unescaped: Self.deviceColumns) FROM devices
            WHERE device_id = ANY(\(deviceIDs))
            """)
    }

    // MARK: Assets

    private typealias AssetRow = (String, String, String, Int, Double, Bool)

    public func save(_ asset: AssetRecord) async throws {
        try await client.query(Self.upsert(asset), logger: logger)
    }

    private static func upsert(_ asset: AssetRecord) -> PostgresQuery {
        """
        INSERT INTO assets (asset_id, user_id, mime_type, size, uploaded_at, referenced)
        VALUES (
            \(asset.assetID), \(asset.userID), \(asset.mimeType), \(asset.size), \(asset.uploadedAt.timeIntervalSince1970),
            \(asset.referenced))
        ON CONFLICT (asset_id) DO UPDATE SET user_id = excluded.user_id, mime_type = excluded.mime_type, size = excluded.size,
            uploaded_at = excluded.uploaded_at, referenced = excluded.referenced
        """
    }

    public func asset(_ assetID: String) async throws -> AssetRecord? {
        try await assets(
            "SELECT asset_id, user_id, mime_type, size, uploaded_at, referenced FROM assets WHERE asset_id = \(assetID)"
        ).first
    }

    public func storedUploadBytes(userID: String) async throws -> Int {
        var total = 0
        let rows = try await client.query("SELECT COALESCE(SUM(size), 0)::BIGINT FROM assets WHERE user_id = \(userID)", logger: logger)
        for try await bytes in rows.decode(Int.self) { total = bytes }
        return total
    }

    public func markReferenced(_ assetIDs: [String]) async throws {
        guard !assetIDs.isEmpty else { return }
        try await client.query("UPDATE assets SET referenced = TRUE WHERE asset_id = ANY(\(assetIDs))", logger: logger)
    }

    public func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await assets(
            """
            DELETE FROM assets WHERE NOT referenced AND uploaded_at < \(date.timeIntervalSince1970)
            RETURNING asset_id, user_id, mime_type, size, uploaded_at, referenced
            """)
    }

    private func assets(_ query: PostgresQuery) async throws -> [AssetRecord] {
        var assets: [AssetRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(AssetRow.self) {
            assets.append(
                AssetRecord(
                    assetID: row.0, userID: row.1, mimeType: row.2, size: row.3, uploadedAt: Date(timeIntervalSince1970: row.4),
                    referenced: row.5))
        }
        return assets
    }

    /// The size of the chunks upload bytes are kept in.
    static let assetChunkBytes = 1 << 20

    /// Upload bytes live in the database, so every node serves every upload.
    public func save(_ asset: AssetRecord, bytesFromFile path: String) async throws {
        let assetID = asset.assetID
        guard let file = FileHandle(forReadingAtPath: path) else { throw StoreFailure("cannot read \(path)") }
        defer { try? file.close() }
        let logger = logger
        // One transaction: the record (which the chunks reference) and every chunk commit together.
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(Self.upsert(asset), logger: logger)
            var index = 0
            while let chunk = try file.read(upToCount: Self.assetChunkBytes), !chunk.isEmpty {
                let bytes = ByteBuffer(bytes: chunk)
                try await connection.query(
                    "INSERT INTO asset_chunks (asset_id, chunk, bytes) VALUES (\(assetID), \(index), \(bytes))", logger: logger)
                index += 1
            }
        }
    }

    public func assetBytes(_ assetID: String, chunk index: Int) async throws -> [UInt8]? {
        for try await bytes in try await client.query(
            "SELECT bytes FROM asset_chunks WHERE asset_id = \(assetID) AND chunk = \(index)", logger: logger
        ).decode(ByteBuffer.self) {
            return Array(bytes.readableBytesView)
        }
        return nil
    }

    // MARK: Messages and events

    public func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        let logger = logger
        let claim: (String, String, Bool)? = try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(echo.userID, on: connection, logger: logger)
            let claimed = try await connection.query(
                """
                INSERT INTO client_messages (device_id, client_id, fingerprint, event_id)
                VALUES (\(deviceID), \(clientMessageID), \(fingerprint), \(echo.eventID))
                ON CONFLICT (device_id, client_id) DO NOTHING RETURNING event_id
                """, logger: logger
            ).collect()
            if !claimed.isEmpty {
                try await connection.query(
                    "INSERT INTO events (event_id, user_id, frame) VALUES (\(echo.eventID), \(echo.userID), \(echo.frame))", logger: logger)
                return nil
            }
            for try await row in try await connection.query(
                "SELECT fingerprint, event_id, failed FROM client_messages WHERE device_id = \(deviceID) AND client_id = \(clientMessageID)",
                logger: logger
            ).decode((String, String, Bool).self) {
                return row
            }
            throw StoreFailure("the message was neither claimed nor found")
        }
        guard let (storedFingerprint, eventID, failed) = claim else { return .accepted }
        if failed { return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id") }
        guard storedFingerprint == fingerprint else {
            return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
        }
        return .retry(eventID: eventID)
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await client.query(
            "UPDATE client_messages SET failed = TRUE WHERE device_id = \(deviceID) AND client_id = \(clientMessageID)", logger: logger)
    }

    public func append(_ event: StoredEvent) async throws {
        let logger = logger
        try await client.withTransaction(logger: logger) { connection in
            try await Self.lockAccount(event.userID, on: connection, logger: logger)
            try await connection.query(
                "INSERT INTO events (event_id, user_id, frame) VALUES (\(event.eventID), \(event.userID), \(event.frame))", logger: logger)
        }
    }

    /// Serialises the appends of one account until the transaction ends, so its events commit in
    /// the order of their sequence numbers.
    private static func lockAccount(_ userID: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(userID)))", logger: logger)
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        var rows: [(String, String)] = []
        let query: PostgresQuery = """
            SELECT event_id, frame FROM events
            WHERE user_id = \(userID) AND seq > COALESCE((SELECT seq FROM events WHERE event_id = \(cursor) AND user_id = \(userID)), 0)
            ORDER BY seq DESC LIMIT \(limit + 1)
            """
        for try await row in try await client.query(query, logger: logger).decode((String, String).self) { rows.append(row) }
        let events = rows.prefix(limit).reversed().map { StoredEvent(eventID: $0.0, userID: userID, frame: $0.1) }
        var unknown = false
        if let cursor {
            let found = try await client.query("SELECT 1 FROM events WHERE event_id = \(cursor) AND user_id = \(userID)", logger: logger).collect()
            unknown = found.isEmpty
        }
        return ReplayPage(events: events, truncated: rows.count > limit, cursorUnknown: unknown)
    }
}
