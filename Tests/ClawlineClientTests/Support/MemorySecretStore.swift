import ClawlineClient
import Foundation
import NIOConcurrencyHelpers

/// Secrets in memory.
final class MemorySecretStore: SecretStore {
    private let values = NIOLockedValueBox<[String: Data]>([:])

    func read(_ name: String) throws -> Data? { values.withLockedValue { $0[name] } }
    func write(_ value: Data, as name: String) throws { values.withLockedValue { $0[name] = value } }
    func remove(_ name: String) throws { _ = values.withLockedValue { $0.removeValue(forKey: name) } }
}
