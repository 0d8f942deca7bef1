import ClawlineProtocol
import Foundation
import Testing

@testable import ClawlineServer

/// A node taken out of service: what its sockets and a load balancer see during a drain.
@Suite struct DrainTests {
    @Test("a drain tells the sender of an answer in flight, closes every socket with 1001, then refuses new sockets")
    func drainClosesEverySocket() async throws {
        try await TestServer.run(assistant: GatedAssistant(stalls: true)) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            let unidentified = server.socket()
            // A marker: the server has answered this socket, so it holds it.
            unidentified.send(.pairDecision(PairDecision(deviceId: TestServer.newDeviceID(), approve: false, userId: device.userID)))
            guard case .error = try await unidentified.next() else { throw TestFailure("expected an error") }
            socket.send(.message(ClientMessage(id: "c_1", content: "hello")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            // The echo, then (after typing, if sent) the answer's first snapshot: the answer is in flight.
            while try await socket.next().serverMessage.map({ $0.role == .assistant && $0.streaming }) != true {}

            await server.hub.drain(within: .seconds(10))

            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error for the answer") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            #expect(try await socket.closeCode() == 1001)
            #expect(try await unidentified.closeCode() == 1001)
            #expect(try await server.socket().closeCode() == nil, "a new WebSocket is refused")
            #expect(try await server.http("GET", "/ws").status == 503)
            #expect(try await server.http("GET", "/readyz").status == 503)
            #expect(await server.hub.connections.isEmpty)
        }
    }
}
