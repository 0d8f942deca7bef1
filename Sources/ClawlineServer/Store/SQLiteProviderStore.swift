import Foundation
import Logging
import SQLiteNIO

/// The default ``ProviderStore``: one SQLite file (sqlite-nio, which carries SQLite itself, so
/// nothing needs installing), in write-ahead-log mode, used by one connection one operation at
/// a time. Writes are group-committed: those that queue up while a commit is on its way share the
/// next transaction (a group commit), and each returns once its transaction has committed.
/// A second connection checkpoints the log in the background, so the writes never wait for it.
///
/// Durability: with `synchronous` `NORMAL` (the default here) a commit is in the log before the
/// call returns, so a process that dies (SIGKILL, a crash) loses nothing acknowledged; a power
/// failure or kernel crash may lose the last commits. `FULL` survives those too at one fsync per
/// commit; group commit shares that fsync among the writes that waited for it, so a busy node
/// pays one per batch rather than one per message.
public final class SQLiteProviderStore: ProviderStore {
    private let connection: SQLiteConnection
    private let lock = AsyncLock()
    private let writes = GroupCommit()
    private let checkpointer: LogCheckpointer?

    private init(connection: SQLiteConnection, checkpointer: LogCheckpointer?) {
        self.connection = connection
        self.checkpointer = checkpointer
    }

    /// How SQLite makes commits durable.
    public enum Durability: String, Sendable {
        /// Commits survive the process dying (the default).
        case processCrash = "NORMAL"
        /// Commits survive power failure too (an fsync per commit).
        case powerFailure = "FULL"
    }

    /// Opens (creating it if needed, mode 0600, which SQLite's log files inherit) the database at
    /// `path`; `nil` for a database in memory.
    public static func open(
        path: String?, durability: Durability = .processCrash, logger: Logger = Logger(label: "clawline.store")
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
        let connection = try await SQLiteConnection.open(storage: path.map { .file(path: $0) } ?? .memory, logger: logger)
        do {
            try await migrate(connection, durability: durability)
            // The log is checkpointed by a connection of its own, off the writers' path.
            guard let path else { return SQLiteProviderStore(connection: connection, checkpointer: nil) }
            _ = try await connection.query("PRAGMA wal_autocheckpoint = 0")
            let checkpointer = try await LogCheckpointer.start(path: path, logger: logger)
            return SQLiteProviderStore(connection: connection, checkpointer: checkpointer)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Closes the database (the last checkpoint runs on the way).
    public func close() async throws {
        await checkpointer?.stop()
        try await lock.withLock { try await connection.close() }
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
    ]

    /// The number the next event of the account `userID` (an SQL expression) gets. Writes are
    /// serialised on one connection, so two events never get one number.
    private static func nextNumber(_ userID: String) -> String {
        "(SELECT COALESCE(MAX(number), 0) + 1 FROM events WHERE user_id = \(userID))"
    }

    private static func migrate(_ connection: SQLiteConnection, durability: Durability) async throws {
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query("PRAGMA synchronous=\(durability.rawValue)")
        // Another process (the operator commands) may hold the write lock for a moment.
        _ = try await connection.query("PRAGMA busy_timeout = 5000")
        let version = Int(try await connection.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0)
        guard version < Self.migrations.count else { return }
        try await GroupCommit.transaction(on: connection) {
            for statement in Self.migrations[version...].joined() {
                _ = try await connection.query(statement)
            }
            _ = try await connection.query("PRAGMA user_version = \(Self.migrations.count)")
        }
    }

    /// Runs a read.
    private func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await lock.withLock { try await connection.query(sql, binds) }
    }

    /// Runs a write in the next group commit and returns once it has committed.
    private func write<T: Sendable>(
        isOneStatement: Bool = false, _ body: @escaping @Sendable (SQLiteConnection) async throws -> T
    ) async throws -> T {
        try await writes.write(on: connection, lock: lock, isOneStatement: isOneStatement, body)
    }

    /// Runs one statement that writes, in the next group commit.
    @discardableResult
    private func write(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await write(isOneStatement: true) { try await $0.query(sql, binds) }
    }

    // MARK: Devices

    private static let deviceColumns = "device_id, user_id, claimed_name, device_info, is_admin, status, paired_at, last_seen, pairing_note"

    public func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await query("SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?", [.text(deviceID)]).first.flatMap(Self.device)
    }

    public func devices() async throws -> [DeviceRecord] {
        try await query("SELECT \(Self.deviceColumns) FROM devices ORDER BY position").compactMap(Self.device)
    }

    public func save(_ device: DeviceRecord) async throws {
        try await write(isOneStatement: true) { try await Self.insert(device, on: $0) }
    }

