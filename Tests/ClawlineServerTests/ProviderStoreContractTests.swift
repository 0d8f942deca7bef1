import ClawlineServer
import ClawlineStoreContract
import Foundation
import Testing

/// A store the contract runs against: SQLite always, PostgreSQL when `CLAWLINE_TEST_POSTGRES_URL`
/// names a database (`.ci/run` starts a throwaway cluster; see the README).
enum StoreKind: String, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["CLAWLINE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The kinds this run tests.
    static var available: [StoreKind] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind (PostgreSQL: a schema of its own).
    func open(schema: String = "t_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))") async throws -> OpenedStore {
        switch self {
        case .sqlite:
            let store = try await SQLiteProviderStore.open(path: nil)
            return OpenedStore(store: store) { try await store.close() }
        case .postgres:
            let store = try await PostgresProviderStore.open(url: Self.postgresURL!, schema: schema)
            return OpenedStore(store: store) { try await store.close() }
        }
    }
}

/// A store and how to close it.
struct OpenedStore: Sendable {
    let store: any ProviderStore
    let close: @Sendable () async throws -> Void
}

/// The `ProviderStore` contract, the same for every store: the checks `ClawlineStoreContract`
/// ships, run on SQLite and (when a database is given) PostgreSQL.
@Suite("ProviderStore contract")
struct ProviderStoreContractTests {
    @Test("The contract holds", arguments: StoreKind.available, ProviderStoreContract.checks)
    func contract(kind: StoreKind, check: Check) async throws {
        let contract = ProviderStoreContract {
            try await kind.open().store
        } close: { store in
            try await (store as? SQLiteProviderStore)?.close()
            try await (store as? PostgresProviderStore)?.close()
        }
        for failure in await contract.run(check) { Issue.record("\(failure)") }
    }

    @Test("PostgreSQL: nodes starting at once migrate the schema once", .enabled(if: StoreKind.postgresURL != nil))
    func concurrentMigrations() async throws {
        let schema = "t_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let stores = try await withThrowingTaskGroup(of: OpenedStore.self) { group in
            for _ in 0..<4 { group.addTask { try await StoreKind.postgres.open(schema: schema) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await stores[0].store.save(
            DeviceRecord(deviceID: "a", userID: "u", claimedName: nil, deviceInfo: "{}", isAdmin: false, status: .approved, pairedAt: Date()))
        for opened in stores {
            #expect(try await opened.store.device("a") != nil)
            try await opened.close()
        }
    }

    @Test("PostgreSQL URLs: a clear error for a wrong one, and the password never shown")
    func postgresURLs() async throws {
        await #expect(throws: ServerSetupError.self) { try await PostgresProviderStore.open(url: "mysql://x@localhost/db") }
        do {
            _ = try await PostgresProviderStore.open(url: "postgres://me:secret@127.0.0.1:1/db")
            Issue.record("a closed port opened")
        } catch {
            #expect(!"\(error)".contains("secret"))
            #expect("\(error)".contains("postgres://me:***@127.0.0.1:1/db"))
        }
    }
}
