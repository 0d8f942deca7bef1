import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

@testable import ClawlineClient

/// A chat service on a fake transport, a manual clock and a fixed jitter (half of the maximum).
struct FakeSession {
    let transport: FakeTransport
    let clock = ManualClock()
    let store: any ConversationStore
    let chat: ChatService
    /// The typing indicators the service reported: the markers of ``settled(_:)``.
    private let typing: Recorder<TypingEvent>
    static let deviceId: DeviceId = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"

    init(store: any ConversationStore = InMemoryConversationStore(), transport: FakeTransport = FakeTransport()) {
        self.store = store
        self.transport = transport
        chat = ChatService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: Self.deviceId, store: store, transport: transport,
            environment: ClientEnvironment(clock: clock, random: { 0.5 }))
        typing = Recorder(chat.incomingTyping)
    }

    /// Plays a marker frame (a typing indicator) after what the test delivered, and waits until
    /// the service reports it: the service reads a socket in order, so everything delivered before
    /// has been handled, and whatever it sends at once in answer has been sent.
    func settled(_ socket: FakeSocket) async throws {
        let before = typing.all.count
        socket.deliver(.typing(ServerTyping(active: false)))
        guard await typing.wait(until: { $0.count > before }) else { throw ClientTestFailure("the marker was not handled") }
    }

    /// Waits for the `count`th scheduled reconnection and returns its delay.
    static func reconnection(_ count: Int, in notices: Recorder<ChatNotice>) async throws -> Duration {
        guard await notices.wait(until: { delays($0).count >= count }) else { throw ClientTestFailure("no reconnection \(count)") }
        return delays(notices.all)[count - 1]
    }

    private static func delays(_ notices: [ChatNotice]) -> [Duration] {
        notices.compactMap { notice in
            if case .reconnecting(let delay) = notice { return delay }
            return nil
        }
    }

    /// Connects and authenticates on the first socket.
    func connected(replayCount: Int = 0) async throws -> FakeSocket {
        async let connecting: Void = chat.connect(token: "token", lastMessageId: nil)
        let socket = try await transport.socket(0)
        try await socket.authenticate(replayCount: replayCount)
        try await connecting
        return socket
    }

    /// Sends `content` and plays the server's echo of it (as event `echoID`) and its ack; returns the local message.
    func sendAcknowledged(_ content: String, on socket: FakeSocket, echoID: ServerEventId) async throws -> ChatMessage {
        let before = socket.frames.count
        let sent = try await chat.send(content: content, attachments: [])
        try await socket.waitForFrames(before + 1)
        socket.deliver(FakeSession.event(echoID, .user, content, deviceId: FakeSession.deviceId))
        socket.deliver(.ack(Ack(id: ClientMessageId(sent.id))))
        return sent
    }

    static func event(_ id: ServerEventId, _ role: Role, _ content: String, streaming: Bool = false, deviceId: DeviceId? = nil) -> ServerFrame {
        .message(
            ServerMessage(
                id: id, role: role, content: content, timestamp: 1_704_672_000_000, streaming: streaming, deviceId: deviceId))
    }
}

@Suite("Chat service (fake transport, manual clock)")
struct ChatServiceTests {
    @Test("A message without an ack is sent again with the same id after the spec's ack timeout")
    func ackTimeoutRetriesSameID() async throws {
        let session = FakeSession()
        let socket = try await session.connected()
        let sent = try await session.chat.send(content: "hi", attachments: [])
        try await socket.waitForFrames(2)
        session.clock.advance(by: Clawline.Constants.ackTimeout)
        try await socket.waitForFrames(3)
        #expect(socket.messageIDs == [sent.id, sent.id])
        socket.deliver(.ack(Ack(id: ClientMessageId(sent.id))))
        try await session.settled(socket)
        #expect(try await session.chat.conversation().pending.isEmpty)
    }

    @Test("One message is in flight at a time: the next waits for the ack of the one before")
    func orderKept() async throws {
        let session = FakeSession()
        let socket = try await session.connected()
        let first = try await session.chat.send(content: "first", attachments: [])
        let second = try await session.chat.send(content: "second", attachments: [])
        try await socket.waitForFrames(2)
        #expect(socket.messageIDs == [first.id])
        socket.deliver(.ack(Ack(id: ClientMessageId(first.id))))
        try await socket.waitForFrames(3)
        #expect(socket.messageIDs == [first.id, second.id])
    }

