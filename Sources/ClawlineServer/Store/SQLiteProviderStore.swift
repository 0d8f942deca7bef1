import Foundation
import Logging
import SQLiteNIO

/// The default ``ProviderStore``: one SQLite file (sqlite-nio, which carries SQLite itself, so
/// nothing needs installing). Statements of one operation run as one transaction, one operation
/// at a time, in write-ahead-log mode.
///
/// Durability: with `synchronous` `NORMAL` (the default here) a commit is in the log before the
/// call returns, so a process that dies (SIGKILL, a crash) loses nothing acknowledged; a power
/// failure or kernel crash may lose the last commits. `FULL` survives those too at one fsync per
/// commit, which caps a node at a few hundred messages per second on ordinary disks.
public final class SQLiteProviderStore: ProviderStore {
    private let connection: SQLiteConnection
    private let lock = AsyncLock()

    /// The schema version this store writes; older files are migrated on open.
    static let schemaVersion = 1

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// How SQLite makes commits durable.
    public enum Durability: String, Sendable {
        /// Commits survive the process dying (the default).
        case processCrash = "NORMAL"
        /// Commits survive power failure too (an fsync per commit).
        case powerFailure = "FULL"
    }

    /// Opens (creating it if needed) the database at `path`; `nil` for a database in memory.
    public static func open(
        path: String?, durability: Durability = .processCrash, logger: Logger = Logger(label: "clawline.store")
    ) async throws -> SQLiteProviderStore {
        let connection = try await SQLiteConnection.open(storage: path.map { .file(path: $0) } ?? .memory, logger: logger)
        let store = SQLiteProviderStore(connection: connection)
        try await store.migrate(durability: durability)
        return store
    }

    /// Closes the database.
    public func close() async throws {
        try await connection.close()
    }

