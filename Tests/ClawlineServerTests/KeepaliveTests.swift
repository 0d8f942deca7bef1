import ClawlineProtocol
import Foundation
import Testing

@testable import ClawlineServer

/// The keepalive the spec states: a ping every 30 s, and a socket closed with 1001 once no pong
/// has come for 90 s (on the server's keepalive clock).
@Suite struct KeepaliveTests {
    /// The close frame of code 1001, as the server sends it (unmasked, its reason after the code).
    static func closesWith1001(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 0x88 && bytes[index + 2] == 0x03 && bytes[index + 3] == 0xE9 {
            return true
        }
        return false
    }

    @Test func aPeerThatNeverAnswersPingsIsClosedNinetySecondsAfterItOpened() async throws {
        try await TestServer.run { server in
            let socket = try await RawConnection.webSocket(port: server.port)
            #expect(try await socket.roundTrip(1))
            await server.keepaliveClock.waitForSleepers(atLeast: 1)
            server.keepaliveClock.advance(by: .seconds(89))
            // Pinged at 30 s (and now, at 89 s); still open.
            await server.keepaliveClock.waitForSleepers(atLeast: 1)
            #expect(try await socket.roundTrip(2))
            #expect(socket.bytes.contains(0x89), "a ping came")
            server.keepaliveClock.advance(by: .seconds(1))
            _ = await socket.waitForClose()
            #expect(Self.closesWith1001(socket.bytes), "closed with 1001")
        }
    }

    @Test func everyPongCountsAndTheNinetySecondsRestartFromTheLast() async throws {
        try await TestServer.run { server in
            let socket = try await RawConnection.webSocket(port: server.port)
            #expect(try await socket.roundTrip(1))
            await server.keepaliveClock.waitForSleepers(atLeast: 1)
            server.keepaliveClock.advance(by: .seconds(60))
            await server.keepaliveClock.waitForSleepers(atLeast: 1)
            try await socket.sendFrame(opcode: 0xA)
            // The answer to the marker comes after the pong was read.
            #expect(try await socket.roundTrip(2))
            server.keepaliveClock.advance(by: .seconds(60))
            await server.keepaliveClock.waitForSleepers(atLeast: 1)
            #expect(try await socket.roundTrip(3), "open 120 s after it opened, 60 s after its pong")
            server.keepaliveClock.advance(by: .seconds(30))
            _ = await socket.waitForClose()
            #expect(Self.closesWith1001(socket.bytes))
        }
    }

    @Test func aClientThatAnswersPingsStaysOpen() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            for _ in 0..<4 {
                await server.keepaliveClock.waitForSleepers(atLeast: 1)
                server.keepaliveClock.advance(by: .seconds(30))
                await server.keepaliveClock.waitForSleepers(atLeast: 1)
                // The ping went out before the first marker's answer, so the client's pong (sent as
                // it read the ping) went out before the second marker, which the server reads after it.
                for _ in 0..<2 {
                    socket.send(text: "{}")
                    guard case .error(let error) = try await socket.next(), error.code == .invalidMessage else {
                        throw TestFailure("expected invalid_message")
                    }
                }
            }
            socket.send(.message(ClientMessage(id: "c_1", content: "still here")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
        }
    }
}
