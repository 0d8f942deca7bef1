import Foundation
import SQLiteNIO
import Testing

@testable import ClawlineServer

/// The SQLite store on its own: one statement per operation, and its migrations.
@Suite struct SQLiteStoreTests {
    func echo(_ id: String) -> StoredEvent { StoredEvent(eventID: id, userID: "u", frame: #"{"id":"\#(id)"}"#) }

    @Test func aClientMessageIdIsClaimedOnceWithItsEcho() async throws {
        let store = try await SQLiteProviderStore.open(path: nil)
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_1")) == .accepted)
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_2")) == .retry(eventID: "s_1"))
        guard case .conflict = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "other", echo: echo("s_3")) else {
            throw TestFailure("expected a conflict")
        }
        // Another device may use the same client id.
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "e", fingerprint: "f", echo: echo("s_4")) == .accepted)
        try await store.markFailed(clientMessageID: "c_1", deviceID: "d")
        guard case .conflict = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_5")) else {
            throw TestFailure("expected a conflict after a failed answer")
        }
        let page = try await store.events(userID: "u", after: nil, limit: 10)
        #expect(page.events.map(\.eventID) == ["s_1", "s_4"])
        #expect(page.events.first?.frame == #"{"id":"s_1"}"#)
        try await store.close()
    }

    @Test func aVersionOneDatabaseIsMigratedKeepingItsRows() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-v1-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let old = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in SQLiteProviderStore.migrations[0] { _ = try await old.query(statement) }
        _ = try await old.query("INSERT INTO events (event_id, user_id, frame) VALUES ('s_old', 'u', '{}')")
        _ = try await old.query("PRAGMA user_version = 1")
        try await old.close()

        let store = try await SQLiteProviderStore.open(path: path)
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_new")) == .accepted)
        #expect(try await store.events(userID: "u", after: nil, limit: 10).events.map(\.eventID) == ["s_old", "s_new"])
        try await store.close()
    }
}
