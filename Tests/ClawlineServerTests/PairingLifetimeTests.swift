import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// A pairing request lives for its whole lifetime whatever happens to its socket, as the
/// contract and the protocol author's provider have it: asking again takes it over, and a
/// decision made while the device is away is the answer to its next `pair_request`.
@Suite struct PairingLifetimeTests {
    func request(_ deviceID: DeviceId) -> ClientFrame {
        .pairRequest(PairRequest(deviceId: deviceID, claimedName: "Phone", deviceInfo: TestServer.deviceInfo))
    }

    /// Closes `socket` and waits until the server has counted it out (`open` sockets remain).
    func close(_ socket: TestSocket, leaving open: Int, on server: TestServer) async throws {
        socket.close()
        #expect(try await server.eventually { await server.hub.connections.count == open }, "the server saw the socket close")
    }

    /// Returns once the frames sent on `socket` so far are handled: a `pair_decision` before
    /// `auth` is answered `invalid_message` on a socket that stays open, after them.
    func handled(on socket: TestSocket) async throws {
        socket.send(.pairDecision(PairDecision(deviceId: TestServer.newDeviceID(), approve: false)))
        guard case .error(let error) = try await socket.next() else { throw TestFailure("expected the marker's answer") }
        #expect(error.code == .invalidMessage)
    }

    @Test func aDeviceAskingAgainOnANewSocketTakesItsRequestOverAndAdminsAreNotAskedTwice() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let deviceID = TestServer.newDeviceID()
            let first = server.socket()
            first.send(request(deviceID))
            guard case .pairApprovalRequest = try await adminSocket.next() else { throw TestFailure("expected the approval request") }
            try await close(first, leaving: 1, on: server)

