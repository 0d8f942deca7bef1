import Foundation
import GRDB
import Testing

@testable import ClawlineServer

/// The SQLite store's own migrations (the behaviour every store shares is `ProviderStoreContractTests`).
@Suite struct SQLiteStoreTests {
    func echo(_ id: String) -> StoredEvent { StoredEvent(eventID: id, userID: "u", frame: #"{"id":"\#(id)"}"#) }

    @Test func aVersionOneDatabaseIsMigratedKeepingItsRows() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-v1-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let old = try DatabaseQueue(path: path)
        try await old.writeWithoutTransaction { database in
            for statement in SQLiteProviderStore.migrations[0] { try database.execute(sql: statement) }
            try database.execute(sql: "INSERT INTO events (event_id, user_id, frame) VALUES ('s_old', 'u', '{}')")
            try database.execute(sql: "INSERT INTO client_messages (device_id, client_id, fingerprint, event_id) VALUES ('d', 'c_0', 'f', 's_old')")
            try database.execute(sql: "PRAGMA user_version = 1")
        }
        try old.close()

        let store = try await SQLiteProviderStore.open(path: path)
        // The claim made before the migration still holds: the same message again is a retry.
        #expect(try await store.accept(clientMessageID: "c_0", deviceID: "d", fingerprint: "f", echo: echo("s_again")) == .retry(eventID: "s_old"))
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_new")) == .accepted(number: 2))
        #expect(try await store.append(echo("s_answer")) == 3, "events stored before the migration are numbered, and later ones follow")
        let page = try await store.events(userID: "u", after: nil, limit: 10)
        #expect(page.events.map(\.eventID) == ["s_old", "s_new", "s_answer"])
        #expect(page.events.map(\.number) == [1, 2, 3])
        #expect(try await store.events(userID: "u", after: "s_new", limit: 10).events.map(\.eventID) == ["s_answer"])
        try await store.close()

        // Replays read the account's events by number: the index by `seq` is gone.
        let migrated = try DatabaseQueue(path: path)
        let indexes = try await migrated.read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'")
        }
        #expect(indexes.contains("events_by_number") && !indexes.contains("events_by_user"))
        try migrated.close()
    }
}
