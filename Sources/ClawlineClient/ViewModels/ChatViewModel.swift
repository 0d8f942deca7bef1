import ClawlineProtocol
import Foundation
import Observation

/// The chat screen: the timeline, the input, the connection state and the assistant's typing.
@Observable
@MainActor
public final class ChatViewModel {
    /// The timeline, oldest first.
    public var messages: [ChatMessage] { timeline.messages }
    /// The timeline, changed only through the reducer the service uses too.
    private var timeline = Timeline(deviceId: nil)
    public var messageInput = ""
    public private(set) var isSending = false
    public private(set) var connectionState: ConnectionState = .disconnected
    /// A banner: the last error, until cleared.
    public private(set) var error: String?
    /// Whether the assistant is typing (an indicator expires after the spec's `typingExpiry`).
    public private(set) var isAssistantTyping = false
    /// Set when the server dropped older history (`replayTruncated` or `historyReset`).
    public private(set) var historyNotice: String?

    @ObservationIgnored private let auth: any AuthManaging
    @ObservationIgnored private let chatService: any ChatServicing
    @ObservationIgnored private let clock: any Clock<Duration>
    @ObservationIgnored private var observation: Task<Void, Never>?
    @ObservationIgnored private var typingExpiry: Task<Void, Never>?
    @ObservationIgnored private lazy var buffer = StreamingTokenBuffer(clock: clock) { [weak self] snapshots in
        for snapshot in snapshots { self?.apply(snapshot) }
    }

    /// A model of `chatService`'s conversation; `clock` times the typing expiry and the snapshot buffer.
    public init(auth: any AuthManaging, chatService: any ChatServicing, clock: any Clock<Duration> = ContinuousClock()) {
        self.auth = auth
        self.chatService = chatService
        self.clock = clock
    }

    /// Shows the stored conversation, starts observing and connects.
    public func onAppear() async {
        guard observation == nil, let token = auth.token else { return }
        if let stored = try? await chatService.conversation() {
            timeline = Timeline(messages: stored.messages, cursor: stored.cursor, deviceId: nil)
        }
        startObserving()
        do {
            try await chatService.connect(token: token, lastMessageId: nil)
        } catch {
            show(error, prefix: "Failed to connect")
        }
    }

    /// Stops observing and disconnects.
    public func onDisappear() async {
        observation?.cancel()
        observation = nil
        buffer.flush()
        await chatService.disconnect()
    }

    /// Sends the input; the message appears at once and is replaced when the server echoes it.
    public func send() async {
        let content = messageInput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !content.isEmpty else { return }
        messageInput = ""
        isSending = true
        error = nil
        do {
            apply(try await chatService.send(content: content, attachments: []))
        } catch {
            show(error, prefix: "Failed to send")
            // The message stays visible, marked as not sent.
            let id = "local-\(UUID().uuidString)"
            timeline.apply(
                .queued(
                    ChatMessage(
                        id: id, clientId: id, role: .user, content: content, timestamp: Date(), status: .failed,
                        failure: (error as? ClawlineClientError)?.description ?? "\(error)")))
            isSending = false
        }
    }

    /// Sends a failed message again under a new id.
    public func retry(_ message: ChatMessage) async {
        do {
            let retried = try await chatService.retry(messageId: message.id)
            timeline.apply(.retried(messageId: message.id))
            apply(retried)
        } catch {
            show(error, prefix: "Failed to retry")
        }
    }

    /// Tells the server the user is typing (the service drops what the spec's rate does not allow).
    public func userIsTyping(_ active: Bool) async {
        await chatService.sendTyping(active: active)
    }

    public func clearError() {
        error = nil
    }

    private func startObserving() {
        let service = chatService
        let tasks = [
            Task { [weak self] in for await message in service.incomingMessages { self?.receive(message) } },
            Task { [weak self] in for await state in service.connectionState { self?.update(state) } },
            Task { [weak self] in
                for await typing in service.incomingTyping where typing.role == .assistant { self?.assistantTyping(typing.active) }
            },
            Task { [weak self] in for await notice in service.notices { self?.handle(notice) } },
        ]
        observation = Task {
            await withTaskCancellationHandler {
                for task in tasks { await task.value }
            } onCancel: {
                for task in tasks { task.cancel() }
            }
        }
    }

    private func receive(_ message: ChatMessage) {
        if message.isStreaming {
            buffer.add(message)
        } else {
            buffer.flush()
            apply(message)
        }
        if message.role == .assistant && !message.isStreaming { isSending = false }
    }

    /// Puts `message` in the timeline as the service reported it (the shared reducer's rules).
    private func apply(_ message: ChatMessage) {
        timeline.apply(.updated(message))
        if message.role == .assistant { isAssistantTyping = message.isStreaming && isAssistantTyping }
    }

    private func update(_ state: ConnectionState) {
        connectionState = state
        guard case .failed(let failure) = state else { return }
        error = failure.description
        isSending = false
        auth.clearCredentialsIfRejected(by: failure)
    }

    private func assistantTyping(_ active: Bool) {
        isAssistantTyping = active
        typingExpiry?.cancel()
        guard active else { return }
        let clock = clock
        typingExpiry = Task { [weak self] in
            guard (try? await clock.sleep(for: Clawline.Constants.typingExpiry)) != nil else { return }
            self?.isAssistantTyping = false
        }
    }

    private func handle(_ notice: ChatNotice) {
        switch notice {
        case .authenticated(let success) where success.historyReset == true:
            historyNotice = "The server's history was reset; older messages are gone."
            timeline.apply(.historyReset)
        case .authenticated(let success) where success.replayTruncated:
            historyNotice = "Some older messages could not be delivered to this device."
        case .serverError(let failure):
            error = failure.message
        default:
            break
        }
    }

    private func show(_ error: any Error, prefix: String) {
        self.error = "\(prefix): \((error as? ClawlineClientError)?.description ?? error.localizedDescription)"
    }
}
