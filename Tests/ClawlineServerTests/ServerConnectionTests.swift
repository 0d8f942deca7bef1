import ClawlineProtocol
import Logging
import Testing
import WireRuntime

@testable import ClawlineServer

/// The outbox of one connection, on its own.
@Suite struct ServerConnectionTests {
    static func event(_ id: ServerEventId, streaming: Bool = false) -> ServerFrame {
        .message(ServerMessage(id: id, role: .assistant, content: "hi", timestamp: 1_704_672_000_000, streaming: streaming))
    }

    /// The frames written to the outbox so far (the writer side of the socket).
    static func written(_ outbox: AsyncStream<Outgoing>, count: Int) async -> [String] {
        var frames: [String] = []
        for await outgoing in outbox {
            if case .frame(let text) = outgoing { frames.append(text) }
            if frames.count == count { break }
        }
        return frames
    }

    @Test("A live event the replay already carried is not sent again, even after the replay (a late notification from another node)")
    func replayedEventsAreNotSentTwice() async {
        let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)
        let (connection, outbox) = ServerConnection.make(engine: engine, now: { .zero }, logger: Logger(label: "test"))
        // Authenticated first, as on a real socket, so the session rules allow chat frames.
        var limiter = RateLimiter()
        let auth = ClientFrame.auth(Auth(token: "t", deviceId: "d", lastMessageId: .value("s_0"))).encoded()
        #expect(connection.observeReceived(auth, answeredCodes: [], limiter: &limiter).isEmpty)
        let welcome = ServerFrame.authResult(
            .success(userId: "u", sessionId: SessionId(connection.sessionID), replayCount: 1, replayTruncated: false))
        connection.beginReplay()
        connection.send(welcome)
        connection.send(Self.event("s_1"))
        connection.send(Self.event("s_1"), live: true)  // held, then dropped: the replay carried it
        connection.endReplay(sent: ["s_1"])
        connection.send(Self.event("s_1"), live: true)  // late: dropped
        connection.send(Self.event("s_2", streaming: true), live: true)
        connection.send(Self.event("s_2"), live: true)
        let frames = await Self.written(outbox, count: 4)
        #expect(frames == [welcome, Self.event("s_1"), Self.event("s_2", streaming: true), Self.event("s_2")].map { $0.encodedText() })
    }
}
