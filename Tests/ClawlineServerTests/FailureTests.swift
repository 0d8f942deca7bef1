import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// A store that cannot store messages: everything else goes to the real one.
struct BrokenMessageStore: ProviderStore {
    struct DiskFull: Error {}
    let base: any ProviderStore

    func device(_ deviceID: String) async throws -> DeviceRecord? { try await base.device(deviceID) }
    func devices() async throws -> [DeviceRecord] { try await base.devices() }
    func save(_ device: DeviceRecord) async throws { try await base.save(device) }
    func saveFirstAdmin(_ device: DeviceRecord) async throws -> Bool { try await base.saveFirstAdmin(device) }
    func removeDevice(_ deviceID: String) async throws { try await base.removeDevice(deviceID) }
    func markSeen(_ deviceID: String, at date: Date) async throws { try await base.markSeen(deviceID, at: date) }
    func devices(withIDs deviceIDs: [String]) async throws -> [DeviceRecord] { try await base.devices(withIDs: deviceIDs) }
    func storedUploadBytes(userID: String) async throws -> Int { try await base.storedUploadBytes(userID: userID) }
    func save(_ asset: AssetRecord) async throws { try await base.save(asset) }
    func asset(_ assetID: String) async throws -> AssetRecord? { try await base.asset(assetID) }
    func markReferenced(_ assetIDs: [String]) async throws { try await base.markReferenced(assetIDs) }
    func removeUnreferencedAssets(uploadedBefore date: Date) async throws -> [AssetRecord] {
        try await base.removeUnreferencedAssets(uploadedBefore: date)
    }
    func accept(clientMessageID: String, deviceID: String, fingerprint: String, echo: StoredEvent) async throws -> MessageAcceptance {
        throw DiskFull()
    }
    func markFailed(clientMessageID: String, deviceID: String) async throws {
        try await base.markFailed(clientMessageID: clientMessageID, deviceID: deviceID)
    }
    func append(_ event: StoredEvent) async throws { try await base.append(event) }
    func events(userID: String, after cursor: String?, limit: Int) async throws -> ReplayPage {
        try await base.events(userID: userID, after: cursor, limit: limit)
    }
}

/// What the server answers when it cannot do its part.
@Suite struct FailureTests {
    @Test func aMessageThatCannotBeStoredIsAnsweredServerErrorAndNotAcknowledged() async throws {
        try await TestServer.run(wrapStore: { BrokenMessageStore(base: $0) }) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            socket.send(.typing(ClientTyping(active: true)))
            try await Task.sleep(for: .milliseconds(100))
            #expect(socket.inboxIsEmpty, "no ack, no echo, no answer")
        }
    }

    @Test func theHundredAndFirstPendingPairingIsRateLimited() async throws {
        // Every socket comes from 127.0.0.1: the per-address share is lifted to reach the total cap.
        try await TestServer.run(limits: ProviderLimits(maxPendingPairingsPerAddress: 1000)) { server in
            _ = try await server.pair()
            var sockets: [TestSocket] = []
            for _ in 0..<Clawline.Constants.pendingPairingCapacity {
                let socket = server.socket()
                socket.send(.pairRequest(PairRequest(deviceId: TestServer.newDeviceID(), deviceInfo: TestServer.deviceInfo)))
                sockets.append(socket)
            }
            await server.clock.waitForSleepers(atLeast: Clawline.Constants.pendingPairingCapacity)
            let late = server.socket()
            late.send(.pairRequest(PairRequest(deviceId: TestServer.newDeviceID(), deviceInfo: TestServer.deviceInfo)))
            guard case .error(let error) = try await late.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited)
            #expect(try await late.closeCode() == 1008)
            let pendingSocketsWait = sockets.allSatisfy { $0.inboxIsEmpty }
            #expect(pendingSocketsWait)
        }
    }
}
