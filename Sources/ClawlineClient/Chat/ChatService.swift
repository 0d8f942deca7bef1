import ClawlineProtocol
import Foundation
import WireRuntime

/// The reference ``ChatServicing``: one WebSocket per device through a ``WebSocketTransport``.
///
/// Every frame received goes through `ServerFrame.decode` and every frame sent is a generated
/// type; both directions are also fed to the spec's session machine, which reports a rule broken
/// by either side as a ``ChatNotice/protocolViolation(_:)``.
///
/// Sending keeps the order of the pending queue: one message is in flight at a time, retried with
/// the same id after `ackTimeout`, after `rate_limited` (200–500 ms later) and after a reconnect,
/// and a later message never overtakes it. The cursor (`lastMessageId`) moves only after an event
/// is fully processed and stored.
public actor ChatService: ChatServicing {
    public nonisolated let incomingMessages: AsyncStream<ChatMessage>
    public nonisolated let connectionState: AsyncStream<ConnectionState>
    public nonisolated let incomingTyping: AsyncStream<TypingEvent>
    public nonisolated let serverFrames: AsyncStream<ServerFrame>
    public nonisolated let notices: AsyncStream<ChatNotice>

    let messageSink: AsyncStream<ChatMessage>.Continuation
    let stateSink: AsyncStream<ConnectionState>.Continuation
    let typingSink: AsyncStream<TypingEvent>.Continuation
    let frameSink: AsyncStream<ServerFrame>.Continuation
    let noticeSink: AsyncStream<ChatNotice>.Continuation
    /// The number of each session whose reconnect loop has ended, in order (for tests).
    nonisolated let supervisorEnds: AsyncStream<Int>
    let supervisorEndSink: AsyncStream<Int>.Continuation

    /// The provider's base URL.
    public nonisolated let serverURL: URL
    /// This device's id.
    public nonisolated let deviceId: DeviceId
    let transport: any WebSocketTransport
    let store: any ConversationStore
    let environment: ClientEnvironment
    let observer: FrameObserver?
    let http: any ProviderHTTP
    let connections = ConnectionCounter(prefix: "chat")
    static let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)

    // The conversation: the timeline and the queue, loaded from the store on first use.
    var timeline: Timeline?
    var queue = OutgoingQueue()
    /// The first message changed and not yet stored (a save failed, or only snapshots changed it).
    var unstoredFrom: Int?

    // The session (from `connect` to `disconnect` or the next `connect`).
    var token: String?
    var session = 0
    var state: ConnectionState = .disconnected
    var runTask: Task<Void, Never>?
    var firstAuthentication: AsyncStream<Result<Void, ClawlineClientError>>.Continuation?
    var backoff: ReconnectBackoff

    // The current socket.
    var socket: (any WebSocketConnection)?
    var socketName = ""
    var generation = 0
    var isAuthenticated = false
    /// Whether the provider refused this socket's `auth` as over its rate limit: the next attempt
    /// waits out the rate window, and the token is kept.
    var authRateLimited = false
    var machine: SessionMachine?
    var timers: [Task<Void, Never>] = []
    var replayRemaining: Int?
    var typingWindow = SendWindow(Clawline.RateLimits.typing)

    /// A service for the device `deviceId` of the provider at `serverURL`.
    public init(
        serverURL: URL, deviceId: DeviceId, store: any ConversationStore, transport: any WebSocketTransport = PlatformTransport.make(),
        environment: ClientEnvironment = ClientEnvironment(), observer: FrameObserver? = nil, http: (any ProviderHTTP)? = nil
    ) {
        self.serverURL = serverURL
        self.deviceId = deviceId
        self.store = store
        self.transport = transport
        self.environment = environment
        self.observer = observer
        self.http = http ?? ProviderHTTPClient(baseURL: serverURL)
        backoff = ReconnectBackoff(random: environment.random)
        (incomingMessages, messageSink) = AsyncStream.makeStream()
        (connectionState, stateSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        (incomingTyping, typingSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        (serverFrames, frameSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
        (notices, noticeSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        (supervisorEnds, supervisorEndSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
    }

    deinit {
        runTask?.cancel()
        for timer in timers { timer.cancel() }
        socket?.close(code: 1000)
        messageSink.finish()
        stateSink.finish()
        typingSink.finish()
        frameSink.finish()
        noticeSink.finish()
    }

    /// The connection state now.
    public var currentState: ConnectionState { state }

    public func conversation() async throws -> Conversation {
        let timeline = try await loaded()
        var conversation = Conversation()
        conversation.messages = timeline.messages
        conversation.pending = queue.pending
        conversation.cursor = timeline.cursor
        return conversation
    }

    // MARK: Connecting

    /// Starts a session. Its reconnect loop holds the service weakly, so an app that lets go of
    /// the service ends the session and closes its socket, as `disconnect()` does.
    public func connect(token: String, lastMessageId: String? = nil) async throws {
        let stored = try await loaded()
        if let lastMessageId, lastMessageId != stored.cursor {
            timeline = Timeline(messages: stored.messages, cursor: lastMessageId, deviceId: deviceId)
            try await persist("the cursor \(lastMessageId)")
        }
        stopSession()
        self.token = token
        backoff.reset()
        let (outcome, sink) = AsyncStream<Result<Void, ClawlineClientError>>.makeStream()
        firstAuthentication = sink
        let supervisor = ConnectionSupervisor(
            service: self, session: session, transport: transport, environment: environment, url: socketURL(of: serverURL),
            ended: { [sink = supervisorEndSink] in sink.yield($0) })
        runTask = Task { await supervisor.run() }
        for await result in outcome { return try result.get() }
        throw CancellationError()
    }

    public func disconnect() async {
        stopSession()
        set(.disconnected)
    }

    /// Closes the socket with 1001 (going away) but keeps the session: the service reconnects
    /// with its backoff and replays, as after a lost network; for demos and tests of recovery.
    public func dropConnection() async {
        socket?.close(code: 1001)
    }

    /// Ends the wait of ``connect(token:lastMessageId:)`` with `result` (`nil`: cancelled).
    func settleConnect(_ result: Result<Void, ClawlineClientError>?) {
        if let result { firstAuthentication?.yield(result) }
        firstAuthentication?.finish()
        firstAuthentication = nil
    }

    /// Ends the session: its loop's later calls are refused, and its socket is closed.
    private func stopSession() {
        session += 1
        runTask?.cancel()
        runTask = nil
        endSocket()
        settleConnect(nil)
    }

    /// Forgets the current socket: its timers, its in-flight message, its machine.
    func endSocket() {
        for timer in timers { timer.cancel() }
        timers = []
        socket?.close(code: 1000)
        socket = nil
        isAuthenticated = false
        queue.connectionEnded()
        timeline?.apply(.connectionEnded)
        replayRemaining = nil
        machine = nil
    }

    /// Runs `body` after `delay` on the clock unless the socket changed (or the service stopped) meanwhile.
    func schedule(after delay: Duration, _ body: @escaping @Sendable (isolated ChatService, Int) async -> Void) {
        let generation = generation
        let environment = environment
        let deadline = environment.elapsed() + delay
        timers.removeAll { $0.isCancelled }
        timers.append(
            Task { [weak self] in
                do { try await environment.sleep(untilElapsed: deadline) } catch { return }
                guard let self else { return }
                await self.run(body, generation)
            })
    }

    private func run(_ body: @Sendable (isolated ChatService, Int) async -> Void, _ generation: Int) async {
        guard generation == self.generation, socket != nil else { return }
        await body(self, generation)
    }

    func set(_ newState: ConnectionState) {
        guard newState != state else { return }
        state = newState
        stateSink.yield(newState)
    }

    /// Sends a frame on the current socket, checking it with the session machine first.
    func send(_ frame: ClientFrame) {
        guard let socket else { return }
        let text = frame.encodedText()
        if let violations = machine?.observe(json: Array(text.utf8), from: .client) {
            for violation in violations { noticeSink.yield(.protocolViolation("client \(frame.tag): \(violation.message)")) }
        }
        observer?(ObservedFrame(connection: socketName, direction: .client, text: text, timestamp: environment.now()))
        socket.send(text)
    }

    // MARK: The conversation

    /// The timeline, loaded from the store (with the queue) on first use.
    @discardableResult
    func loaded() async throws -> Timeline {
        if let timeline { return timeline }
        let conversation: Conversation
        do {
            conversation = try await store.load()
        } catch {
            throw ConversationStorageError(change: "loading the conversation", reason: "\(error)")
        }
        let loaded = Timeline(messages: conversation.messages, cursor: conversation.cursor, deviceId: deviceId)
        timeline = loaded
        queue = OutgoingQueue(conversation.pending)
        return loaded
    }

    /// Stores the conversation as it is now (the store is told where its messages changed, so it
    /// can write only that); `change` says what the save was for.
    func persist(_ change: String) async throws(ConversationStorageError) {
        if let mark = timeline?.takeChangeMark() { unstoredFrom = min(unstoredFrom ?? mark, mark) }
        do {
            let conversation = try await conversation()
            try await store.save(conversation, changedFrom: unstoredFrom ?? conversation.messages.count)
            unstoredFrom = nil
        } catch {
            throw ConversationStorageError(change: change, reason: "\(error)")
        }
    }

    /// Applies `event` to the timeline, stores the result when `change` names it and the event
    /// changed something, and reports the messages it changed. A storage failure is reported as a
    /// notice: the state in memory stays right, and the next save writes it.
    func apply(_ event: TimelineEvent, storing change: String?) async {
        guard timeline != nil else { return }
        // What is stored changed when a message did (the change mark) or the cursor moved; no copy
        // of the timeline is kept to compare, so an event costs the same however long the history.
        let cursorBefore = timeline?.cursor
        let changed = timeline?.apply(event) ?? []
        if let change, timeline?.hasMarkedChanges == true || timeline?.cursor != cursorBefore {
            do {
                try await persist(change)
            } catch {
                noticeSink.yield(.storageFailed(error))
            }
        }
        for message in changed { messageSink.yield(message) }
    }
}

/// A change to the conversation that could not be stored.
public struct ConversationStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the save was for: the message queued, the event received, the cursor moved.
    public var change: String
    /// What the store said.
    public var reason: String

    /// A failure to store `change`.
    public init(change: String, reason: String) {
        self.change = change
        self.reason = reason
    }

    public var description: String { "could not store \(change): \(reason)" }
}