    @Test("rate_limited sends the same message again 200–500 ms later; invalid_message fails it and the next goes on")
    func refusals() async throws {
        let session = FakeSession()
        let socket = try await session.connected()
        let first = try await session.chat.send(content: "first", attachments: [])
        let second = try await session.chat.send(content: "second", attachments: [])
        try await socket.waitForFrames(2)
        socket.deliver(.error(ErrorMessage(code: .rateLimited, message: "slow down", messageId: first.id)))
        try await session.settled(socket)
        #expect(socket.messageIDs == [first.id], "nothing is sent again before the clock moves")
        session.clock.advance(by: .milliseconds(350))
        try await socket.waitForFrames(3)
        #expect(socket.messageIDs == [first.id, first.id])
        socket.deliver(.error(ErrorMessage(code: .invalidMessage, message: "no", messageId: first.id)))
        try await socket.waitForFrames(4)
        #expect(socket.messageIDs == [first.id, first.id, second.id])
        let failed = try await session.chat.conversation().messages.first { $0.clientId == first.id }
        #expect(failed?.status == .failed && failed?.failure == "no")
    }

    @Test("The queue is stored before sending: a new service on the same file sends it after connecting")
    func queueSurvivesRestart() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-queue-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let offline = FakeSession(store: FileConversationStore(url: file))
        let sent = try await offline.chat.send(content: "written offline", attachments: [])
        let relaunched = FakeSession(store: FileConversationStore(url: file))
        let socket = try await relaunched.connected()
        try await socket.waitForFrames(2)
        #expect(socket.messageIDs == [sent.id])
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("Streamed snapshots merge into one message; a final seen twice is applied once and moves the cursor")
    func streamingAndDedupe() async throws {
        let session = FakeSession()
        let messages = Recorder(session.chat.incomingMessages)
        let socket = try await session.connected()
        socket.deliver(FakeSession.event("s_1", .assistant, "Hel", streaming: true))
        socket.deliver(FakeSession.event("s_1", .assistant, "Hello", streaming: true))
        socket.deliver(FakeSession.event("s_1", .assistant, "Hello!"))
        socket.deliver(FakeSession.event("s_1", .assistant, "Hello!"))
        socket.deliver(FakeSession.event("s_1", .assistant, "late snapshot", streaming: true))
        try await session.settled(socket)
        let conversation = try await session.chat.conversation()
        #expect(conversation.messages.map(\.content) == ["Hello!"])
        #expect(conversation.cursor == "s_1")
        // The recorder reads the stream on its own task: the final is the last thing yielded.
        _ = try await messages.first { $0.content == "Hello!" }
        #expect(messages.all.map(\.content) == ["Hel", "Hello", "Hello!"])
    }

    @Test("A partial the replay does not finish is dropped and this device's unanswered message is marked failed, then retried")
    func missingFinal() async throws {
        let session = FakeSession()
        let notices = Recorder(session.chat.notices)
        let first = try await session.connected()
        let sent = try await session.sendAcknowledged("question", on: first, echoID: "s_1")
        first.deliver(FakeSession.event("s_2", .assistant, "ans", streaming: true))
        try await session.settled(first)
        #expect(try await session.chat.conversation().messages.count == 2)
        first.close(code: 1006)
        session.clock.advance(by: try await FakeSession.reconnection(1, in: notices))
        let second = try await session.transport.socket(1)
        let auth = try await second.waitForFrames(1)
        #expect(auth.first == .auth(Auth(token: "token", deviceId: FakeSession.deviceId, lastMessageId: .value("s_1"))))
        try await second.authenticate(replayCount: 0)
        try await session.settled(second)
        #expect(try await session.chat.conversation().messages.first?.status == .failed)
        let conversation = try await session.chat.conversation()
        #expect(conversation.messages.map(\.id) == ["s_1"])
        let retried = try await session.chat.retry(messageId: "s_1")
        #expect(retried.id != sent.id && retried.content == "question")
        try await second.waitForFrames(2)
        #expect(second.messageIDs == [retried.id])
    }

