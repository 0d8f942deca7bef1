import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

@testable import ClawlineClient

/// The chat service's session and socket lifecycle, and how an echo finds the message it stands
/// for: each test here failed before its fix.
@Suite("Chat service lifecycle and echo matching")
struct ClientLifecycleTests {
    @Test("A service dropped without disconnect() closes its socket and ends its reconnect loop")
    func droppedServiceClosesItsSocket() async throws {
        let transport = FakeTransport()
        let socket = try await Self.connectAndDrop(transport)
        #expect(await socket.waitForClose() == 1000, "the socket of a dropped service is closed")
        #expect(transport.openedCount == 1)
    }

    /// Connects a service on `transport`, then lets go of it; returns its socket.
    private static func connectAndDrop(_ transport: FakeTransport) async throws -> FakeSocket {
        let chat = ChatService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: FakeSession.deviceId, store: InMemoryConversationStore(),
            transport: transport, environment: ClientEnvironment(clock: ManualClock(), random: { 0.5 }))
        async let connecting: Void = chat.connect(token: "token", lastMessageId: nil)
        let socket = try await transport.socket(0)
        try await socket.authenticate()
        try await connecting
        return socket
    }

    @Test("After a second connect(), the first socket's loop ending later leaves the newer socket alone")
    func staleLoopLeavesTheNewerSocket() async throws {
        let session = FakeSession(transport: FakeTransport(lingering: true))
        let ends = Recorder(session.chat.supervisorEnds)
        let first = try await session.connected()
        async let again: Void = session.chat.connect(token: "token-2", lastMessageId: nil)
        let second = try await session.transport.socket(1)
        try await second.authenticate()
        try await again
        #expect(first.closedByClient == 1000)
        // The first socket's close comes only now, after the second socket is up: its loop ends.
        first.endEvents(code: 1000)
        _ = try await ends.first { $0 == 1 }
        #expect(second.closedByClient == nil, "the stale loop closed the newer socket")
        #expect(await session.chat.currentState == .connected)
        let sent = try await session.chat.send(content: "still here", attachments: [])
        #expect(try await second.waitForFrames(2).last == .message(ClientMessage(id: ClientMessageId(sent.id), content: "still here")))
    }

    @Test("Two identical messages: the echo after the second's ack replaces the second, not the first that was refused")
    func echoesMatchByAckOrderNotContent() async throws {
        let session = FakeSession()
        let messages = Recorder(session.chat.incomingMessages)
        let socket = try await session.connected()
        let first = try await session.chat.send(content: "same", attachments: [])
        let second = try await session.chat.send(content: "same", attachments: [])
        try await socket.waitForFrames(2)
        socket.deliver(.error(ErrorMessage(code: .invalidMessage, message: "no", messageId: first.id)))
        try await socket.waitForFrames(3)
        socket.deliver(.ack(Ack(id: ClientMessageId(second.id))))
        socket.deliver(FakeSession.event("s_1", .user, "same", deviceId: FakeSession.deviceId))
        _ = try await messages.first { $0.id == "s_1" }
        let timeline = try await session.chat.conversation().messages
        #expect(timeline.map(\.id) == [first.id, "s_1"])
        #expect(timeline.map(\.clientId) == [first.id, second.id])
        #expect(timeline.map(\.status) == [.failed, .delivered])
    }

    @Test("An echo replayed before the retry's ack (the ack was lost with its socket) replaces the message still sending")
    func echoBeforeTheRetriedAck() async throws {
        let session = FakeSession()
        let messages = Recorder(session.chat.incomingMessages)
        let notices = Recorder(session.chat.notices)
        let socket = try await session.connected()
        let sent = try await session.chat.send(content: "hello", attachments: [])
        try await socket.waitForFrames(2)
        // The server stored it, but the socket died before the ack.
        socket.close(code: 1006)
        _ = try await FakeSession.reconnection(1, in: notices)
        session.clock.advance(by: .seconds(2))
        let again = try await session.transport.socket(1)
        try await again.authenticate(replayCount: 2)
        again.deliver(FakeSession.event("s_1", .user, "hello", deviceId: FakeSession.deviceId))
        again.deliver(FakeSession.event("s_2", .assistant, "Echo: hello"))
        _ = try await messages.first { $0.id == "s_2" }
        // The retry goes out with the same id, and its ack empties the queue without a second copy.
        try await again.waitForFrames(2)
        #expect(again.messageIDs == [sent.id])
        again.deliver(.ack(Ack(id: ClientMessageId(sent.id))))
        try await session.settled(again)
        #expect(try await session.chat.conversation().pending.isEmpty)
        let timeline = try await session.chat.conversation().messages
        #expect(timeline.map(\.id) == ["s_1", "s_2"] && timeline[0].clientId == sent.id && timeline[0].status == .delivered)
    }
}
