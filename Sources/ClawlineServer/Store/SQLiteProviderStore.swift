import Foundation
import GRDB
import Logging

/// The default ``ProviderStore``: one SQLite file (through GRDB, on the system's SQLite: on Linux,
/// `libsqlite3-dev`), in write-ahead-log mode, used by one connection one operation at a time, on
/// that connection's serial queue. Statements are prepared once and kept. Writes are
/// group-committed: those that queue up while a commit is on its way share the next transaction
/// (a group commit), which runs as one job on the connection's queue, and each returns once its
/// transaction has committed. A second connection checkpoints the log in the background, so the
/// writes never wait for it.
///
/// Durability: with `synchronous` `NORMAL` (the default here) a commit is in the log before the
/// call returns, so a process that dies (SIGKILL, a crash) loses nothing acknowledged; a power
/// failure or kernel crash may lose the last commits. `FULL` survives those too at one fsync per
/// commit; group commit shares that fsync among the writes that waited for it, so a busy node
/// pays one per batch rather than one per message.
public final class SQLiteProviderStore: ProviderStore {
    private let connection: DatabaseQueue
    private let writes: GroupCommit
    private let checkpointer: LogCheckpointer?

    private init(connection: DatabaseQueue, checkpointer: LogCheckpointer?, commitWindow: Duration) {
        self.connection = connection
        self.checkpointer = checkpointer
        writes = GroupCommit(window: commitWindow)
    }

    /// How long the first write of a busy store waits for others to share its commit, unless
    /// `open` is told otherwise: 1 ms. On two cores at 2,000 messages a second it gave 6% to 33%
    /// more messages per CPU-second (a median of 24% in six runs), for an `ack` 0.4 to 2 ms later at
    /// the median; a write that comes after a quiet millisecond (a lone device's) commits at once.
    public static let defaultCommitWindow: Duration = .milliseconds(1)

    /// How SQLite makes commits durable.
    public enum Durability: String, Sendable {
        /// Commits survive the process dying (the default).
        case processCrash = "NORMAL"
        /// Commits survive power failure too (an fsync per commit).
        case powerFailure = "FULL"
    }

    /// Opens (creating it if needed, mode 0600, which SQLite's log files inherit) the database at
    /// `path`; `nil` for a database in memory. When writes come closer together than
    /// `commitWindow`, a batch waits that long for others to share its commit (`.zero`: every
    /// batch commits at once).
    public static func open(
        path: String?, durability: Durability = .processCrash, commitWindow: Duration = defaultCommitWindow,
        logger: Logger = Logger(label: "clawline.store")
    ) async throws -> SQLiteProviderStore {
        if let path {
            _ = try PrivateFile.create(at: path)
            let directory = (path as NSString).deletingLastPathComponent
            if PrivateFile.isOpenToOthers(directory.isEmpty ? "." : directory) {
                logger.warning(
                    "the database's directory can be read by other users; it holds the database (and, by default, the signing key)",
                    metadata: ["directory": "\(directory)", "fix": "chmod 700 \(directory)"])
            }
        }
        var configuration = Configuration()
        configuration.label = "clawline.store"
        // Another process (the operator commands) may hold the write lock for a moment.
        configuration.busyMode = .timeout(5)
        let connection = try path.map { try DatabaseQueue(path: $0, configuration: configuration) } ?? DatabaseQueue(configuration: configuration)
        do {
            try await connection.writeWithoutTransaction { try migrate($0, durability: durability) }
            // The log is checkpointed by a connection of its own, off the writers' path.
            guard let path else { return SQLiteProviderStore(connection: connection, checkpointer: nil, commitWindow: commitWindow) }
            try await connection.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            let checkpointer = try await LogCheckpointer.start(path: path, logger: logger)
            return SQLiteProviderStore(connection: connection, checkpointer: checkpointer, commitWindow: commitWindow)
        } catch {
            try? connection.close()
            throw error
        }
    }

    /// Closes the database (the last checkpoint runs on the way).
    public func close() async throws {
        await checkpointer?.stop()
        try connection.close()
    }