            let second = server.socket()
            second.send(request(deviceID))
            try await handled(on: second)
            // The request is pending still: the device's auth is answered device_not_approved.
            let probe = server.socket()
            probe.send(.auth(Auth(token: "not yet", deviceId: deviceID)))
            #expect(try await probe.next() == .authResult(.failure(reason: .deviceNotApproved)))
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: admin.userID)))
            guard case .pairResult(.success(let success)) = try await second.next() else { throw TestFailure("expected the token") }
            #expect(success.userId == admin.userID)
            // A second decision is the marker: its error is the admin's next frame, so no second
            // approval request came before it.
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
            guard case .error(let error) = try await adminSocket.next() else { throw TestFailure("expected only the refusal") }
            #expect(error.code == .invalidMessage)
        }
    }

    @Test func aRequestThatMovesToANewSocketKeepsItsLifetime() async throws {
        try await TestServer.run(limits: ProviderLimits(pairingRequestLifetime: .seconds(20))) { server in
            _ = try await server.pair()
            let deviceID = TestServer.newDeviceID()
            let first = server.socket()
            first.send(request(deviceID))
            await server.clock.waitForSleepers(atLeast: 1)
            server.clock.advance(by: .seconds(15))
            try await close(first, leaving: 0, on: server)
            let second = server.socket()
            second.send(request(deviceID))
            try await handled(on: second)
            // The timer of the first request runs on: 5 more seconds end it on the new socket.
            server.clock.advance(by: .seconds(5))
            #expect(try await second.next() == .pairResult(.failure(reason: .pairTimeout)))
            #expect(try await second.closeCode() == 1000)
        }
    }

    /// An admin connected, and a device whose request waits though its socket closed.
    func deviceAway(on server: TestServer) async throws -> (admin: PairedDevice, adminSocket: TestSocket, deviceID: DeviceId) {
        let admin = try await server.pair()
        let (adminSocket, _) = try await server.connect(admin)
        let deviceID = TestServer.newDeviceID()
        let first = server.socket()
        first.send(request(deviceID))
        _ = try await adminSocket.next()
        try await close(first, leaving: 1, on: server)
        return (admin, adminSocket, deviceID)
    }

    @Test func aDenialMadeWhileTheDeviceIsAwayIsTheAnswerToItsNextRequest() async throws {
        try await TestServer.run { server in
            let (_, adminSocket, deviceID) = try await deviceAway(on: server)
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
            let again = server.socket()
            again.send(request(deviceID))
            #expect(try await again.next() == .pairResult(.failure(reason: .pairDenied)))
            #expect(try await again.closeCode() == 1000)
            // The decision was taken: a second one is refused, and it is the admin's first frame
            // since the request (the first decision was not refused).
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
            guard case .error(let error) = try await adminSocket.next() else { throw TestFailure("expected the refusal") }
            #expect(error.code == .invalidMessage && error.message.contains(deviceID.rawValue))
            // Told once: later requests are pair_rejected.
            let later = server.socket()
            later.send(request(deviceID))
            #expect(try await later.next() == .pairResult(.failure(reason: .pairRejected)))
        }
    }

    /// The device asks again while the decision on its request is still being stored: the request
    /// waits for it and gets it, rather than starting a new request the admins are asked about
    /// again while the decision waits in the store.
    @Test(arguments: [false, true])
    func aRequestMadeWhileADecisionIsBeingStoredGetsThatDecision(approve: Bool) async throws {
        let saves = HeldStoreCalls()
        try await TestServer.run(wrapStore: { HookedStore(base: $0, beforeSave: { await saves.hold($0.deviceID) }) }) { server in
            try await askAgainWhileTheDecisionIsStored(approve: approve, saves: saves, on: server)
        }
    }

    func askAgainWhileTheDecisionIsStored(approve: Bool, saves: HeldStoreCalls, on server: TestServer) async throws {
        let (admin, adminSocket, deviceID) = try await deviceAway(on: server)
        let decision = PairDecision(deviceId: deviceID, approve: approve, userId: approve ? admin.userID : nil)
        adminSocket.send(.pairDecision(decision))
        let saving = await saves.waitUntilHeld(deviceID.rawValue)
        #expect(saving, "the decision's record is being saved")
        let again = server.socket()
        again.send(request(deviceID))
        let hub = server.hub
        let waits = try await server.eventually { await hub.pairing.waitsForDecision(deviceID.rawValue) == 1 }
        #expect(waits, "the new request waits for the decision")
        saves.release()
        let answer = try await again.next()
        if case .pairResult(.success(let success)) = answer {
            #expect(approve && success.userId == admin.userID, "the token of the approval")
        } else {
            #expect(!approve && answer == .pairResult(.failure(reason: .pairDenied)), "the denial, not \(answer)")
        }
        // No admin was asked again: a second decision is refused, and is the admin's next frame.
        adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
        guard case .error(let error) = try await adminSocket.next() else { throw TestFailure("expected the refusal") }
        #expect(error.code == .invalidMessage)
    }

    @Test func anApprovalMadeWhileTheDeviceIsAwayDeliversTheTokenOnItsNextRequest() async throws {
        try await TestServer.run { server in
            let (admin, adminSocket, deviceID) = try await deviceAway(on: server)
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: admin.userID)))
            #expect(try await server.eventually { try await server.store.device(deviceID.rawValue)?.pairingNote == .tokenUndelivered })
            let again = server.socket()
            again.send(request(deviceID))
            guard case .pairResult(.success(let success)) = try await again.next() else { throw TestFailure("expected the token") }
            let (_, auth) = try await server.connect(PairedDevice(deviceID: deviceID, token: success.token, userID: success.userId))
            #expect(auth.userId == admin.userID && auth.isAdmin == false)
        }
    }

    @Test func fiveDevicesBehindOneAddressWaitTogether() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            var asked: Set<DeviceId> = []
            var sockets: [TestSocket] = []
            for _ in 0..<5 {
                let deviceID = TestServer.newDeviceID()
                let socket = server.socket()
                socket.send(request(deviceID))
                sockets.append(socket)
                guard case .pairApprovalRequest(let approval) = try await adminSocket.next() else {
                    throw TestFailure("expected an approval request for every device")
                }
                asked.insert(approval.deviceId)
            }
            #expect(asked.count == 5)
            #expect(sockets.allSatisfy { $0.inboxIsEmpty }, "no device from the shared address was refused")
            #expect(await server.hub.pairing.count == 5)
        }
    }
}