    @Test("A stream failure named on the new socket, for a message sent on the old one, fails its answer and is no protocol violation")
    func failureNamedAfterReconnect() async throws {
        let session = FakeSession()
        let notices = Recorder(session.chat.notices)
        let first = try await session.connected()
        let sent = try await session.sendAcknowledged("question", on: first, echoID: "s_1")
        first.close(code: 1006)
        session.clock.advance(by: try await FakeSession.reconnection(1, in: notices))
        let second = try await session.transport.socket(1)
        try await second.authenticate(replayCount: 0)
        second.deliver(FakeSession.event("s_2", .assistant, "ans", streaming: true))
        second.deliver(.error(ErrorMessage(code: .serverError, message: "the stream failed", messageId: sent.id)))
        // The marker: an ack of a message never sent is a violation, reported after everything before it.
        second.deliver(.ack(Ack(id: "c_never")))
        func violations(_ notices: [ChatNotice]) -> [String] {
            notices.compactMap { if case .protocolViolation(let text) = $0 { text } else { nil } }
        }
        #expect(await notices.wait { !violations($0).isEmpty })
        let violations = violations(notices.all)
        #expect(violations.count == 1 && violations.first?.contains("c_never") == true)
        let conversation = try await session.chat.conversation()
        #expect(conversation.messages.map(\.id) == ["s_1"])
        #expect(conversation.messages.first?.status == .failed && conversation.messages.first?.failure == "the stream failed")
    }

    @Test("A message sent while the replay is still arriving is placed after the history, where the server's echo puts it")
    func sentDuringReplay() async throws {
        let session = FakeSession()
        let socket = try await session.connected(replayCount: 2)
        // connect() returns at auth_result; the replay has not arrived when the user sends.
        let sent = try await session.chat.send(content: "new question", attachments: [])
        socket.deliver(FakeSession.event("s_1", .user, "older question", deviceId: "0e1d2c3b-4a59-4867-9f8e-7d6c5b4a3928"))
        socket.deliver(FakeSession.event("s_2", .assistant, "older answer"))
        try await socket.waitForFrames(2)
        socket.deliver(.ack(Ack(id: ClientMessageId(sent.id))))
        socket.deliver(FakeSession.event("s_3", .user, "new question", deviceId: FakeSession.deviceId))
        socket.deliver(FakeSession.event("s_4", .assistant, "new answer"))
        try await session.settled(socket)
        #expect(try await session.chat.conversation().cursor == "s_4")
        let conversation = try await session.chat.conversation()
        #expect(conversation.messages.map(\.id) == ["s_1", "s_2", "s_3", "s_4"])
        #expect(conversation.messages[2].clientId == sent.id)
    }

    @Test("Backoff grows while sockets close before authenticating and resets only after an auth_result success")
    func backoffResetsOnlyAfterAuth() async throws {
        let session = FakeSession()
        let notices = Recorder(session.chat.notices)
        let connecting = Task { try await session.chat.connect(token: "token", lastMessageId: nil) }
        defer { connecting.cancel() }
        let jitter = Clawline.Constants.reconnectMaxJitter / 2
        try await session.transport.socket(0).close(code: 1011)
        #expect(try await FakeSession.reconnection(1, in: notices) == .seconds(1) + jitter)
        await session.clock.waitForSleepers(atLeast: 1)
        session.clock.advance(by: .seconds(1) + jitter - .milliseconds(1))
        // The clock wakes what is due as it moves: the reconnect still waiting means it is not due.
        #expect(session.clock.sleeperCount == 1 && session.transport.openedCount == 1)
        session.clock.advance(by: .milliseconds(1))
        // The socket opens, then closes before auth_result: the delay keeps growing.
        try await session.transport.socket(1).close(code: 1011)
        #expect(try await FakeSession.reconnection(2, in: notices) == .seconds(2) + jitter)
        session.clock.advance(by: .seconds(2) + jitter)
        let third = try await session.transport.socket(2)
        try await third.authenticate()
        try await connecting.value
        third.close(code: 1006)
        #expect(try await FakeSession.reconnection(3, in: notices) == .seconds(1) + jitter)
    }

