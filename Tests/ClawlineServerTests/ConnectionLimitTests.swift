import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// Connections a peer may hold: a cap per address, a deadline for request headers, and one for
/// a WebSocket to authenticate or ask to pair.
@Suite struct ConnectionLimitTests {
    @Test func aConnectionPastItsAddresssCapIsClosedAtOnce() async throws {
        try await TestServer.run(limits: ProviderLimits(maxConnectionsPerAddress: 3)) { server in
            var held: [RawConnection] = []
            for _ in 0..<3 { held.append(try await RawConnection(port: server.port)) }
            // The three are counted once the server has answered on the last of them.
            try await held[2].send("GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await held[2].waitFor("protocolVersion").hasPrefix("HTTP/1.1 200"))
            let fourth = try await RawConnection(port: server.port)
            #expect(await fourth.waitForClose().isEmpty, "the fourth connection is closed before any answer")

            await held[0].close()
            var answer = ""
            _ = try await server.eventually {
                // Until the server has counted the closed connection out, a new one may still be refused.
                let probe = try await RawConnection(port: server.port)
                try? await probe.send("GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = await probe.waitForClose()
                return answer.hasPrefix("HTTP/1.1 200")
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            for connection in held.dropFirst() { await connection.close() }
        }
    }

    @Test func aConnectionThatDoesNotFinishItsHeadersInTimeIsClosed() async throws {
        // The header deadline runs on NIO's own timer (wall time), so it must be long enough that a
        // prompt request on a loaded CI machine is read before it; 300 ms was not (one CI run).
        try await TestServer.run(limits: ProviderLimits(headerTimeout: .seconds(2))) { server in
            let slow = try await RawConnection(port: server.port)
            try await slow.send("GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            #expect(await slow.waitForClose().isEmpty, "no answer, only the close")

            let prompt = try await RawConnection(port: server.port)
            try await prompt.send("GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await prompt.waitFor("protocolVersion").hasPrefix("HTTP/1.1 200"))
            await prompt.close()
        }
    }

    @Test func aSocketThatNeitherAuthenticatesNorPairsIsClosedAtItsDeadline() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let silent = server.socket()
            let pairing = server.socket()
            let deviceID = TestServer.newDeviceID()
            pairing.send(.pairRequest(PairRequest(deviceId: deviceID, deviceInfo: TestServer.deviceInfo)))
            _ = try await adminSocket.next()
            // The silent socket is open once a frame it sends is answered (JSON that is no frame
            // is invalid_message, and the socket stays open).
            silent.send(text: "{}")
            guard case .error(let error) = try await silent.next(), error.code == .invalidMessage else {
                throw TestFailure("expected invalid_message")
            }
            server.clock.advance(by: Clawline.Constants.connectTimeout)
            #expect(try await silent.closeCode() == 1008)
            // The pairing socket and the authenticated one stay: the approval still reaches the device.
            adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: admin.userID)))
            guard case .pairResult(.success) = try await pairing.next() else { throw TestFailure("expected the token") }
        }
    }
}
