import Foundation
import Logging
import PostgresNIO

/// The devices table.
extension PostgresProviderStore {
    // MARK: Devices

    typealias DeviceRow = (String, String?, String?, String, Bool, String, Double, Double?, String)
    static let deviceColumns = "device_id, user_id, claimed_name, device_info, is_admin, status, paired_at, last_seen, pairing_note"

    public func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await rows(DeviceByID(deviceID: deviceID)).lazy.compactMap(Self.device).first
    }

    public func devices() async throws -> [DeviceRecord] {
        try await devices(
            "SELECT \(unescaped: Self.deviceColumns) FROM devices ORDER BY position")
    }

    private func devices(_ query: PostgresQuery) async throws -> [DeviceRecord] {
        var devices: [DeviceRecord] = []
        for try await row in try await client.query(query, logger: logger).decode(DeviceRow.self) {
            if let device = Self.device(row) { devices.append(device) }
        }
        return devices
    }

    /// The device a row holds; `nil` for a status this version does not know.
    private static func device(_ row: DeviceRow) -> DeviceRecord? {
        guard let status = DeviceRecord.Status(rawValue: row.5) else { return nil }
        return DeviceRecord(
            deviceID: row.0, userID: row.1, claimedName: row.2, deviceInfo: row.3, isAdmin: row.4, status: status,
            pairedAt: Date(timeIntervalSince1970: row.6), lastSeen: row.7.map(Date.init(timeIntervalSince1970:)),
            pairingNote: DeviceRecord.PairingNote(rawValue: row.8) ?? .none)
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
        _ = try await rows(MarkSeen(seconds: date.timeIntervalSince1970, deviceID: deviceID))
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

    public func devicesRevision() async throws -> Int? {
        for try await value in try await client.query("SELECT value FROM device_revision", logger: logger).decode(Int.self) {
            return value
        }
        return nil
    }

    public func accountExists(_ userID: String) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM devices WHERE user_id = \(userID) UNION ALL SELECT 1 FROM events WHERE user_id = \(userID) LIMIT 1", logger: logger
        ).collect()
        return !rows.isEmpty
    }
}
