import ClawlineProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing
import WireRuntime

@testable import ClawlineServer

/// The outbox of one connection, on its own.
@Suite struct ServerConnectionTests {
    static func event(_ id: ServerEventId, streaming: Bool = false, content: String = "hi") -> ServerFrame {
        .message(ServerMessage(id: id, role: .assistant, content: content, timestamp: 1_704_672_000_000, streaming: streaming))
    }

    /// The batches a socket's writer takes from `outbox`, until it ends: a drain woken by the
    /// outbox that takes everything queued (``Outbox/take()``), as a socket's writer does, for a
    /// test without a socket. Each item counts as written once the test has it.
    static func batches(of outbox: Outbox) -> AsyncStream<[Outgoing]> {
        let (batches, continuation) = AsyncStream<[Outgoing]>.makeStream()
        // The outbox wakes the drain only once it went idle, so one `take` loop runs at a time.
        outbox.startDraining {
            while true {
                switch outbox.take() {
                case .items(let batch):
                    for item in batch { outbox.written(item.byteCount) }
                    continuation.yield(batch)
                case .idle:
                    return
                case .ended:
                    outbox.stopDraining()
                    continuation.finish()
                    return
                }
            }
        }
        return batches
    }

    /// The frames in the outbox so far (the writer side of the socket), until `count` or the end.
    static func written(_ outbox: Outbox, count: Int) async -> [String] {
        var frames: [String] = []
        for await batch in batches(of: outbox) {
            for case .frame(let json) in batch { frames.append(String(buffer: json)) }
            if frames.count >= count { break }
        }
        return frames
    }

    /// A connection that authenticated, as on a real socket, so the session rules allow chat frames.
    static func authenticated(
        outboxLimit: Int = ProviderLimits().maxUnsentBytesPerSocket, onOverflow: @escaping @Sendable () -> Void = {},
        onMissingEvent: @escaping @Sendable (ServerConnection, Int) -> Void = { _, _ in }
    )
        -> ServerConnection
    {
        let connection = ServerConnection(
            now: { .zero }, outboxLimit: outboxLimit, logger: Logger(label: "test"), onOverflow: onOverflow, onMissingEvent: onMissingEvent)
        var limiter = RateLimiter()
        let auth = ClientFrame.auth(Auth(token: "t", deviceId: "d", lastMessageId: .value("s_0"))).encoded()
        #expect(connection.observeReceived(auth, answeredCodes: [], limiter: &limiter).isEmpty)
        return connection
    }

