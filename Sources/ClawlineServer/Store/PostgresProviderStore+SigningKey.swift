import Foundation
import Logging
import PostgresNIO

/// The token signing key every node shares.
extension PostgresProviderStore {
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
}
