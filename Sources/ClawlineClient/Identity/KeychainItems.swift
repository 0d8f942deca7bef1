import Foundation

/// What one keychain call came to, in portable terms (Security's `OSStatus` on Apple platforms).
enum KeychainOutcome: Sendable, Equatable {
    case success
    case itemNotFound
    /// Any other status, kept for the error message.
    case failed(Int32)
}

/// The keychain calls a secret store makes, one generic-password item per name under a service:
/// Security's `SecItem…` functions on Apple platforms (``KeychainSecretStore``), a fake in tests.
protocol KeychainCalls: Sendable {
    func copy(account: String) -> (KeychainOutcome, Data?)
    func update(account: String, data: Data) -> KeychainOutcome
    func add(account: String, data: Data) -> KeychainOutcome
    func delete(account: String) -> KeychainOutcome
}

/// A ``SecretStore`` over ``KeychainCalls``: every decision (absent is `nil`, a write updates or
/// else adds, removing nothing is fine, any other status is an error that names the item), so the
/// platform shim only makes the calls. Tested on every platform with a fake.
struct KeychainItems<Calls: KeychainCalls>: SecretStore {
    let calls: Calls

    func read(_ name: String) throws -> Data? {
        let (outcome, data) = calls.copy(account: name)
        switch outcome {
        case .success: return data
        case .itemNotFound: return nil
        case .failed(let status): throw ClawlineClientError.storage("keychain read of \(name) failed (\(status))")
        }
    }

    func write(_ value: Data, as name: String) throws {
        var outcome = calls.update(account: name, data: value)
        if outcome == .itemNotFound { outcome = calls.add(account: name, data: value) }
        guard outcome == .success else { throw ClawlineClientError.storage("keychain write of \(name) failed (\(Self.status(outcome)))") }
    }

    func remove(_ name: String) throws {
        let outcome = calls.delete(account: name)
        guard outcome == .success || outcome == .itemNotFound else {
            throw ClawlineClientError.storage("keychain delete of \(name) failed (\(Self.status(outcome)))")
        }
    }

    private static func status(_ outcome: KeychainOutcome) -> String {
        if case .failed(let status) = outcome { return "\(status)" }
        return "\(outcome)"
    }
}