    /// Inserts or replaces a device (inside a write).
    private static func insert(_ device: DeviceRecord, on connection: SQLiteConnection) async throws {
        _ = try await connection.query(
            """
            INSERT INTO devices (\(Self.deviceColumns), position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM devices))
            ON CONFLICT (device_id) DO UPDATE SET user_id = excluded.user_id, claimed_name = excluded.claimed_name,
                device_info = excluded.device_info, is_admin = excluded.is_admin, status = excluded.status,
                paired_at = excluded.paired_at, last_seen = excluded.last_seen, pairing_note = excluded.pairing_note
            """,
            [
                .text(device.deviceID), device.userID.map(SQLiteData.text) ?? .null, device.claimedName.map(SQLiteData.text) ?? .null,
                .text(device.deviceInfo), .integer(device.isAdmin ? 1 : 0), .text(device.status.rawValue),
                .float(device.pairedAt.timeIntervalSince1970), device.lastSeen.map { .float($0.timeIntervalSince1970) } ?? .null,
                .text(device.pairingNote.rawValue),
            ])
    }

    public func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool {
        // A write is a transaction's part: nothing comes between the check and the insert.
        try await write { connection in
            let admins = try await connection.query("SELECT 1 FROM devices WHERE is_admin = 1 AND status = 'approved' LIMIT 1")
            guard admins.isEmpty else { return false }
            try await Self.insert(device, on: connection)
            return true
        }
    }

    public func removeDevice(_ deviceID: String) async throws {
        try await write("DELETE FROM devices WHERE device_id = ?", [.text(deviceID)])
    }

    public func markSeen(_ deviceID: String, at date: Date) async throws {
        try await write("UPDATE devices SET last_seen = ? WHERE device_id = ?", [.float(date.timeIntervalSince1970), .text(deviceID)])
    }

    public func setPairingNote(_ note: DeviceRecord.PairingNote, of deviceID: String) async throws {
        try await write("UPDATE devices SET pairing_note = ? WHERE device_id = ?", [.text(note.rawValue), .text(deviceID)])
    }

