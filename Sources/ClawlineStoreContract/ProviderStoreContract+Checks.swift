import ClawlineServer
import Foundation

extension ProviderStoreContract {
    /// Every check of the contract.
    public static let checks: [Check] = [
        devices, devicesRevision, assets, clientMessages, pairingNotes, replay, unknownCursor, concurrency, numbering, assetBytes,
    ]

    /// What a replay page says, its events by id (the checks of numbers are apart).
    struct PageSummary: Equatable, CustomStringConvertible {
        var eventIDs: [String]
        var truncated: Bool
        var cursorUnknown = false

        init(_ eventIDs: [String], truncated: Bool, cursorUnknown: Bool = false) {
            (self.eventIDs, self.truncated, self.cursorUnknown) = (eventIDs, truncated, cursorUnknown)
        }

        init(_ page: ReplayPage) {
            self.init(page.events.map(\.eventID), truncated: page.truncated, cursorUnknown: page.cursorUnknown)
        }

        var description: String { "\(eventIDs)\(truncated ? ", truncated" : "")\(cursorUnknown ? ", cursor unknown" : "")" }
    }

    static func echo(_ id: String, user: String = "u") -> StoredEvent { StoredEvent(eventID: id, userID: user, frame: #"{"id":"\#(id)"}"#) }

    static func device(_ id: String, status: DeviceRecord.Status = .approved) -> DeviceRecord {
        DeviceRecord(
            deviceID: id, userID: "u", claimedName: "Phone \(id)", deviceInfo: #"{"model":"m","platform":"p"}"#, isAdmin: id == "a",
            status: status, pairedAt: Date(timeIntervalSince1970: 1_704_672_000.5))
    }

    static let devices = Check(name: "Devices are saved, replaced in place, listed in pairing order, marked seen, looked up by id and removed") {
        store, check in
        for id in ["a", "b", "c"] { try await store.save(device(id)) }
        try await store.save(device("a", status: .revoked))
        try await store.save(device("c", status: .denied))
        try await store.markSeen("b", at: Date(timeIntervalSince1970: 1_704_672_100))
        let devices = try await store.devices()
        check.expectEqual(devices.map(\.deviceID), ["a", "b", "c"], "the devices in pairing order")
        check.expectEqual(devices.first, device("a", status: .revoked), "a device replaced in place")
        check.expectEqual(devices.dropFirst().first?.lastSeen, Date(timeIntervalSince1970: 1_704_672_100), "when a device was seen")
        let found = try await store.devices(withIDs: ["c", "a", "unknown"]).sorted { $0.deviceID < $1.deviceID }
        check.expectEqual(found, [device("a", status: .revoked), device("c", status: .denied)], "the devices looked up by id")
        check.expect(try await store.devices(withIDs: []).isEmpty, "no ids look up no devices")
        try await store.removeDevice("b")
        check.expect(try await store.device("b") == nil, "a removed device is gone")
        check.expectEqual(try await store.device("c")?.status, .denied, "the status of another device")
        check.expect(try await store.accountExists("u"), "an account with devices exists")
        check.expect(try await !store.accountExists("nobody"), "an account no device or event names does not exist")
        try await store.append(echo("s_only", user: "events-only"))
        check.expect(try await store.accountExists("events-only"), "an account whose devices were removed exists while it has events")
    }

    static let assets = Check(name: "Uploads are kept while referenced and swept once old and unreferenced") { store, check in
        let old = Date(timeIntervalSince1970: 1000)
        for id in ["a_1", "a_2", "a_3"] {
            try await store.save(AssetRecord(assetID: id, userID: "u", mimeType: "image/png", size: 42, uploadedAt: id == "a_3" ? Date() : old))
        }
        try await store.save(AssetRecord(assetID: "a_4", userID: "v", mimeType: "image/png", size: 1000, uploadedAt: old))
        check.expectEqual(try await store.storedUploadBytes(userID: "u"), 126, "the bytes an account keeps")
        check.expectEqual(try await store.storedUploadBytes(userID: "nobody"), 0, "the bytes of an account with no uploads")
        try await store.markReferenced(["a_1"])
        check.expectEqual(try await store.asset("a_1")?.referenced, true, "a referenced upload")
        let swept = try await store.removeUnreferencedAssets(uploadedBefore: Date(timeIntervalSince1970: 2000))
        check.expectEqual(swept.map(\.assetID).sorted(), ["a_2", "a_4"], "the uploads swept")
        check.expectEqual(try await store.storedUploadBytes(userID: "u"), 84, "the bytes kept after the sweep")
        check.expect(try await store.asset("a_2") == nil, "a swept upload is gone")
        check.expectEqual(try await store.asset("a_3")?.size, 42, "a recent unreferenced upload is kept")
    }

    static let clientMessages = Check(name: "A client message id is claimed once per device with its echo; retries, conflicts and failed answers") {
        store, check in
        let new = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_1"))
        check.expect(new.isAccepted, "a new message is accepted, not \(new)")
        check.expectEqual(
            try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_2")), .retry(eventID: "s_1"), "a retry")
        let conflict = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "other", echo: echo("s_3"))
        check.expect(conflict.isConflict, "the same id with other content is a conflict, not \(conflict)")
        let otherDevice = try await store.accept(clientMessageID: "c_1", deviceID: "e", fingerprint: "f", echo: echo("s_4"))
        check.expect(otherDevice.isAccepted, "the same id from another device is accepted, not \(otherDevice)")
        try await store.markFailed(clientMessageID: "c_1", deviceID: "d")
        let afterFailure = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_5"))
        check.expect(afterFailure.isConflict, "a retry after a failed answer is a conflict, not \(afterFailure)")
        try await store.append(echo("s_6"))
        let page = try await store.events(userID: "u", after: nil, limit: 10)
        check.expectEqual(page.events.map(\.eventID), ["s_1", "s_4", "s_6"], "the events stored")
        check.expectEqual(page.events.first?.frame, #"{"id":"s_1"}"#, "an event's frame as stored")
    }

    static let devicesRevision = Check(
        name: "The devices' revision (when the store has one) moves when a device's status, account or pairing time changes, or it is removed"
    ) { store, check in
        try await store.save(device("a"))
        try await store.save(device("b"))
        guard var last = try await store.devicesRevision() else { return }
        check.expectEqual(try await store.devicesRevision(), last, "the revision with nothing changed")
        var changes: [(String, DeviceRecord?)] = [("a device revoked", device("a", status: .revoked))]
        var moved = device("b")
        moved.userID = "another account"
        changes.append(("a device moved to another account", moved))
        var paired = device("b")
        paired.pairedAt = Date(timeIntervalSince1970: 1_704_672_999)
        changes.append(("a device paired again", paired))
        changes.append(("a device removed", nil))
        for (change, record) in changes {
            if let record { try await store.save(record) } else { try await store.removeDevice("a") }
            let now = try await store.devicesRevision()
            check.expect(now != nil && now != last, "\(change) moves the revision (it stayed \(last))")
            last = now ?? last
        }
    }

    static let pairingNotes = Check(name: "A pairing note is kept with the device, changed alone, and survives a save that carries it") {
        store, check in
        try await store.save(device("a"))
        check.expectEqual(try await store.device("a")?.pairingNote, DeviceRecord.PairingNote.none, "a new device's note")
        for note in [DeviceRecord.PairingNote.tokenUndelivered, .tokenReissued, .denialUndelivered, .none] {
            try await store.setPairingNote(note, of: "a")
            check.expectEqual(try await store.device("a")?.pairingNote, note, "the note set")
        }
        var record = device("a", status: .denied)
        record.pairingNote = .denialUndelivered
        try await store.save(record)
        check.expectEqual(try await store.device("a"), record, "a saved record with its note")
    }

    static let replay = Check(name: "Replay: after a cursor, the newest up to the limit, truncation said, other accounts apart") { store, check in
        for number in 1...6 { try await store.append(echo("s_\(number)", user: number.isMultiple(of: 2) ? "v" : "u")) }
        check.expectEqual(
            PageSummary(try await store.events(userID: "u", after: "s_1", limit: 10)), PageSummary(["s_3", "s_5"], truncated: false),
            "the events after a cursor")
        check.expectEqual(
            PageSummary(try await store.events(userID: "u", after: nil, limit: 2)), PageSummary(["s_3", "s_5"], truncated: true),
            "the newest events up to the limit")
        check.expectEqual(try await store.events(userID: "u", after: "s_1", limit: 10).events.first?.frame, echo("s_3").frame, "a frame")
        check.expectEqual(try await store.events(userID: "v", after: "s_4", limit: 10).events.map(\.eventID), ["s_6"], "another account's events")
    }

    static let unknownCursor = Check(
        name: "Replay from a cursor the store does not know: the newest events, and the page says the cursor was unknown"
    ) { store, check in
        for index in 1...4 { try await store.append(echo("s_\(index)")) }
        try await store.append(echo("s_other", user: "v"))
        check.expectEqual(
            PageSummary(try await store.events(userID: "u", after: "s_missing", limit: 3)),
            PageSummary(["s_2", "s_3", "s_4"], truncated: true, cursorUnknown: true), "an unknown cursor")
        check.expect(
            try await store.events(userID: "u", after: "s_other", limit: 10).cursorUnknown, "another account's event is no cursor of this one")
        check.expectEqual(
            PageSummary(try await store.events(userID: "u", after: "s_2", limit: 10)), PageSummary(["s_3", "s_4"], truncated: false),
            "a known cursor")
        check.expect(try await !store.events(userID: "u", after: nil, limit: 10).cursorUnknown, "no cursor is not an unknown one")
    }

    static let concurrency = Check(name: "Concurrent retries of one id: exactly one is accepted; concurrent appends all replay in order") {
        store, check in
        let outcomes = try await withThrowingTaskGroup(of: MessageAcceptance.self) { group in
            for number in 0..<20 {
                group.addTask { try await store.accept(clientMessageID: "c_x", deviceID: "d", fingerprint: "f", echo: echo("s_e\(number)")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        check.expectEqual(outcomes.filter(\.isAccepted).count, 1, "accepted claims of one id")
        check.expectEqual(outcomes.filter { if case .retry = $0 { true } else { false } }.count, 19, "retries of one id")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<30 { group.addTask { try await store.append(echo("s_a\(number)")) } }
            try await group.waitForAll()
        }
        let page = try await store.events(userID: "u", after: nil, limit: 100)
        check.expectEqual(page.events.count, 31, "the events after concurrent appends")
        check.expectEqual(Set(page.events.map(\.eventID)).count, 31, "distinct events after concurrent appends")
    }

    static let numbering = Check(
        name: "A store that numbers events numbers each account's 1, 2, 3… in commit order, on replay too, and names the newest"
    ) { store, check in
        let first = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_1"))
        guard case .accepted(let number?) = first else { return }  // a store that does not number events
        check.expectEqual(number, 1, "an account's first event")
        check.expectEqual(try await store.append(echo("s_v1", user: "v")), 1, "another account's first event")
        check.expectEqual(try await store.append(echo("s_2")), 2, "an appended event")
        let retry = try await store.accept(clientMessageID: "c_1", deviceID: "d", fingerprint: "f", echo: echo("s_x"))
        check.expectEqual(retry, .retry(eventID: "s_1"), "a retry stores nothing, so takes no number")
        let numbers = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let acceptance = try await store.accept(
                        clientMessageID: "c_n\(index)", deviceID: "d", fingerprint: "f", echo: echo("s_n\(index)"))
                    guard case .accepted(let number) = acceptance else { return nil }
                    return number
                }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        check.expectEqual(numbers.compactMap { $0 }.sorted(), Array(3...22), "concurrent events' numbers: one each, no gap")
        let page = try await store.events(userID: "u", after: nil, limit: 100)
        check.expectEqual(page.events.map(\.number), (1...22).map { Optional($0) }, "the numbers replayed, in order")
        check.expectEqual(page.newestNumber, 22, "the newest number of a page")
        let tail = try await store.events(userID: "u", after: page.events.last?.eventID, limit: 100)
        check.expectEqual(tail.newestNumber, 22, "the newest number of an empty page after the newest event")
        check.expectEqual(try await store.events(userID: "nobody", after: nil, limit: 10).newestNumber, 0, "the newest number of no events")
    }

    static let assetBytes = Check(name: "A store that keeps upload bytes stores the record and the bytes together, and returns the bytes") {
        store, check in
        guard let bytesStore = store as? any AssetBytesStore else { return }
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw ContractSetupFailure("cannot write \(path)") }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let asset = AssetRecord(
            assetID: "a_bytes", userID: "u", mimeType: "video/mp4", size: bytes.count, uploadedAt: Date(timeIntervalSince1970: 1_704_672_000))
        try await bytesStore.save(asset, bytesFromFile: path)
        check.expectEqual(try await store.asset("a_bytes"), asset, "the record stored with the bytes")
        var read: [UInt8] = []
        var index = 0
        while let chunk = try await bytesStore.assetBytes("a_bytes", chunk: index) {
            read += chunk
            index += 1
        }
        check.expect(read == bytes, "the bytes read back are the bytes stored (\(read.count) of \(bytes.count))")
        do {
            try await bytesStore.save(
                AssetRecord(assetID: "a_missing", userID: "u", mimeType: "image/png", size: 1, uploadedAt: Date()), bytesFromFile: path + ".none")
            check.record("saving from a file that does not exist did not fail")
        } catch {
            check.expect(try await store.asset("a_missing") == nil, "a failed save leaves no record behind")
        }
    }
}

/// A check could not set itself up (a temporary file, say).
struct ContractSetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension MessageAcceptance {
    var isConflict: Bool { if case .conflict = self { true } else { false } }
    var isAccepted: Bool { if case .accepted = self { true } else { false } }
}
