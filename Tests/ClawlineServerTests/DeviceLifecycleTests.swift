import ClawlineProtocol
import Foundation
import Logging
import Testing
import WireRuntime

@testable import ClawlineServer

/// A device that is removed, revoked or paired again stays out; pairing requests cannot be
/// piled up; only an admin decides.
@Suite struct DeviceLifecycleTests {
    func request(_ deviceID: DeviceId) -> ClientFrame {
        .pairRequest(PairRequest(deviceId: deviceID, claimedName: "Tablet", deviceInfo: TestServer.deviceInfo))
    }

    @Test func aRemovedDevicesOpenSocketIsClosed() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (socket, _) = try await server.connect(admin)
            // As `clawline-server devices remove` does, from another process.
            try await server.store.removeDevice(admin.deviceID.rawValue)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected token_revoked") }
            #expect(error.code == .tokenRevoked)
            #expect(try await socket.closeCode() == 1008)
        }
    }

    @Test func aTokenOfAnEarlierPairingStaysVoidAfterRemoveAndPairAgain() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let deviceID = TestServer.newDeviceID()
            let stolen = try await server.approveMember(deviceID, admin: admin, adminSocket: adminSocket)
            var record = try #require(try await server.store.device(deviceID.rawValue))
            record.status = .revoked
            try await server.store.save(record)
            try await server.store.removeDevice(deviceID.rawValue)
            server.date.advance(by: 60)
            let repaired = try await server.approveMember(deviceID, admin: admin, adminSocket: adminSocket)

            let thief = server.socket()
            thief.send(.auth(Auth(token: stolen.token, deviceId: deviceID)))
            #expect(try await thief.next() == .authResult(.failure(reason: .tokenRevoked)))
            #expect(try await thief.closeCode() == 1008)
            let download = try await server.http("POST", "/upload", token: stolen.token, contentType: "multipart/form-data; boundary=b")
            #expect(download.status == 403)
            let (socket, success) = try await server.connect(repaired)
            #expect(success.userId == admin.userID)
            #expect(socket.violations.isEmpty)
        }
    }

    /// A request outlives its socket (``PairingLifetimeTests`` has the decisions), without keeping
    /// the socket: its timer runs on, and the closed socket is released.
    @Test func aPendingRequestKeepsItsTimerButNotItsSocketWhenTheSocketCloses() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let deviceID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(deviceID))
            _ = try await adminSocket.next()
            #expect(server.clock.sleeperCount == 1, "the request's expiry timer")
            pairing.close()
            #expect(try await server.eventually { await server.hub.pairing.pending(deviceID.rawValue)?.connection == nil }, "the socket is released")
            #expect(await server.hub.pairing.pending(deviceID.rawValue) != nil && server.clock.sleeperCount == 1)
        }
    }

    @Test func anAddressHasAtMostItsShareOfPendingRequests() async throws {
        try await TestServer.run(limits: ProviderLimits(maxPendingPairingsPerAddress: 2)) { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            var waiting: [TestSocket] = []
            for _ in 0..<2 {
                let socket = server.socket()
                socket.send(request(TestServer.newDeviceID()))
                _ = try await adminSocket.next()
                waiting.append(socket)
            }
            let third = server.socket()
            third.send(request(TestServer.newDeviceID()))
            guard case .error(let error) = try await third.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited && error.message.contains("address"))
            #expect(try await third.closeCode() == 1008)
            let nothingElse = waiting.allSatisfy(\.inboxIsEmpty)
            #expect(nothingElse)
        }
    }

    @Test func theHubRefusesAMembersDecisionWhateverTheSessionRulesLetThrough() async throws {
        let store = try await SQLiteProviderStore.open(path: nil)
        let now = Date()
        try await store.save(
            DeviceRecord(deviceID: "admin", userID: "u", claimedName: nil, deviceInfo: "{}", isAdmin: true, status: .approved, pairedAt: now))
        let hub = try await ProviderHub(
            store: store, tokens: try await TokenAuthority(key: TestServer.signingKey), assistant: EchoAssistant(), environment: ServerEnvironment(),
            logger: Logger(label: "test"))
        let pairing = ServerConnection(now: { .zero }, logger: Logger(label: "test"))
        let deviceID = TestServer.newDeviceID()
        try await hub.pair(PairRequest(deviceId: deviceID, deviceInfo: TestServer.deviceInfo), on: pairing)
        let memberSocket = ServerConnection(now: { .zero }, logger: Logger(label: "test"))
        let member = AuthenticatedDevice(deviceID: "member", userID: "u", isAdmin: false, pairedAt: now)
        try await hub.decide(PairDecision(deviceId: deviceID, approve: true, userId: "u"), by: member, on: memberSocket)
        memberSocket.close(code: 1000)
        let answers = await ServerConnectionTests.written(memberSocket.outbox, count: .max)
        #expect(answers.count == 1 && answers[0].contains(#""code":"invalid_message""#) && answers[0].contains("admin"))
        #expect(try await store.device(deviceID.rawValue) == nil, "the device was not approved")
        await hub.closeAll(code: 1001, reason: "done")
        try await store.close()
    }
}
