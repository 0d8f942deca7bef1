import ClawlineServer
import Foundation

/// The `ProviderStore` contract as checks anyone can run against their own store: the checks the
/// SDK runs against its SQLite and PostgreSQL stores. Each check gets a fresh, empty store from
/// your factory, uses it, and closes it.
///
/// ```swift
/// let contract = ProviderStoreContract { try await MyStore.openEmpty() } close: { try await $0.close() }
/// for check in ProviderStoreContract.checks {
///     let failures = await contract.run(check)
///     // In Swift Testing: for failure in failures { Issue.record("\(failure)") }
/// }
/// ```
public struct ProviderStoreContract: Sendable {
    /// Makes a fresh, empty store.
    public typealias Factory = @Sendable () async throws -> any ProviderStore
    /// Closes a store a check is done with.
    public typealias Closer = @Sendable (any ProviderStore) async throws -> Void

    private let makeStore: Factory
    private let closeStore: Closer

    /// A contract run on the stores `makeStore` opens and `close` closes.
    public init(makeStore: @escaping Factory, close: @escaping Closer) {
        self.makeStore = makeStore
        closeStore = close
    }

    /// Runs one check on a fresh store; returns what broke the contract (empty when it held).
    public func run(_ check: Check) async -> [ContractFailure] {
        let recorder = FailureRecorder(check: check.name)
        do {
            let store = try await makeStore()
            do {
                try await check.body(store, recorder)
            } catch {
                recorder.record("threw \(error)")
            }
            try await closeStore(store)
        } catch {
            recorder.record("the store could not be opened or closed: \(error)")
        }
        return recorder.failures
    }

    /// Runs every check; returns what broke the contract.
    public func runAll() async -> [ContractFailure] {
        var failures: [ContractFailure] = []
        for check in Self.checks { failures += await run(check) }
        return failures
    }
}

/// One rule of the contract, named as the documentation of `ProviderStore` states it.
public struct Check: Sendable, CustomStringConvertible {
    /// What the check holds the store to.
    public let name: String
    let body: @Sendable (any ProviderStore, FailureRecorder) async throws -> Void

    public var description: String { name }
}

/// A rule a store broke: which check, and what was expected.
public struct ContractFailure: Error, Sendable, CustomStringConvertible {
    /// The check's name.
    public let check: String
    /// What was expected and what came back.
    public let message: String
    /// Where in the contract the expectation is.
    public let line: Int

    public var description: String { "\(check): \(message) (ProviderStoreContract line \(line))" }
}
