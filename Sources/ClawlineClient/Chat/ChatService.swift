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

    // The conversation and what is derived from it.
    var conversationState: Conversation?
    /// Ids of server events already applied (finals), for deduplication.
    var appliedEvents: Set<String> = []

    // The session.
    var token: String?
    var state: ConnectionState = .disconnected
    var runTask: Task<Void, Never>?
    var firstAuthentication: AsyncStream<Result<Void, ClawlineClientError>>.Continuation?
    var backoff: ReconnectBackoff

    // The current socket.
    var socket: (any WebSocketConnection)?
    var socketName = ""
    var generation = 0
    var isAuthenticated = false
    var machine: SessionMachine?
    var timers: [Task<Void, Never>] = []
    var inFlight: String?
    var replayRemaining: Int?
    /// Streamed answers refreshed on the current socket.
    var liveStreams: Set<String> = []
    var messageWindow = SendWindow(Clawline.RateLimits.message)
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
    }

    deinit {
        runTask?.cancel()
        for timer in timers { timer.cancel() }
        messageSink.finish()
        stateSink.finish()
        typingSink.finish()
        frameSink.finish()
        noticeSink.finish()
    }

    /// The connection state now.
    public var currentState: ConnectionState { state }

    public func conversation() async throws -> Conversation { try await loaded() }

    // MARK: Connecting

    public func connect(token: String, lastMessageId: String? = nil) async throws {
        var conversation = try await loaded()
        if let lastMessageId, lastMessageId != conversation.cursor {
            conversation.cursor = lastMessageId
            try await save(conversation)
        }
        stopSession()
        self.token = token
        backoff.reset()
        let (outcome, sink) = AsyncStream<Result<Void, ClawlineClientError>>.makeStream()
        firstAuthentication = sink
        runTask = Task { await self.run() }
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

    private func stopSession() {
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
        inFlight = nil
        replayRemaining = nil
        liveStreams = []
        machine = nil
    }

    /// Connects, reads until the socket ends, and reconnects with backoff until stopped.
    private func run() async {
        while !Task.isCancelled {
            if state != .waitingForApproval { set(backoff.failedAttempts == 0 ? .connecting : .reconnecting) }
            let failure = await runSocket()
            if failure == .deviceNotApproved {
                // Pending approval: ask again every deviceApprovalRetryInterval until an admin decides.
                set(.waitingForApproval)
                let deadline = environment.elapsed() + Clawline.Constants.deviceApprovalRetryInterval
                noticeSink.yield(.reconnecting(in: Clawline.Constants.deviceApprovalRetryInterval))
                guard (try? await environment.sleep(untilElapsed: deadline)) != nil else { return }
                continue
            }
            if let failure {
                set(.failed(failure))
                settleConnect(.failure(failure))
                return
            }
            guard !Task.isCancelled else { return }
            let delay = backoff.nextDelay()
            let deadline = environment.elapsed() + delay
            set(.reconnecting)
            noticeSink.yield(.reconnecting(in: delay))
            do {
                try await environment.sleep(untilElapsed: deadline)
            } catch {
                return
            }
        }
    }

    /// One socket from open to close; returns the failure that ends the session, or `nil` to reconnect.
    private func runSocket() async -> ClawlineClientError? {
        guard let token else { return .notConnected }
        let conversation: Conversation
        let opened: any WebSocketConnection
        do {
            conversation = try await loaded()
            let transport = transport
            let url = socketURL(of: serverURL)
            opened = try await environment.withDeadline(Clawline.Constants.connectTimeout, "opening \(url.absoluteString)") {
                try await transport.connect(to: url)
            }
        } catch {
            noticeSink.yield(.connectionLost("\(error)"))
            return nil
        }
        generation += 1
        socket = opened
        socketName = connections.next()
        machine = SessionMachine(engine: Self.engine, now: environment.elapsed)
        let cursor = conversation.cursor.map(Nullable.value) ?? .absent
        send(.auth(Auth(token: token, deviceId: deviceId, lastMessageId: cursor)))
        schedule(after: Clawline.Constants.connectTimeout) { service, generation in
            await service.authenticationTimedOut(generation)
        }
        var failure: ClawlineClientError?
        var closeCode: Int?
        for await event in opened.events {
            switch event {
            case .text(let text):
                failure = await receive(text)
            case .closed(let code):
                closeCode = code
            }
            if failure != nil { break }
        }
        endSocket()
        if failure == nil { noticeSink.yield(.connectionLost("the socket closed\(closeCode.map { " (\($0))" } ?? "")")) }
        return failure
    }

    private func authenticationTimedOut(_ generation: Int) async {
        guard generation == self.generation, !isAuthenticated, let socket else { return }
        noticeSink.yield(.connectionLost("no auth_result within \(Clawline.Constants.connectTimeout)"))
        socket.close(code: 1000)
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

    /// The conversation, loaded from the store on first use.
    func loaded() async throws -> Conversation {
        if let conversationState { return conversationState }
        let conversation = try await store.load()
        conversationState = conversation
        appliedEvents = Set(conversation.messages.lazy.filter { $0.status != .streaming && $0.id.hasPrefix("s_") }.map(\.id))
        return conversation
    }

    /// Stores `conversation` and makes it the current one.
    func save(_ conversation: Conversation) async throws {
        conversationState = conversation
        try await store.save(conversation)
    }

    /// Changes the conversation in memory and stores it; a storage failure is reported as a notice
    /// (the state in memory stays right, and the next save writes it).
    func update(_ change: (inout Conversation) -> Void) async {
        guard var conversation = conversationState else { return }
        change(&conversation)
        do {
            try await save(conversation)
        } catch {
            noticeSink.yield(.storageFailed("could not store the conversation: \(error)"))
        }
    }
}