    private func migrate(durability: Durability) async throws {
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query("PRAGMA synchronous=\(durability.rawValue)")
        let version = try await connection.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
        guard version < Self.schemaVersion else { return }
        try await transaction {
            for statement in [
                """
                CREATE TABLE IF NOT EXISTS devices (
                    device_id TEXT PRIMARY KEY, user_id TEXT, claimed_name TEXT, device_info TEXT NOT NULL,
                    is_admin INTEGER NOT NULL, status TEXT NOT NULL, paired_at REAL NOT NULL, last_seen REAL, position INTEGER NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS events (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, frame TEXT NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS events_by_user ON events (user_id, seq)",
                """
                CREATE TABLE IF NOT EXISTS client_messages (
                    device_id TEXT NOT NULL, client_id TEXT NOT NULL, fingerprint TEXT NOT NULL, event_id TEXT NOT NULL,
                    failed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (device_id, client_id))
                """,
                """
                CREATE TABLE IF NOT EXISTS assets (
                    asset_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, mime_type TEXT NOT NULL, size INTEGER NOT NULL,
                    uploaded_at REAL NOT NULL, referenced INTEGER NOT NULL DEFAULT 0)
                """,
                "PRAGMA user_version = \(Self.schemaVersion)",
            ] {
                _ = try await connection.query(statement)
            }
        }
    }

    /// Runs `body` as one transaction, alone.
    private func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await lock.withLock {
            _ = try await connection.query("BEGIN IMMEDIATE")
            do {
                let value = try await body()
                _ = try await connection.query("COMMIT")
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }

    private func query(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await lock.withLock { try await connection.query(sql, binds) }
    }

    // MARK: Devices

    private static let deviceColumns = "device_id, user_id, claimed_name, device_info, is_admin, status, paired_at, last_seen"

    public func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await query("SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?", [.text(deviceID)]).first.flatMap(Self.device)
    }

    public func devices() async throws -> [DeviceRecord] {
        try await query("SELECT \(Self.deviceColumns) FROM devices ORDER BY position").compactMap(Self.device)
    }

    public func save(_ device: DeviceRecord) async throws {
        _ = try await query(
            """
            INSERT INTO devices (\(Self.deviceColumns), position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM devices))
            ON CONFLICT (device_id) DO UPDATE SET user_id = excluded.user_id, claimed_name = excluded.claimed_name,
                device_info = excluded.device_info, is_admin = excluded.is_admin, status = excluded.status,
                paired_at = excluded.paired_at, last_seen = excluded.last_seen
            """,
            [
                .text(device.deviceID), device.userID.map(SQLiteData.text) ?? .null, device.claimedName.map(SQLiteData.text) ?? .null,
                .text(device.deviceInfo), .integer(device.isAdmin ? 1 : 0), .text(device.status.rawValue),
                .float(device.pairedAt.timeIntervalSince1970), device.lastSeen.map { .float($0.timeIntervalSince1970) } ?? .null,
            ])
    }

    public func removeDevice(_ deviceID: String) async throws {
        _ = try await query("DELETE FROM devices WHERE device_id = ?", [.text(deviceID)])
    }

    public func markSeen(_ deviceID: String, at date: Date) async throws {
        _ = try await query("UPDATE devices SET last_seen = ? WHERE device_id = ?", [.float(date.timeIntervalSince1970), .text(deviceID)])
    }

    public func blockedDeviceIDs() async throws -> Set<String> {
        Set(try await query("SELECT device_id FROM devices WHERE status != 'approved'").compactMap { $0.column("device_id")?.string })
    }

    private static func device(_ row: SQLiteRow) -> DeviceRecord? {
        guard let deviceID = row.column("device_id")?.string, let status = row.column("status")?.string.flatMap(DeviceRecord.Status.init),
            let pairedAt = row.column("paired_at")?.double
        else { return nil }
        return DeviceRecord(
            deviceID: deviceID, userID: row.column("user_id")?.string, claimedName: row.column("claimed_name")?.string,
            deviceInfo: row.column("device_info")?.string ?? "{}", isAdmin: row.column("is_admin")?.bool ?? false, status: status,
            pairedAt: Date(timeIntervalSince1970: pairedAt), lastSeen: row.column("last_seen")?.double.map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Assets

    public func save(_ asset: AssetRecord) async throws {
        _ = try await query(
            "INSERT OR REPLACE INTO assets (asset_id, user_id, mime_type, size, uploaded_at, referenced) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(asset.assetID), .text(asset.userID), .text(asset.mimeType), .integer(asset.size),
                .float(asset.uploadedAt.timeIntervalSince1970), .integer(asset.referenced ? 1 : 0),
            ])
    }

    public func asset(_ assetID: String) async throws -> AssetRecord? {
        try await query("SELECT * FROM assets WHERE asset_id = ?", [.text(assetID)]).first.flatMap(Self.asset)
    }

    public func markReferenced(_ assetIDs: [String]) async throws {
        for assetID in assetIDs {
            _ = try await query("UPDATE assets SET referenced = 1 WHERE asset_id = ?", [.text(assetID)])
        }
    }

    public func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await transaction {
            let rows = try await connection.query(
                "SELECT * FROM assets WHERE referenced = 0 AND uploaded_at < ?", [.float(date.timeIntervalSince1970)])
            _ = try await connection.query("DELETE FROM assets WHERE referenced = 0 AND uploaded_at < ?", [.float(date.timeIntervalSince1970)])
            return rows.compactMap(Self.asset)
        }
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
        try await transaction {
            let existing = try await connection.query(
                "SELECT fingerprint, event_id, failed FROM client_messages WHERE device_id = ? AND client_id = ?",
                [.text(deviceID), .text(clientMessageID)]
            ).first
            if let existing {
                if existing.column("failed")?.bool == true {
                    return .conflict(reason: "the answer to '\(clientMessageID)' failed; send the message again under a new id")
                }
                guard existing.column("fingerprint")?.string == fingerprint else {
                    return .conflict(reason: "'\(clientMessageID)' was sent before with other content or attachments")
                }
                return .retry(eventID: existing.column("event_id")?.string ?? "")
            }
            _ = try await connection.query(
                "INSERT INTO client_messages (device_id, client_id, fingerprint, event_id) VALUES (?, ?, ?, ?)",
                [.text(deviceID), .text(clientMessageID), .text(fingerprint), .text(echo.eventID)])
            _ = try await connection.query(
                "INSERT INTO events (event_id, user_id, frame) VALUES (?, ?, ?)", [.text(echo.eventID), .text(echo.userID), .text(echo.frame)])
            return .accepted
        }
    }

    public func markFailed(clientMessageID: String, deviceID: String) async throws {
        _ = try await query(
            "UPDATE client_messages SET failed = 1 WHERE device_id = ? AND client_id = ?", [.text(deviceID), .text(clientMessageID)])
    }

    public func append(_ event: StoredEvent) async throws {
        _ = try await query(
            "INSERT INTO events (event_id, user_id, frame) VALUES (?, ?, ?)", [.text(event.eventID), .text(event.userID), .text(event.frame)])
    }

    public func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        try await transaction {
            var after: SQLiteData = .integer(0)
            if let cursor,
                let seq = try await connection.query(
                    "SELECT seq FROM events WHERE event_id = ? AND user_id = ?", [.text(cursor), .text(userID)]
                ).first?.column("seq")?.integer
            {
                after = .integer(seq)
            }
            // The newest `limit + 1` after the cursor, to tell whether older ones were left out.
            let rows = try await connection.query(
                "SELECT event_id, frame FROM events WHERE user_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?",
                [.text(userID), after, .integer(limit + 1)])
            let events = rows.prefix(limit).reversed().compactMap { row -> StoredEvent? in
                guard let eventID = row.column("event_id")?.string, let frame = row.column("frame")?.string else { return nil }
                return StoredEvent(eventID: eventID, userID: userID, frame: frame)
            }
            return ReplayPage(events: events, truncated: rows.count > limit)
        }
    }
}