    @Test("device_not_approved waits for approval and authenticates again every 30 s")
    func waitsForApproval() async throws {
        let session = FakeSession()
        let notices = Recorder(session.chat.notices)
        let states = Recorder(session.chat.connectionState)
        let connecting = Task { try await session.chat.connect(token: "token", lastMessageId: nil) }
        defer { connecting.cancel() }
        let first = try await session.transport.socket(0)
        try await first.waitForFrames(1)
        first.deliver(.authResult(.failure(reason: .deviceNotApproved)))
        #expect(try await FakeSession.reconnection(1, in: notices) == Clawline.Constants.deviceApprovalRetryInterval)
        _ = try await states.first { $0 == .waitingForApproval }
        session.clock.advance(by: Clawline.Constants.deviceApprovalRetryInterval)
        try await session.transport.socket(1).authenticate()
        try await connecting.value
        #expect(await session.chat.currentState == .connected)
    }

    /// The two answers a provider may give an `auth` over its rate limit: the contract's error,
    /// and the `auth_result` the protocol author's provider sends.
    static let rateLimitedAuthAnswers: [ServerFrame] = [
        .error(ErrorMessage(code: .rateLimited, message: "too many attempts")),
        .authResult(.failure(reason: AuthFailureReason(rawValue: "rate_limited"))),
    ]

    @Test("An auth over the rate limit keeps the token and waits out the auth window", arguments: rateLimitedAuthAnswers)
    func rateLimitedAuthentication(_ answer: ServerFrame) async throws {
        let session = FakeSession()
        let notices = Recorder(session.chat.notices)
        let connecting = Task { try await session.chat.connect(token: "token", lastMessageId: nil) }
        defer { connecting.cancel() }
        let first = try await session.transport.socket(0)
        try await first.waitForFrames(1)
        first.deliver(answer)
        first.endEvents(code: 1008)
        // Not a verdict on the token: no failure, the next attempt after the whole window.
        let window = try #require(Clawline.RateLimits.auth.window)
        #expect(try await FakeSession.reconnection(1, in: notices) == window)
        #expect(await session.chat.currentState == .reconnecting)
        session.clock.advance(by: window)
        let second = try await session.transport.socket(1)
        guard case .auth(let auth)? = try await second.waitForFrames(1).first else { throw ClientTestFailure("expected auth") }
        #expect(auth.token == "token")
        try await second.authenticate()
        try await connecting.value
        #expect(await session.chat.currentState == .connected)
    }

    @Test("Typing is dropped beyond the spec's typing rate")
    func typingRate() async throws {
        let session = FakeSession()
        let socket = try await session.connected()
        // sendTyping sends before it returns (or drops): the frames are all there when the calls return.
        for _ in 0..<4 { await session.chat.sendTyping(active: true) }
        #expect(socket.frames.count == 1 + Clawline.RateLimits.typing.limit)
    }

    @Test("A message beyond the spec's content limit is refused locally and nothing is queued")
    func localSizeCheck() async throws {
        let session = FakeSession()
        let tooLong = String(repeating: "a", count: Clawline.Constants.maxContentBytes + 1)
        await #expect(throws: ClawlineClientError.self) { try await session.chat.send(content: tooLong, attachments: []) }
        #expect(try await session.chat.conversation().pending.isEmpty)
    }

    @Test("session_replaced ends the session without reconnecting")
    func sessionReplaced() async throws {
        let session = FakeSession()
        let socket = try await session.connected()
        let loopsEnded = Recorder(session.chat.supervisorEnds)
        let states = Recorder(session.chat.connectionState)
        socket.deliver(.error(ErrorMessage(code: .sessionReplaced, message: "elsewhere")))
        _ = try await states.first { $0 == .failed(.sessionReplaced) }
        #expect(await session.chat.currentState == .failed(.sessionReplaced))
        // The reconnect loop has ended: nothing can open another socket.
        _ = try await loopsEnded.first { $0 == 1 }
        session.clock.advance(by: .seconds(60))
        #expect(session.transport.openedCount == 1)
    }
}