    /// The schema, one list of statements per version; a database at version N runs the lists after N.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY, user_id TEXT, claimed_name TEXT, device_info TEXT NOT NULL,
                is_admin INTEGER NOT NULL, status TEXT NOT NULL, paired_at REAL NOT NULL, last_seen REAL, position INTEGER NOT NULL)
            """,
            """
            CREATE TABLE events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, frame TEXT NOT NULL)
            """,
            "CREATE INDEX events_by_user ON events (user_id, seq)",
            """
            CREATE TABLE client_messages (
                device_id TEXT NOT NULL, client_id TEXT NOT NULL, fingerprint TEXT NOT NULL, event_id TEXT NOT NULL,
                failed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (device_id, client_id))
            """,
            """
            CREATE TABLE assets (
                asset_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, mime_type TEXT NOT NULL, size INTEGER NOT NULL,
                uploaded_at REAL NOT NULL, referenced INTEGER NOT NULL DEFAULT 0)
            """,
        ],
        [
            // A client message carries its echo until a trigger has stored it in `events`, so
            // claiming the id and storing the echo are one statement.
            "ALTER TABLE client_messages ADD COLUMN echo_user_id TEXT",
            "ALTER TABLE client_messages ADD COLUMN echo_frame TEXT",
            """
            CREATE TRIGGER client_message_echo AFTER INSERT ON client_messages WHEN NEW.echo_frame IS NOT NULL
            BEGIN
                INSERT INTO events (event_id, user_id, frame) VALUES (NEW.event_id, NEW.echo_user_id, NEW.echo_frame);
                UPDATE client_messages SET echo_frame = NULL WHERE rowid = NEW.rowid;
            END
            """,
        ],
        [
            // Fewer pages per commit (a commit writes every page it touches): events lose
            // AUTOINCREMENT (its counter is one more page per insert; events are never deleted, so
            // `seq` still only grows), and client messages live in their key's b-tree alone.
            "DROP TRIGGER client_message_echo",
            "CREATE TABLE events_v3 (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, frame TEXT NOT NULL)",
            "INSERT INTO events_v3 (seq, event_id, user_id, frame) SELECT seq, event_id, user_id, frame FROM events",
            "DROP TABLE events",
            "ALTER TABLE events_v3 RENAME TO events",
            "CREATE INDEX events_by_user ON events (user_id, seq)",
            """
            CREATE TABLE client_messages_v3 (
                device_id TEXT NOT NULL, client_id TEXT NOT NULL, fingerprint TEXT NOT NULL, event_id TEXT NOT NULL,
                failed INTEGER NOT NULL DEFAULT 0, echo_user_id TEXT, echo_frame TEXT, PRIMARY KEY (device_id, client_id)) WITHOUT ROWID
            """,
            """
            INSERT INTO client_messages_v3 (device_id, client_id, fingerprint, event_id, failed, echo_user_id, echo_frame)
            SELECT device_id, client_id, fingerprint, event_id, failed, echo_user_id, echo_frame FROM client_messages
            """,
            "DROP TABLE client_messages",
            "ALTER TABLE client_messages_v3 RENAME TO client_messages",
            """
            CREATE TRIGGER client_message_echo AFTER INSERT ON client_messages WHEN NEW.echo_frame IS NOT NULL
            BEGIN
                INSERT INTO events (event_id, user_id, frame) VALUES (NEW.event_id, NEW.echo_user_id, NEW.echo_frame);
                UPDATE client_messages SET echo_frame = NULL WHERE device_id = NEW.device_id AND client_id = NEW.client_id;
            END
            """,
        ],
        [
            // An upload's quota sums the account's uploads.
            "CREATE INDEX assets_by_user ON assets (user_id)"
        ],
        [
            // What a pairing left undone, shared by every process on the file.
            "ALTER TABLE devices ADD COLUMN pairing_note TEXT NOT NULL DEFAULT 'none'"
        ],
        [
            // Each account's events are numbered 1, 2, 3… in commit order (nodes send a socket an
            // account's events in that order); the events stored so far are numbered as they were.
            "ALTER TABLE events ADD COLUMN number INTEGER",
            """
            UPDATE events SET number = (SELECT COUNT(*) FROM events AS earlier WHERE earlier.user_id = events.user_id AND earlier.seq <= events.seq)
            """,
            "CREATE UNIQUE INDEX events_by_number ON events (user_id, number)",
            "DROP TRIGGER client_message_echo",
            """
            CREATE TRIGGER client_message_echo AFTER INSERT ON client_messages WHEN NEW.echo_frame IS NOT NULL
            BEGIN
                INSERT INTO events (event_id, user_id, frame, number)
                VALUES (NEW.event_id, NEW.echo_user_id, NEW.echo_frame, \(nextNumber("NEW.echo_user_id")));
                UPDATE client_messages SET echo_frame = NULL WHERE device_id = NEW.device_id AND client_id = NEW.client_id;
            END
            """,
        ],
        [
            // A counter of the changes that can end a device's sockets (`devicesRevision()`): the
            // maintenance looks up every connected device only when it moved.
            "CREATE TABLE device_revision (value INTEGER NOT NULL)",
            "INSERT INTO device_revision (value) VALUES (0)",
            """
            CREATE TRIGGER device_standing_changed AFTER UPDATE OF status, user_id, paired_at ON devices
            WHEN OLD.status IS NOT NEW.status OR OLD.user_id IS NOT NEW.user_id OR OLD.paired_at IS NOT NEW.paired_at
            BEGIN
                UPDATE device_revision SET value = value + 1;
            END
            """,
            """
            CREATE TRIGGER device_removed AFTER DELETE ON devices
            BEGIN
                UPDATE device_revision SET value = value + 1;
            END
            """,
        ],
        [
            // One page fewer per event stored: an account's events are in `number` order, which
            // is their `seq` order (both grow with each event the one writer stores, and the
            // numbers given to older events counted them in `seq` order), so replays read
            // `events_by_number` and the index by `seq` goes.
            "DROP INDEX events_by_user"
        ],
    ]

    /// The number the next event of the account `userID` (an SQL expression) gets. Writes are
    /// serialised on one connection, so two events never get one number.
    private static func nextNumber(_ userID: String) -> String {
        "(SELECT COALESCE(MAX(number), 0) + 1 FROM events WHERE user_id = \(userID))"
    }

    private static func migrate(_ database: Database, durability: Durability) throws {
        try database.execute(sql: "PRAGMA journal_mode=WAL")
        try database.execute(sql: "PRAGMA synchronous=\(durability.rawValue)")
        let version = try Int.fetchOne(database, sql: "PRAGMA user_version") ?? 0
        guard version < Self.migrations.count else { return }
        try GroupCommit.transaction(in: database) {
            for statement in Self.migrations[version...].joined() {
                try database.execute(sql: statement)
            }
            try database.execute(sql: "PRAGMA user_version = \(Self.migrations.count)")
        }
    }

    /// Runs a read on the connection's queue (in no transaction: each read is one statement, or
    /// reads rows that are never changed).
    private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await connection.unsafeRead(body)
    }

    /// Runs a write in the next group commit and returns once it has committed.
    private func write<T: Sendable>(isOneStatement: Bool = false, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writes.write(on: connection, isOneStatement: isOneStatement, body)
    }

    /// Runs one statement that writes, in the next group commit.
    private func write(_ sql: String, _ arguments: StatementArguments = []) async throws {
        try await write(isOneStatement: true) { try $0.cachedStatement(sql: sql).execute(arguments: arguments) }
    }

    // MARK: Devices

    private static let deviceColumns = "device_id, user_id, claimed_name, device_info, is_admin, status, paired_at, last_seen, pairing_note"

    public func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await read { try $0.rows("SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?", [deviceID]).first.flatMap(Self.device) }
    }

    public func devices() async throws -> [DeviceRecord] {
        try await read { try $0.rows("SELECT \(Self.deviceColumns) FROM devices ORDER BY position").compactMap(Self.device) }
    }

    public func save(_ device: DeviceRecord) async throws {
        try await write(isOneStatement: true) { try Self.insert(device, in: $0) }
    }

    /// Inserts or replaces a device (inside a write).
    private static func insert(_ device: DeviceRecord, in database: Database) throws {
        _ = try database.rows(
            """
            INSERT INTO devices (\(Self.deviceColumns), position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM devices))
            ON CONFLICT (device_id) DO UPDATE SET user_id = excluded.user_id, claimed_name = excluded.claimed_name,
                device_info = excluded.device_info, is_admin = excluded.is_admin, status = excluded.status,
                paired_at = excluded.paired_at, last_seen = excluded.last_seen, pairing_note = excluded.pairing_note
            """,
            [
                device.deviceID, device.userID, device.claimedName, device.deviceInfo, device.isAdmin ? 1 : 0, device.status.rawValue,
                device.pairedAt.timeIntervalSince1970, device.lastSeen?.timeIntervalSince1970, device.pairingNote.rawValue,
            ])
    }

    public func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool {
        // A write is a transaction's part: nothing comes between the check and the insert.
        try await write { database in
            let admins = try database.rows("SELECT 1 FROM devices WHERE is_admin = 1 AND status = 'approved' LIMIT 1")
            guard admins.isEmpty else { return false }
            try Self.insert(device, in: database)
            return true
        }
    }

    public func removeDevice(_ deviceID: String) async throws {
        try await write("DELETE FROM devices WHERE device_id = ?", [deviceID])
    }

    public func markSeen(_ deviceID: String, at date: Date) async throws {
        try await write("UPDATE devices SET last_seen = ? WHERE device_id = ?", [date.timeIntervalSince1970, deviceID])
    }

    public func setPairingNote(_ note: DeviceRecord.PairingNote, of deviceID: String) async throws {
        try await write("UPDATE devices SET pairing_note = ? WHERE device_id = ?", [note.rawValue, deviceID])
    }

    public func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord] {
        try await read { database in
            var records: [DeviceRecord] = []
            // At most 500 binds a statement, well within SQLite's limit; a statement of its own
            // for each count of ids, not kept.
            for start in stride(from: 0, to: deviceIDs.count, by: 500) {
                let ids = Array(deviceIDs[start..<min(start + 500, deviceIDs.count)])
                let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                let sql = "SELECT \(Self.deviceColumns) FROM devices WHERE device_id IN (\(marks))"
                records += try Row.fetchAll(database, sql: sql, arguments: StatementArguments(ids)).compactMap(Self.device)
            }
            return records
        }
    }

    public func devicesRevision() async throws -> Int? {
        try await read { try $0.rows("SELECT value FROM device_revision").first?["value"] }
    }

    public func accountExists(_ userID: String) async throws -> Bool {
        let sql = "SELECT 1 FROM devices WHERE user_id = ? UNION ALL SELECT 1 FROM events WHERE user_id = ? LIMIT 1"
        return try await read { try !$0.rows(sql, [userID, userID]).isEmpty }
    }

    private static func device(_ row: Row) -> DeviceRecord? {
        guard let deviceID: String = row["device_id"], let status = (row["status"] as String?).flatMap(DeviceRecord.Status.init),
            let pairedAt: Double = row["paired_at"]
        else { return nil }
        return DeviceRecord(
            deviceID: deviceID, userID: row["user_id"], claimedName: row["claimed_name"], deviceInfo: row["device_info"] ?? "{}",
            isAdmin: row["is_admin"] ?? false, status: status, pairedAt: Date(timeIntervalSince1970: pairedAt),
            lastSeen: (row["last_seen"] as Double?).map(Date.init(timeIntervalSince1970:)),
            pairingNote: (row["pairing_note"] as String?).flatMap(DeviceRecord.PairingNote.init) ?? .none)
    }

    // MARK: Assets

    public func save(_ asset: AssetRecord) async throws {
        try await write(
            "INSERT OR REPLACE INTO assets (asset_id, user_id, mime_type, size, uploaded_at, referenced) VALUES (?, ?, ?, ?, ?, ?)",
            [asset.assetID, asset.userID, asset.mimeType, asset.size, asset.uploadedAt.timeIntervalSince1970, asset.referenced ? 1 : 0])
    }

    public func asset(_ assetID: String) async throws -> AssetRecord? {
        try await read { try $0.rows("SELECT * FROM assets WHERE asset_id = ?", [assetID]).first.flatMap(Self.asset) }
    }

    public func storedUploadBytes(userID: String) async throws -> Int {
        try await read { try $0.rows("SELECT COALESCE(SUM(size), 0) AS bytes FROM assets WHERE user_id = ?", [userID]).first?["bytes"] ?? 0 }
    }

    public func markReferenced(_ assetIDs: [String]) async throws {
        guard !assetIDs.isEmpty else { return }
        try await write { database in
            for assetID in assetIDs {
                _ = try database.rows("UPDATE assets SET referenced = 1 WHERE asset_id = ?", [assetID])
            }
        }
    }

    public func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await write(isOneStatement: true) { database in
            try database.rows("DELETE FROM assets WHERE referenced = 0 AND uploaded_at < ? RETURNING *", [date.timeIntervalSince1970])
                .compactMap(Self.asset)
        }
    }

    private static func asset(_ row: Row) -> AssetRecord? {
        guard let assetID: String = row["asset_id"], let userID: String = row["user_id"], let mimeType: String = row["mime_type"],
            let size: Int = row["size"], let uploadedAt: Double = row["uploaded_at"]
        else { return nil }
        return AssetRecord(
            assetID: assetID, userID: userID, mimeType: mimeType, size: size, uploadedAt: Date(timeIntervalSince1970: uploadedAt),
            referenced: row["referenced"] ?? false)
    }

    // MARK: Messages and events

    public func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        // One transaction: the id is claimed and the echo stored together, or the earlier claim
        // is read as it was. (Migration 2's trigger stored an echo the claim carried; it fires
        // only for a claim with an `echo_frame`, which this store no longer writes, and stays so
        // that a build from before it still stores its echoes.)
        let (claim, number) = try await write { database -> (Claim?, Int?) in
            try database.cachedStatement(
                sql: """
                    INSERT INTO client_messages (device_id, client_id, fingerprint, event_id) VALUES (?, ?, ?, ?)
                    ON CONFLICT (device_id, client_id) DO NOTHING
                    """
            ).execute(arguments: [deviceID, clientMessageID, fingerprint, echo.eventID])
            if database.changesCount == 1 {
                let number = try Self.insertEvent(echo, in: database)
                return (Claim(eventID: echo.eventID, fingerprint: fingerprint, failed: false), number)
            }
            let row = try database.rows(
                "SELECT fingerprint, event_id, failed FROM client_messages WHERE device_id = ? AND client_id = ?", [deviceID, clientMessageID]
            ).first
            guard let row, let eventID: String = row["event_id"] else { return (nil, nil) }
            return (Claim(eventID: eventID, fingerprint: row["fingerprint"], failed: row["failed"] ?? false), nil)
        }
        guard let claim else { throw StoreFailure("the message was not stored") }
        let eventID = claim.eventID
        if eventID == echo.eventID { return .accepted(number: number) }
        if claim.failed {
            return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id")
        }
        guard claim.fingerprint == fingerprint else {
            return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
        }
        return .retry(eventID: eventID)
    }

    /// A client message id's claim, as `accept` found or made it.
    private struct Claim: Sendable {
        var eventID: String
        var fingerprint: String?
        var failed: Bool
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await write("UPDATE client_messages SET failed = 1 WHERE device_id = ? AND client_id = ?", [deviceID, clientMessageID])
    }

    /// Stores `event` as its account's next and returns its number.
    ///
    /// The statement is stepped to its end (`fetchAll`, not `fetchOne`, which resets it after the
    /// first row): outside a transaction SQLite commits the insert as the statement ends, and a
    /// commit that fails (a full disk) must throw here. A reset would drop that error, and the
    /// number of an event never stored would be handed out.
    private static func insertEvent(_ event: StoredEvent, in database: Database) throws -> Int? {
        let statement = try database.cachedStatement(
            sql: "INSERT INTO events (event_id, user_id, frame, number) VALUES (?, ?, ?, \(nextNumber("?"))) RETURNING number")
        return try Int.fetchAll(statement, arguments: [event.eventID, event.userID, event.frame, event.userID]).first
    }

    @discardableResult
    public func append(_ event: StoredEvent) async throws -> Int? {
        try await write(isOneStatement: true) { try Self.insertEvent(event, in: $0) }
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        try await read { database in
            // The cursor's place in the account's history, looked up once: it bounds the page and
            // says whether the cursor is known (an event id is never removed, so the two reads agree).
            var cursorNumber: Int?
            if let cursor {
                cursorNumber = try database.rows("SELECT number FROM events WHERE event_id = ? AND user_id = ?", [cursor, userID]).first?["number"]
            }
            // The newest `limit + 1` after the cursor (all events when it is unknown), to tell
            // whether older ones were left out. An account's events are numbered in the order
            // they were stored.
            let rows = try database.rows(
                "SELECT event_id, frame, number FROM events WHERE user_id = ? AND number > ? ORDER BY number DESC LIMIT ?",
                [userID, cursorNumber ?? 0, limit + 1])
            let events = rows.prefix(limit).reversed().compactMap { row -> StoredEvent? in
                guard let eventID: String = row["event_id"], let frame: String = row["frame"] else { return nil }
                return StoredEvent(eventID: eventID, userID: userID, frame: frame, number: row["number"])
            }
            // With nothing after the cursor, the cursor is the newest event.
            return ReplayPage(
                events: events, truncated: rows.count > limit, cursorUnknown: cursor != nil && cursorNumber == nil,
                newestNumber: events.last?.number ?? cursorNumber ?? 0)
        }
    }
}

extension SQLiteProviderStore: ReportsCommitBatches {
    func reportCommitBatches(to metrics: ServerMetrics) {
        writes.observeBatches { metrics.committedBatch(of: $0) }
    }
}

extension Database {
    /// The rows of `sql` with `arguments`, through a statement prepared once for this connection
    /// and kept (SQL with a varying shape, such as an `IN` list of any length, should not come here).
    fileprivate func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }
}
