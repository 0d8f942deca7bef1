import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// Tokens, authentication, takeover and what the server answers before it.
@Suite struct AuthTests {
    @Test func aBadTokenIsAnsweredAuthFailedAndClosed() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            for token in ["garbage", device.token + "x", ""] {
                let socket = server.socket()
                socket.send(.auth(Auth(token: token, deviceId: device.deviceID)))
                #expect(try await socket.next() == .authResult(.failure(reason: .authFailed)))
                #expect(try await socket.closeCode() == 1008)
            }
        }
    }

    @Test func aTokenOfAnotherDeviceIsAnsweredAuthFailed() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let socket = server.socket()
            socket.send(.auth(Auth(token: device.token, deviceId: TestServer.newDeviceID())))
            #expect(try await socket.next() == .authResult(.failure(reason: .authFailed)))
        }
    }

    @Test func anExpiredTokenIsAnsweredTokenExpired() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            server.date.advance(by: 366 * 24 * 3600)
            let socket = server.socket()
            socket.send(.auth(Auth(token: device.token, deviceId: device.deviceID)))
            #expect(try await socket.next() == .authResult(.failure(reason: .tokenExpired)))
            #expect(try await socket.closeCode() == 1008)
        }
    }

    @Test func aRevokedDeviceIsAnsweredTokenRevoked() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            var record = try #require(try await server.store.device(device.deviceID.rawValue))
            record.status = .revoked
            try await server.store.save(record)
            let socket = server.socket()
            socket.send(.auth(Auth(token: device.token, deviceId: device.deviceID)))
            #expect(try await socket.next() == .authResult(.failure(reason: .tokenRevoked)))
        }
    }

    @Test func aSecondConnectionOfTheDeviceTakesOverAndTheOldOneIsReplaced() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (old, _) = try await server.connect(device)
            let (new, _) = try await server.connect(device)
            guard case .error(let error) = try await old.next() else { throw TestFailure("expected session_replaced") }
            #expect(error.code == .sessionReplaced)
            #expect(try await old.closeCode() != nil)
            new.send(.message(ClientMessage(id: "c_1", content: "still here")))
            #expect(try await new.next() == .ack(Ack(id: "c_1")))
            #expect(old.violations.isEmpty && new.violations.isEmpty)
        }
    }

    @Test func aFailedTakeoverLeavesTheOldConnection() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (old, _) = try await server.connect(device)
            let intruder = server.socket()
            intruder.send(.auth(Auth(token: "forged", deviceId: device.deviceID)))
            #expect(try await intruder.next() == .authResult(.failure(reason: .authFailed)))
            old.send(.message(ClientMessage(id: "c_1", content: "hi")))
            #expect(try await old.next() == .ack(Ack(id: "c_1")))
        }
    }

    @Test func aMessageBeforeAuthenticationIsAnsweredAuthFailedAndClosed() async throws {
        try await TestServer.run { server in
            let socket = server.socket()
            socket.send(text: #"{"type":"message","id":"c_1","content":"hi"}"#)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .authFailed)
            #expect(try await socket.closeCode() == 1008)
        }
    }

    /// As the provider does: an early `pair_decision` is `invalid_message`, the socket stays open,
    /// and the same socket can still authenticate and decide.
    @Test func aPairDecisionBeforeAuthenticationIsInvalidMessageAndTheSocketStaysOpen() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let pairing = server.socket()
            let pendingID = TestServer.newDeviceID()
            pairing.send(.pairRequest(PairRequest(deviceId: pendingID, deviceInfo: TestServer.deviceInfo)))
            let early = server.socket()
            let decision = PairDecision(deviceId: pendingID, approve: true, userId: admin.userID)
            early.send(.pairDecision(decision))
            guard case .error(let error) = try await early.next() else { throw TestFailure("expected invalid_message") }
            #expect(error.code == .invalidMessage && error.messageId == nil)

            early.send(.auth(Auth(token: admin.token, deviceId: admin.deviceID)))
            guard case .authResult(.success) = try await early.next() else { throw TestFailure("expected auth_result success") }
            guard case .pairApprovalRequest(let request) = try await early.next() else { throw TestFailure("expected the pending request") }
            #expect(request.deviceId == pendingID)
            early.send(.pairDecision(decision))
            guard case .pairResult(.success) = try await pairing.next() else { throw TestFailure("expected the token") }
            // The one rule broken is the client's own early decision, and the spec answers it as the server did.
            let broken = early.violations.map { "\($0.rule.rawValue) \($0.ruleName) \($0.code) closes: \($0.answer?.closesConnection == true)" }
            #expect(broken == ["phase unauthenticated invalid_message closes: false"])
        }
    }

    @Test func malformedJSONClosesWith1002AndNoError() async throws {
        try await TestServer.run { server in
            let socket = server.socket()
            socket.send(text: #"{"type":"auth""#)
            let code = try await socket.closeCode()
            #expect(code == 1002)
        }
    }

    @Test func aFrameThatBreaksTheSpecIsAnsweredAsItsDecodeResultSays() async throws {
        try await TestServer.run { server in
            let socket = server.socket()
            socket.send(text: #"{"type":"auth","protocolVersion":2,"token":"t","deviceId":"d"}"#)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .invalidMessage)
            #expect(try await socket.closeCode() != nil)
        }
    }

    @Test func versionAndThePlainWebSocketPathAnswerOverHTTP() async throws {
        try await TestServer.run { server in
            let version = try await server.http("GET", "/version")
            #expect(version.status == 200 && version.body == #"{"protocolVersion":1}"#)
            #expect(version.contentType == "application/json")
            let plain = try await server.http("GET", "/ws")
            #expect(plain.status == 426)
            #expect(plain.body.contains(#""type":"error""#))
        }
    }
}
