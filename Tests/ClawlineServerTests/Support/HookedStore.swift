import Foundation

@testable import ClawlineServer

/// A store that forwards to a real one, except where a test hooks in: storing a message can be
/// made to fail, and reading a replay page can be made to wait for the test.
struct HookedStore: ProviderStore {
    struct DiskFull: Error {}
    let base: any ProviderStore
    /// Replaces storing a message (it throws, say).
    var accept: (@Sendable () async throws -> MessageAcceptance)?
    /// Runs before a message is stored by the real store (it waits for the test, say).
    var beforeAccept: (@Sendable (_ clientMessageID: String) async -> Void)?
    /// Runs after the real store took a message (it throws, say, as if the answer of a commit
    /// were lost on its way back).
    var afterAccept: (@Sendable (_ clientMessageID: String) async throws -> Void)?
    /// Runs before a device's record is saved (it waits for the test, say).
    var beforeSave: (@Sendable (_ device: DeviceRecord) async -> Void)?
    /// Runs before each lookup of one device (it throws, say).
    var deviceLookup: (@Sendable () async throws -> Void)?
    /// Runs after each replay page is read, before it is returned (it waits, say, until another
    /// message has committed after the read).
    var afterEvents: (@Sendable (_ userID: String) async -> Void)?
    /// Runs before each replay page is read (it waits, say, until an answer has ended).
    var beforeEvents: (@Sendable (_ userID: String) async -> Void)?
    /// Told the ids of each lookup of several devices (the maintenance's, say).
    var devicesLookedUp: (@Sendable (_ deviceIDs: [String]) -> Void)?
    /// Whether the base store's devices revision is passed on; without it the store cannot tell
    /// when devices change, as the protocol's default.
    var tellsDeviceChanges = true

    func device(_ deviceID: String) async throws -> DeviceRecord? {
        try await deviceLookup?()
        return try await base.device(deviceID)
    }
    func devices() async throws -> [DeviceRecord] { try await base.devices() }
    func save(_ device: DeviceRecord) async throws {
        await beforeSave?(device)
        try await base.save(device)
    }
    func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool { try await base.saveFirstAdmin(device) }
    func removeDevice(_ deviceID: String) async throws { try await base.removeDevice(deviceID) }
    func markSeen(_ deviceID: String, at date: Date) async throws { try await base.markSeen(deviceID, at: date) }
    func setPairingNote(_ note: DeviceRecord.PairingNote, of deviceID: String) async throws {
        try await base.setPairingNote(note, of: deviceID)
    }
    func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord] {
        devicesLookedUp?(deviceIDs)
        return try await base.devices(withIDs: deviceIDs)
    }
    func devicesRevision() async throws -> Int? { tellsDeviceChanges ? try await base.devicesRevision() : nil }
    func accountExists(_ userID: String) async throws -> Bool { try await base.accountExists(userID) }
    func storedUploadBytes(userID: String) async throws -> Int { try await base.storedUploadBytes(userID: userID) }
    func save(_ asset: AssetRecord) async throws { try await base.save(asset) }
    func asset(_ assetID: String) async throws -> AssetRecord? { try await base.asset(assetID) }
    func markReferenced(_ assetIDs: [String]) async throws { try await base.markReferenced(assetIDs) }
    func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await base.removeUnreferencedAssets(uploadedBefore: date)
    }
    func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        if let accept { return try await accept() }
        await beforeAccept?(clientMessageID)
        let acceptance = try await base.accept(clientMessageID: clientMessageID, deviceID: deviceID, fingerprint: fingerprint, echo: echo)
        try await afterAccept?(clientMessageID)
        return acceptance
    }
    func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await base.markFailed(clientMessageID: clientMessageID, deviceID: deviceID)
    }
    func append(_ event: StoredEvent) async throws -> Int? { try await base.append(event) }
    func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        await beforeEvents?(userID)
        let page = try await base.events(userID: userID, after: cursor, limit: limit)
        await afterEvents?(userID)
        return page
    }
}
