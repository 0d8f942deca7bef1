import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// Pairing, admins and approvals.
@Suite struct PairingTests {
    func request(_ deviceID: DeviceId, name: String = "Tablet") -> ClientFrame {
        .pairRequest(PairRequest(deviceId: deviceID, claimedName: name, deviceInfo: TestServer.deviceInfo))
    }

    @Test func theFirstDeviceToPairBecomesAdminAtOnce() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (socket, success) = try await server.connect(admin)
            #expect(success.isAdmin == true && success.userId == admin.userID && success.replayCount == 0 && !success.replayTruncated)
            #expect(success.sessionId.rawValue.hasPrefix("sess_"))
            let record = try #require(try await server.store.device(admin.deviceID.rawValue))
            #expect(record.isAdmin && record.status == .approved && record.lastSeen != nil)
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func anotherDeviceWaitsForAnAdminWhoApprovesItIntoTheSameAccount() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let deviceID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(deviceID))
            #expect(
                try await adminSocket.next()
                    == .pairApprovalRequest(PairApprovalRequest(deviceId: deviceID, claimedName: "Tablet", deviceInfo: TestServer.deviceInfo)))
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: admin.userID)))
            guard case .pairResult(.success(let success)) = try await pairing.next() else { throw TestFailure("expected a success") }
            #expect(success.userId == admin.userID)
            // A second decision on the same request is invalid and does not close the admin's socket.
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
            guard case .error(let error) = try await adminSocket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .invalidMessage)
            let (tablet, auth) = try await server.connect(PairedDevice(deviceID: deviceID, token: success.token, userID: success.userId))
            #expect(auth.isAdmin == false && auth.userId == admin.userID)
            // Both devices of the account get the echo of a message.
            tablet.send(.message(ClientMessage(id: "c_1", content: "from the tablet")))
            #expect(try await tablet.next() == .ack(Ack(id: "c_1")))
            #expect(try await tablet.next().serverMessage?.deviceId == deviceID)
            #expect(try await adminSocket.next().serverMessage?.content == "from the tablet")
            #expect(adminSocket.violations.isEmpty && pairing.violations.isEmpty && tablet.violations.isEmpty)
        }
    }

    @Test func aDeniedDeviceIsToldAndLaterRequestsAreRejected() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let deviceID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(deviceID))
            _ = try await adminSocket.next()
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: false)))
            #expect(try await pairing.next() == .pairResult(.failure(reason: .pairDenied)))
            #expect(try await pairing.closeCode() == 1000)
            let again = server.socket()
            again.send(request(deviceID))
            #expect(try await again.next() == .pairResult(.failure(reason: .pairRejected)))
            #expect(try await again.closeCode() == 1000)
        }
    }

    @Test func aNonAdminsDecisionIsInvalid() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let memberID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(memberID))
            _ = try await adminSocket.next()
            adminSocket.send(.pairDecision(PairDecision(deviceId: memberID, approve: true, userId: admin.userID)))
            guard case .pairResult(.success(let success)) = try await pairing.next() else { throw TestFailure("expected a success") }
            let (member, _) = try await server.connect(PairedDevice(deviceID: memberID, token: success.token, userID: success.userId))
            member.send(.pairDecision(PairDecision(deviceId: TestServer.newDeviceID(), approve: true, userId: admin.userID)))
            guard case .error(let error) = try await member.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .invalidMessage)
        }
    }

    @Test func pendingRequestsAreResentToAnAdminWhenItAuthenticates() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let deviceID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(deviceID, name: "Laptop"))
            // Wait until the request is pending (its expiry timer is armed).
            await server.clock.waitForSleepers(atLeast: 1)
            let (adminSocket, _) = try await server.connect(admin)
            #expect(
                try await adminSocket.next()
                    == .pairApprovalRequest(PairApprovalRequest(deviceId: deviceID, claimedName: "Laptop", deviceInfo: TestServer.deviceInfo)))
            #expect(pairing.inboxIsEmpty)
        }
    }

    @Test func aPendingRequestExpiresWithPairTimeout() async throws {
        try await TestServer.run { server in
            _ = try await server.pair()
            let pairing = server.socket()
            let deviceID = TestServer.newDeviceID()
            pairing.send(request(deviceID))
            await server.clock.waitForSleepers(atLeast: 1)
            server.clock.advance(by: Clawline.Constants.pendingPairingTTL)
            #expect(try await pairing.next() == .pairResult(.failure(reason: .pairTimeout)))
            #expect(try await pairing.closeCode() == 1000)
        }
    }

    @Test func authFromAPendingDeviceIsAnsweredDeviceNotApproved() async throws {
        try await TestServer.run { server in
            _ = try await server.pair()
            let deviceID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(request(deviceID))
            await server.clock.waitForSleepers(atLeast: 1)
            let socket = server.socket()
            socket.send(.auth(Auth(token: "not yet", deviceId: deviceID)))
            #expect(try await socket.next() == .authResult(.failure(reason: .deviceNotApproved)))
            #expect(try await socket.closeCode() == 1008)
        }
    }
}

/// Pairing edge cases: races, late denials and tokens asked for again.
@Suite struct PairingEdgeTests {
    func request(_ deviceID: DeviceId) -> ClientFrame {
        .pairRequest(PairRequest(deviceId: deviceID, deviceInfo: TestServer.deviceInfo))
    }

    @Test func ofTwoRacingFirstPairingsOneBecomesAdminAndTheOtherWaits() async throws {
        try await TestServer.run { server in
            let sockets = [server.socket(), server.socket()]
            let ids = [TestServer.newDeviceID(), TestServer.newDeviceID()]
            for (socket, id) in zip(sockets, ids) { socket.send(request(id)) }
            await server.clock.waitForSleepers(atLeast: 1)
            #expect(try await server.eventually { sockets.contains { !$0.inboxIsEmpty } })
            let winners = sockets.indices.filter { !sockets[$0].inboxIsEmpty }
            #expect(winners.count == 1)
            let winner = try #require(winners.first)
            guard case .pairResult(.success(let success)) = try await sockets[winner].next() else { throw TestFailure("expected a success") }
            let (admin, auth) = try await server.connect(PairedDevice(deviceID: ids[winner], token: success.token, userID: success.userId))
            #expect(auth.isAdmin == true)
            guard case .pairApprovalRequest(let approval) = try await admin.next() else { throw TestFailure("expected an approval request") }
            #expect(approval.deviceId == ids[1 - winner])
        }
    }

    @Test func aTokenIsIssuedAgainOnceForADeviceThatNeverAuthenticated() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let again = try await server.pair(device.deviceID)
            #expect(again.userID == device.userID)
            let third = server.socket()
            third.send(request(device.deviceID))
            guard case .error(let error) = try await third.next() else { throw TestFailure("expected invalid_message") }
            #expect(error.code == .invalidMessage)
            #expect(try await third.closeCode() == 1008)
        }
    }

    @Test func aDeviceThatAuthenticatedGetsNoSecondToken() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            _ = try await server.connect(device)
            let socket = server.socket()
            socket.send(request(device.deviceID))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected invalid_message") }
            #expect(error.code == .invalidMessage)
        }
    }

    @Test func tenMinutesAfterPairingNoSecondTokenIsIssued() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            server.date.advance(by: 601)
            let socket = server.socket()
            socket.send(request(device.deviceID))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected invalid_message") }
            #expect(error.code == .invalidMessage)
        }
    }
}
