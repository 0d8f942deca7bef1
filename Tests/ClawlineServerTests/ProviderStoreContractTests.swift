import ClawlineServer
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

/// The `ProviderStore` contract, the same for every store.
@Suite("ProviderStore contract")
struct ProviderStoreContractTests {
    static func echo(_ id: String, user: String = "u") -> StoredEvent { StoredEvent(eventID: id, userID: user, frame: #"{"id":"\#(id)"}"#) }

    static func device(_ id: String, status: DeviceRecord.Status = .approved) -> DeviceRecord {
        DeviceRecord(
            deviceID: id, userID: "u", claimedName: "Phone \(id)", deviceInfo: #"{"model":"m","platform":"p"}"#, isAdmin: id == "a",
            status: status, pairedAt: Date(timeIntervalSince1970: 1_704_672_000.5))
    }

    @Test("Devices are saved, replaced in place, listed in pairing order, marked seen, looked up by id and removed", arguments: StoreKind.available)
    func devices(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        for id in ["a", "b", "c"] { try await store.save(Self.device(id)) }
        try await store.save(Self.device("a", status: .revoked))
        try await store.save(Self.device("c", status: .denied))
        try await store.markSeen("b", at: Date(timeIntervalSince1970: 1_704_672_100))
        let devices = try await store.devices()
        #expect(devices.map(\.deviceID) == ["a", "b", "c"])
        #expect(devices[0] == Self.device("a", status: .revoked))
        #expect(devices[1].lastSeen == Date(timeIntervalSince1970: 1_704_672_100))
        let found = try await store.devices(withIDs: ["c", "a", "unknown"]).sorted { $0.deviceID < $1.deviceID }
        #expect(found == [Self.device("a", status: .revoked), Self.device("c", status: .denied)])
        #expect(try await store.devices(withIDs: []).isEmpty)
        try await store.removeDevice("b")
        #expect(try await store.device("b") == nil)
        #expect(try await store.device("c")?.status == .denied)
        try await opened.close()
    }

    @Test("Uploads are kept while referenced and swept once old and unreferenced", arguments: StoreKind.available)
    func assets(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        let old = Date(timeIntervalSince1970: 1000)
        for id in ["a_1", "a_2", "a_3"] {
            try await store.save(AssetRecord(assetID: id, userID: "u", mimeType: "image/png", size: 42, uploadedAt: id == "a_3" ? Date() : old))
        }
        try await store.save(AssetRecord(assetID: "a_4", userID: "v", mimeType: "image/png", size: 1000, uploadedAt: old))
        #expect(try await store.storedUploadBytes(userID: "u") == 126)
        #expect(try await store.storedUploadBytes(userID: "nobody") == 0)
        try await store.markReferenced(["a_1"])
        #expect(try await store.asset("a_1")?.referenced == true)
        let swept = try await store.removeUnreferencedAssets(uploadedBefore: Date(timeIntervalSince1970: 2000))
        #expect(swept.map(\.assetID).sorted() == ["a_2", "a_4"])
        #expect(try await store.storedUploadBytes(userID: "u") == 84)
        #expect(try await store.asset("a_2") == nil)
        #expect(try await store.asset("a_3")?.size == 42)
        try await opened.close()
    }

    @Test("A client message id is claimed once per device with its echo; retries, conflicts and failed answers", arguments: StoreKind.available)
    func clientMessages(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: Self.echo("s_1")) == .accepted)
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: Self.echo("s_2")) == .retry(eventID: "s_1"))
        guard case .conflict = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "other", echo: Self.echo("s_3")) else {
            throw TestFailure("expected a conflict")
        }
        #expect(try await store.accept(clientMessageID: "c_1", deviceID: "e", fingerprint: "f", echo: Self.echo("s_4")) == .accepted)
        try await store.markFailed(clientMessageID: "c_1", deviceID: "d")
        guard case .conflict = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: Self.echo("s_5")) else {
            throw TestFailure("expected a conflict after a failed answer")
        }
        try await store.append(Self.echo("s_6"))
        let page = try await store.events(userID: "u", after: nil, limit: 10)
        #expect(page.events.map(\.eventID) == ["s_1", "s_4", "s_6"])
        #expect(page.events.first?.frame == #"{"id":"s_1"}"#)
        try await opened.close()
    }

    @Test("A pairing note is kept with the device, changed alone, and survives a save that carries it", arguments: StoreKind.available)
    func pairingNotes(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        try await store.save(Self.device("a"))
        #expect(try await store.device("a")?.pairingNote == DeviceRecord.PairingNote.none)
        for note in [DeviceRecord.PairingNote.tokenUndelivered, .tokenReissued, .denialUndelivered, .none] {
            try await store.setPairingNote(note, of: "a")
            #expect(try await store.device("a")?.pairingNote == note)
        }
        var record = Self.device("a", status: .denied)
        record.pairingNote = .denialUndelivered
        try await store.save(record)
        #expect(try await store.device("a") == record)
        try await opened.close()
    }

    @Test("Replay from a cursor the store does not know: the newest events, and the page says the cursor was unknown", arguments: StoreKind.available)
    func unknownCursor(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        for index in 1...4 { try await store.append(Self.echo("s_\(index)")) }
        try await store.append(Self.echo("s_other", user: "v"))
        let unknown = try await store.events(userID: "u", after: "s_missing", limit: 3)
        #expect(unknown.cursorUnknown && unknown.truncated && unknown.events.map(\.eventID) == ["s_2", "s_3", "s_4"])
        let otherAccount = try await store.events(userID: "u", after: "s_other", limit: 10)
        #expect(otherAccount.cursorUnknown, "another account's event is no cursor of this one")
        let known = try await store.events(userID: "u", after: "s_2", limit: 10)
        #expect(!known.cursorUnknown && known.events.map(\.eventID) == ["s_3", "s_4"])
        #expect(try await !store.events(userID: "u", after: nil, limit: 10).cursorUnknown)
        try await opened.close()
    }

    @Test("Replay: after a cursor, the newest up to the limit, truncation said, other accounts apart", arguments: StoreKind.available)
    func replay(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        for number in 1...6 { try await store.append(Self.echo("s_\(number)", user: number.isMultiple(of: 2) ? "v" : "u")) }
        #expect(
            try await store.events(userID: "u", after: "s_1", limit: 10)
                == ReplayPage(events: [Self.echo("s_3"), Self.echo("s_5")], truncated: false))
        #expect(
            try await store.events(userID: "u", after: nil, limit: 2) == ReplayPage(events: [Self.echo("s_3"), Self.echo("s_5")], truncated: true))
        #expect(try await store.events(userID: "u", after: "s_unknown", limit: 10).events.count == 3)
        #expect(try await store.events(userID: "v", after: "s_4", limit: 10).events.map(\.eventID) == ["s_6"])
        try await opened.close()
    }

    @Test("Concurrent retries of one id: exactly one is accepted; concurrent appends all replay in order", arguments: StoreKind.available)
    func concurrency(kind: StoreKind) async throws {
        let opened = try await kind.open()
        let store = opened.store
        let outcomes = try await withThrowingTaskGroup(of: MessageAcceptance.self) { group in
            for number in 0..<20 {
                group.addTask { try await store.accept(clientMessageID: "c_x", deviceID: "d", fingerprint: "f", echo: Self.echo("s_e\(number)")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .accepted }.count == 1)
        #expect(outcomes.filter { if case .retry = $0 { true } else { false } }.count == 19)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<30 { group.addTask { try await store.append(Self.echo("s_a\(number)")) } }
            try await group.waitForAll()
        }
        let page = try await store.events(userID: "u", after: nil, limit: 100)
        #expect(page.events.count == 31)
        #expect(Set(page.events.map(\.eventID)).count == 31)
        try await opened.close()
    }

    @Test("PostgreSQL: nodes starting at once migrate the schema once", .enabled(if: StoreKind.postgresURL != nil))
    func concurrentMigrations() async throws {
        let schema = "t_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let stores = try await withThrowingTaskGroup(of: OpenedStore.self) { group in
            for _ in 0..<4 { group.addTask { try await StoreKind.postgres.open(schema: schema) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await stores[0].store.save(Self.device("a"))
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