/// A stranger behind the victim's own address cannot spend the victim's `auth` window.
@Suite struct AuthenticationLockoutTests {
    @Test func garbageTokensNamingAVictimFromItsOwnAddressDoNotLockItOut() async throws {
        try await TestServer.run { server in
            let victim = try await server.pair()
            var answers: [ServerFrame] = []
            for _ in 0..<20 {
                let stranger = server.socket()
                stranger.send(.auth(Auth(token: "garbage", deviceId: victim.deviceID)))
                answers.append(try await stranger.next())
                #expect(try await stranger.closeCode() == 1008)
            }
            // The failures count apart from the victim's own attempts (5 a minute for the name
            // from this address), so the stranger is soon refused...
            let limit = Clawline.RateLimits.auth.limit
            #expect(answers.prefix(limit).allSatisfy { $0 == .authResult(.failure(reason: .authFailed)) })
            #expect(answers.dropFirst(limit).allSatisfy { if case .error(let error) = $0 { error.code == .rateLimited } else { false } })
            // ...and the victim, from the same address, still authenticates.
            let (socket, success) = try await server.connect(victim)
            #expect(success.userId == victim.userID)
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func aDevicesOwnAttemptsStillCountForTheDevice() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let limit = Clawline.RateLimits.auth.limit
            for _ in 0..<limit {
                let (socket, _) = try await server.connect(device)
                socket.close()
            }
            let over = server.socket()
            over.send(.auth(Auth(token: device.token, deviceId: device.deviceID)))
            guard case .error(let error) = try await over.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited)
        }
    }
}

/// Account ids: `user_` and a version 4 UUID for new accounts; existing accounts keep theirs.
@Suite struct AccountIDTests {
    func pendingDevice(_ server: TestServer, adminSocket: TestSocket) async throws -> (DeviceId, TestSocket) {
        let deviceID = TestServer.newDeviceID()
        let pairing = server.socket()
        pairing.send(.pairRequest(PairRequest(deviceId: deviceID, deviceInfo: TestServer.deviceInfo)))
        guard case .pairApprovalRequest = try await adminSocket.next() else { throw TestFailure("expected the approval request") }
        return (deviceID, pairing)
    }

    @Test func theFirstAccountIsUserAndAVersion4UUID() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let id = admin.userID.rawValue
            #expect(id.hasPrefix("user_") && WireFormats.isUUIDv4(String(id.dropFirst(5))) && id == id.lowercased(), "\(id)")
            #expect(AccountID.isWellFormed(id))
        }
    }

    @Test func aNewAccountOfAnotherFormIsRefusedAndTheRequestStaysPending() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let (deviceID, pairing) = try await pendingDevice(server, adminSocket: adminSocket)
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: "bad")))
            guard case .error(let error) = try await adminSocket.next() else { throw TestFailure("expected invalid_message") }
            #expect(error.code == .invalidMessage && error.message.contains("'user_'"), "\(error.message)")
            #expect(try await server.store.accountExists("bad") == false)
            // The admin's socket stays open and the request waits: a well-formed new account works.
            let account = UserId("user_" + UUID().uuidString.lowercased())
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: account)))
            guard case .pairResult(.success(let success)) = try await pairing.next() else { throw TestFailure("expected the token") }
            #expect(success.userId == account)
            #expect(adminSocket.violations.isEmpty)
        }
    }

    @Test func anAccountStoredWithABareUUIDKeepsWorking() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            // An account an earlier version minted: a bare UUID.
            let legacy = UUID().uuidString.lowercased()
            try await server.store.save(
                DeviceRecord(
                    deviceID: UUID().uuidString.lowercased(), userID: legacy, claimedName: "Old phone", deviceInfo: "{}", isAdmin: false,
                    status: .approved, pairedAt: server.date.now))
            let (deviceID, pairing) = try await pendingDevice(server, adminSocket: adminSocket)
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: UserId(legacy))))
            guard case .pairResult(.success(let success)) = try await pairing.next() else { throw TestFailure("expected the token") }
            let (_, auth) = try await server.connect(PairedDevice(deviceID: deviceID, token: success.token, userID: success.userId))
            #expect(auth.userId.rawValue == legacy)
        }
    }
}