    @Test("A live event the replay already carried is not sent again, even after the replay (a late notification from another node)")
    func replayedEventsAreNotSentTwice() async {
        let connection = Self.authenticated()
        let welcome = ServerFrame.authResult(
            .success(userId: "u", sessionId: SessionId(connection.sessionID), replayCount: 1, replayTruncated: false))
        connection.hold()
        connection.send(welcome)
        connection.send(Self.event("s_1"))
        connection.send(Self.event("s_1"), live: true)  // held, then dropped: the replay carried it
        connection.send(Self.event("s_3"), live: true)  // held, then sent
        connection.release()
        connection.send(Self.event("s_1"), live: true)  // late: dropped
        connection.send(Self.event("s_2", streaming: true), live: true)
        connection.send(Self.event("s_2"), live: true)
        connection.send(Self.event("s_3"), live: true)  // sent once already
        let frames = await Self.written(connection.outbox, count: 5)
        #expect(
            frames == [welcome, Self.event("s_1"), Self.event("s_3"), Self.event("s_2", streaming: true), Self.event("s_2")].map { $0.encodedText() })
    }

    @Test("A socket that owes more bytes than its outbox holds is closed with 1013; what it had not taken is dropped, once")
    func aSocketThatFallsTooFarBehindIsClosed() async {
        let overflows = Counter()
        let connection = Self.authenticated(outboxLimit: 4096) { overflows.increment() }
        let big = String(repeating: "x", count: 1000)
        var sent = 0
        while !connection.isClosed {
            connection.send(Self.event(ServerEventId("s_\(sent)"), content: big), live: true)
            sent += 1
        }
        connection.send(Self.event("s_late"), live: true)
        #expect(sent > 1 && sent <= 5, "about four frames of a kilobyte fit in four kilobytes (\(sent) were offered)")
        #expect(connection.outbox.peakBytes <= 4096)
        var items: [Outgoing] = []
        for await batch in Self.batches(of: connection.outbox) { items += batch }
        guard case .close(let code, _)? = items.last else {
            Issue.record("the outbox did not end with a close: \(items)")
            return
        }
        #expect(code == ServerConnection.tooFarBehindCode)
        #expect(items.count == 1, "the backlog is dropped; only the close is left")
        #expect(overflows.value == 1)
        #expect(connection.outbox.bytes == 0)
    }

    @Test("Frames held while a socket replays count against its outbox too")
    func heldFramesAreBounded() async {
        let connection = Self.authenticated(outboxLimit: 4096)
        connection.hold()
        for index in 0..<10 { connection.send(Self.event(ServerEventId("s_\(index)"), content: String(repeating: "y", count: 1000)), live: true) }
        #expect(connection.isClosed)
    }

    /// Event `number` of the account, `s_<number>`, as a store sends it.
    static func numbered(_ number: Int, content: String = "hi") -> OutboundFrame {
        OutboundFrame(event(ServerEventId("s_\(number)"), content: content), number: number)
    }

    /// A connection that replayed the account's events up to `newest`.
    static func replayed(
        upTo newest: Int, outboxLimit: Int = ProviderLimits().maxUnsentBytesPerSocket, missing: Counter = Counter(), reported: Recorded<Int>
    ) -> ServerConnection {
        let connection = authenticated(outboxLimit: outboxLimit) {
        } onMissingEvent: { _, number in
            missing.increment()
            reported.append(number)
        }
        connection.hold()
        let welcome = AuthResult.success(userId: "u", sessionId: SessionId(connection.sessionID), replayCount: 0, replayTruncated: false)
        connection.send(ServerFrame.authResult(welcome))
        connection.startNumbering(after: newest, cursor: "s_\(newest)")
        connection.release()
        return connection
    }

    @Test("Numbered events go out in their account's order: one ahead of a missing event waits for it, and the owner hears once")
    func numberedEventsGoOutInOrder() async {
        let missing = Counter()
        let reported = Recorded<Int>()
        let connection = Self.replayed(upTo: 1, missing: missing, reported: reported)
        connection.send(Self.numbered(1), live: true)  // the replay carried it
        connection.send(Self.numbered(3), live: true)  // waits for 2
        connection.send(Self.numbered(4), live: true)  // waits too
        #expect(connection.missingEvent() == 2)
        connection.send(Self.numbered(2), live: true)  // 2, then 3 and 4
        connection.send(Self.numbered(3), live: true)  // sent already
        connection.send(Self.numbered(5), live: true)
        let frames = await Self.written(connection.outbox, count: 5)
        #expect(frames.dropFirst() == ArraySlice((2...5).map { Self.numbered($0).text }))
        #expect(missing.value == 1 && reported.values == [2], "the owner is told of the missing event once")
        #expect(connection.missingEvent() == nil, "nothing waits")
    }

    @Test("Events held while a socket replays go out in order after it, and those the replay carried are dropped")
    func heldNumberedEventsFollowTheReplay() async {
        let connection = Self.authenticated()
        connection.hold()
        connection.send(Self.numbered(3), live: true)
        connection.send(Self.numbered(2), live: true)
        connection.send(Self.numbered(4), live: true)
        connection.send(Self.numbered(2))  // the replay
        connection.startNumbering(after: 2, cursor: "s_2")
        connection.release()
        let frames = await Self.written(connection.outbox, count: 3)
        #expect(frames == [2, 3, 4].map { Self.numbered($0).text })
    }

    @Test("Missing events the store lacks too are skipped, so what waits goes out rather than stall; a later gap is reported again")
    func missingEventsAreSkipped() async {
        let reported = Recorded<Int>()
        let connection = Self.replayed(upTo: 0, reported: reported)
        connection.send(Self.numbered(3), live: true)
        #expect(connection.skipMissingEvents() == 1...2)
        #expect(connection.missingEvent() == nil, "nothing waits, and the watch ends")
        connection.send(Self.numbered(5), live: true)
        #expect(reported.values == [1, 4])
        #expect(await Self.written(connection.outbox, count: 2).dropFirst() == [Self.numbered(3).text])
    }

    @Test("Events waiting for a missing one count against the outbox: a socket that waits too long in bytes is closed")
    func waitingEventsAreBounded() {
        let connection = Self.replayed(upTo: 0, outboxLimit: 4096, reported: Recorded<Int>())
        for number in 2..<12 { connection.send(Self.numbered(number, content: String(repeating: "z", count: 1000)), live: true) }
        #expect(connection.isClosed)
    }

    @Test("The catch-up cursor is a margin behind the newest event sent, and the recent events are bounded")
    func recentEvents() {
        var recent = RecentEvents(capacity: 4)
        #expect(recent.recent(back: 2) == nil)
        for index in 0..<10 { recent.insert("s_\(index)") }
        recent.insert("s_9")
        #expect(recent.recent(back: 0) == "s_9")
        #expect(recent.recent(back: 2) == "s_7")
        #expect(recent.recent(back: 64) == "s_6", "the oldest kept when the margin reaches past it")
        #expect(!recent.contains("s_5") && recent.contains("s_6"))
    }
}

/// Values a callback records, in order.
final class Recorded<Value: Sendable>: Sendable {
    private let recorded = NIOLockedValueBox<[Value]>([])
    func append(_ value: Value) { recorded.withLockedValue { $0.append(value) } }
    var values: [Value] { recorded.withLockedValue { $0 } }
}

/// A count shared with a callback.
final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
