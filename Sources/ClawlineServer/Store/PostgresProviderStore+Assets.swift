import Foundation
import Logging
import PostgresNIO

/// The uploads: their records and, for every node, their bytes.
extension PostgresProviderStore {
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
}
