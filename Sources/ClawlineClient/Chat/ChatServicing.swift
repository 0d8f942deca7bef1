import ClawlineProtocol
import Foundation

/// The state of the chat socket.
public enum ConnectionState: Sendable, Hashable {
    case disconnected
    /// Opening the socket and authenticating for the first time.
    case connecting
    /// Authenticated: frames flow.
    case connected
    /// The socket was lost; the service is waiting out its backoff or opening a new one.
    case reconnecting
    /// The server answered `device_not_approved`: the device waits for an admin, and the service
    /// authenticates again every `deviceApprovalRetryInterval` until it is approved.
    case waitingForApproval
    /// Stopped for good until ``ChatServicing/connect(token:lastMessageId:)`` is called again.
    case failed(ClawlineClientError)
}

/// Something the UI may want to tell the user that is not a message.
public enum ChatNotice: Sendable, Hashable {
    /// An `auth_result` success: how much history is replayed and whether some was lost.
    case authenticated(AuthSuccess)
    /// The replay after authentication is complete.
    case replayFinished
    /// The server answered with an `error` frame (shown as a banner; the socket stays open unless
    /// the code ends the session).
    case serverError(ErrorMessage)
    /// A frame broke the protocol (what the server sent, or a rule the client's session machine
    /// found); reported, never acted on blindly.
    case protocolViolation(String)
    /// The socket was lost (the reason, when known); the service reconnects.
    case connectionLost(String)
    /// The conversation could not be stored (what failed); the state in memory stays right, and
    /// the next change tries to store it again.
    case storageFailed(ConversationStorageError)
    /// The next attempt to connect starts after this backoff delay.
    case reconnecting(in: Duration)
}

/// An attachment to send with a message.
public enum OutgoingAttachment: Sendable, Hashable {
    /// An image sent inline (base64, at most the spec's `maxInlineAttachmentBytes` raw bytes).
    case inlineImage(Data, mimeType: ImageMimeType)
    /// A file uploaded with `POST /upload` before the message is sent, then attached by asset id.
    case file(Data, mimeType: String, fileName: String)
    /// An asset uploaded earlier.
    case asset(AssetId)
}

/// The authenticated chat socket of a device (seed 000's `ChatServicing`): one socket per device,
/// reconnected with backoff, with a persisted queue of outgoing messages.
///
/// Every stream is read by one consumer; streams nobody reads keep only their newest elements
/// (messages are never dropped).
public protocol ChatServicing: Sendable {
    /// Every message as it appears or changes: a new message, each streamed snapshot (the same
    /// id, growing), a status change (sent, delivered, failed).
    var incomingMessages: AsyncStream<ChatMessage> { get }
    /// Connection state changes.
    var connectionState: AsyncStream<ConnectionState> { get }
    /// Typing indicators from the server.
    var incomingTyping: AsyncStream<TypingEvent> { get }
    /// Every frame the server sent, decoded (approval requests are read from here).
    var serverFrames: AsyncStream<ServerFrame> { get }
    /// Replay summaries, server errors and connection losses.
    var notices: AsyncStream<ChatNotice> { get }

    /// Opens the socket and authenticates with `token`, replaying from `lastMessageId` (the
    /// stored cursor when `nil`); returns after the first successful `auth_result`, reconnecting
    /// with backoff (and waiting for approval) until then. Throws when the server refuses the
    /// token or the session ends.
    func connect(token: String, lastMessageId: String?) async throws
    /// Closes the socket and stops reconnecting.
    func disconnect() async
    /// Queues a message (persisted before it is sent), uploading file attachments first; returns
    /// the message as shown until the server echoes it.
    @discardableResult
    func send(content: String, attachments: [OutgoingAttachment]) async throws -> ChatMessage
    /// Sends a failed message again under a new id.
    @discardableResult
    func retry(messageId: String) async throws -> ChatMessage
    /// Sends a typing indicator, unless the spec's typing rate would be exceeded (then it is dropped).
    func sendTyping(active: Bool) async
    /// Sends an admin's `pair_decision` on the chat socket.
    func send(decision: PairDecision) async throws
    /// The conversation as the service holds it.
    func conversation() async throws -> Conversation
}
