import ClawlineStoreContract
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ClawlineServer

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

    @Test(
        "PostgreSQL: events stored before events were numbered are numbered by the migration, and later ones follow",
        .enabled(if: StoreKind.postgresURL != nil))
    func numberingMigration() async throws {
        let schema = "t_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        // A database as the version before numbering left it: events without numbers.
        let old = try await PostgresProviderStore.open(url: StoreKind.postgresURL!, schema: schema)
        let logger = Logger(label: "test")
        try await old.client.query("ALTER TABLE events DROP COLUMN number", logger: logger)
        // Nor the devices' revision, which came after.
        for statement in [
            "DROP TRIGGER device_standing_changed ON devices", "DROP TRIGGER device_removed ON devices", "DROP FUNCTION device_revision_bump()",
            "DROP TABLE device_revision",
        ] {
            try await old.client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        for (id, user) in [("s_1", "u"), ("s_2", "v"), ("s_3", "u")] {
            try await old.client.query("INSERT INTO events (event_id, user_id, frame) VALUES (\(id), \(user), '{}')", logger: logger)
        }
        try await old.client.query("UPDATE clawline_schema SET version = 3", logger: logger)
        try await old.close()

        let store = try await PostgresProviderStore.open(url: StoreKind.postgresURL!, schema: schema)
        let page = try await store.events(userID: "u", after: nil, limit: 10)
        #expect(page.events.map(\.eventID) == ["s_1", "s_3"])
        #expect(page.events.map(\.number) == [1, 2])
        #expect(try await store.append(StoredEvent(eventID: "s_4", userID: "u", frame: "{}")) == 3)
        #expect(try await store.events(userID: "v", after: nil, limit: 10).newestNumber == 1)
        try await store.close()
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