    public func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord] {
        var records: [DeviceRecord] = []
        // At most 500 binds a statement, well within SQLite's limit.
        for start in stride(from: 0, to: deviceIDs.count, by: 500) {
            let ids = deviceIDs[start..<min(start + 500, deviceIDs.count)]
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            records += try await query("SELECT \(Self.deviceColumns) FROM devices WHERE device_id IN (\(marks))", ids.map { .text($0) })
                .compactMap(Self.device)
        }
        return records
    }

    public func devicesRevision() async throws -> Int? {
        try await query("SELECT value FROM device_revision").first?.column("value")?.integer
    }

    public func accountExists(_ userID: String) async throws -> Bool {
        let sql = "SELECT 1 FROM devices WHERE user_id = ? UNION ALL SELECT 1 FROM events WHERE user_id = ? LIMIT 1"
        return try await !query(sql, [.text(userID), .text(userID)]).isEmpty
    }

    private static func device(_ row: SQLiteRow) -> DeviceRecord? {
        guard let deviceID = row.column("device_id")?.string, let status = row.column("status")?.string.flatMap(DeviceRecord.Status.init),
            let pairedAt = row.column("paired_at")?.double
        else { return nil }
        return DeviceRecord(
            deviceID: deviceID, userID: row.column("user_id")?.string, claimedName: row.column("claimed_name")?.string,
            deviceInfo: row.column("device_info")?.string ?? "{}", isAdmin: row.column("is_admin")?.bool ?? false, status: status,
            pairedAt: Date(timeIntervalSince1970: pairedAt), lastSeen: row.column("last_seen")?.double.map(Date.init(timeIntervalSince1970:)),
            pairingNote: row.column("pairing_note")?.string.flatMap(DeviceRecord.PairingNote.init) ?? .none)
    }

    // MARK: Assets

    public func save(_ asset: AssetRecord) async throws {
        try await write(
            "INSERT OR REPLACE INTO assets (asset_id, user_id, mime_type, size, uploaded_at, referenced) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(asset.assetID), .text(asset.userID), .text(asset.mimeType), .integer(asset.size),
                .float(asset.uploadedAt.timeIntervalSince1970), .integer(asset.referenced ? 1 : 0),
            ])
    }

    public func asset(_ assetID: String) async throws -> AssetRecord? {
        try await query("SELECT * FROM assets WHERE asset_id = ?", [.text(assetID)]).first.flatMap(Self.asset)
    }

    public func storedUploadBytes(userID: String) async throws -> Int {
        let rows = try await query("SELECT COALESCE(SUM(size), 0) AS bytes FROM assets WHERE user_id = ?", [.text(userID)])
        return rows.first?.column("bytes")?.integer ?? 0
    }

    public func markReferenced(_ assetIDs: [String]) async throws {
        guard !assetIDs.isEmpty else { return }
        try await write { connection in
            for assetID in assetIDs {
                _ = try await connection.query("UPDATE assets SET referenced = 1 WHERE asset_id = ?", [.text(assetID)])
            }
        }
    }

    public func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await write("DELETE FROM assets WHERE referenced = 0 AND uploaded_at < ? RETURNING *", [.float(date.timeIntervalSince1970)])
            .compactMap(Self.asset)
    }

    private static func asset(_ row: SQLiteRow) -> AssetRecord? {
        guard let assetID = row.column("asset_id")?.string, let userID = row.column("user_id")?.string,
            let mimeType = row.column("mime_type")?.string, let size = row.column("size")?.integer,
            let uploadedAt = row.column("uploaded_at")?.double
        else { return nil }
        return AssetRecord(
            assetID: assetID, userID: userID, mimeType: mimeType, size: size, uploadedAt: Date(timeIntervalSince1970: uploadedAt),
            referenced: row.column("referenced")?.bool ?? false)
    }

    // MARK: Messages and events

    public func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        // One statement, atomic on its own: it claims the id and (by the trigger) stores the
        // echo, or leaves the earlier claim as it was and returns it. The read after it only
        // learns the new event's number.
        let (rows, number) = try await write(isOneStatement: true) { connection in
            let rows = try await connection.query(
                """
                INSERT INTO client_messages (device_id, client_id, fingerprint, event_id, echo_user_id, echo_frame) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_id, client_id) DO UPDATE SET device_id = excluded.device_id
                RETURNING fingerprint, event_id, failed
                """,
                [.text(deviceID), .text(clientMessageID), .text(fingerprint), .text(echo.eventID), .text(echo.userID), .text(echo.frame)])
            guard rows.first?.column("event_id")?.string == echo.eventID else { return (rows, nil as Int?) }
            let stored = try await connection.query("SELECT number FROM events WHERE event_id = ?", [.text(echo.eventID)])
            return (rows, stored.first?.column("number")?.integer)
        }
        guard let claim = rows.first, let eventID = claim.column("event_id")?.string else { throw StoreFailure("the message was not stored") }
        if eventID == echo.eventID { return .accepted(number: number) }
        if claim.column("failed")?.bool == true {
            return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id")
        }
        guard claim.column("fingerprint")?.string == fingerprint else {
            return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
        }
        return .retry(eventID: eventID)
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await write(
            "UPDATE client_messages SET failed = 1 WHERE device_id = ? AND client_id = ?", [.text(deviceID), .text(clientMessageID)])
    }

    @discardableResult
    public func append(_ event: StoredEvent) async throws -> Int? {
        let rows = try await write(
            "INSERT INTO events (event_id, user_id, frame, number) VALUES (?, ?, ?, \(Self.nextNumber("?"))) RETURNING number",
            [.text(event.eventID), .text(event.userID), .text(event.frame), .text(event.userID)])
        return rows.first?.column("number")?.integer
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        // The cursor's place in the account's history, looked up once: it bounds the page and says
        // whether the cursor is known (an event id is never removed, so the two reads agree).
        var cursorSeq: Int?
        var cursorNumber = 0
        if let cursor {
            let found = try await query("SELECT seq, number FROM events WHERE event_id = ? AND user_id = ?", [.text(cursor), .text(userID)])
            cursorSeq = found.first?.column("seq")?.integer
            cursorNumber = found.first?.column("number")?.integer ?? 0
        }
        // The newest `limit + 1` after the cursor (all events when it is unknown), to tell whether
        // older ones were left out.
        let rows = try await query(
            "SELECT event_id, frame, number FROM events WHERE user_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?",
            [.text(userID), .integer(cursorSeq ?? 0), .integer(limit + 1)])
        let events = rows.prefix(limit).reversed().compactMap { row -> StoredEvent? in
            guard let eventID = row.column("event_id")?.string, let frame = row.column("frame")?.string else { return nil }
            return StoredEvent(eventID: eventID, userID: userID, frame: frame, number: row.column("number")?.integer)
        }
        // With nothing after the cursor, the cursor is the newest event.
        return ReplayPage(
            events: events, truncated: rows.count > limit, cursorUnknown: cursor != nil && cursorSeq == nil,
            newestNumber: events.last?.number ?? cursorNumber)
    }
}

extension SQLiteProviderStore: ReportsCommitBatches {
    func reportCommitBatches(to metrics: ServerMetrics) {
        writes.observeBatches { metrics.committedBatch(of: $0) }
    }
}
