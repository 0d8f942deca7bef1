import ClawlineProtocol
import Foundation

/// One message of the conversation as the app shows it.
public struct ChatMessage: Sendable, Hashable, Codable, Identifiable {
    /// Who wrote it.
    public enum Role: String, Sendable, Hashable, Codable {
        case user
        case assistant
    }

    /// Where a message is in its life.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Written on this device, not yet acknowledged by the server.
        case sending
        /// Acknowledged, or received from the server.
        case delivered
        /// An assistant answer still streaming.
        case streaming
        /// Not delivered, or its answer never came: ``failure`` says why; it can be retried.
        case failed
    }

    /// The server's `s_` event id once the server has it; until then the `c_` id it was sent with.
    public var id: String
    /// The `c_` id this device sent the message with (its own messages only).
    public var clientId: String?
    public var role: Role
    public var content: String
    public var timestamp: Date
    public var status: Status
    /// The device that wrote a user message (as the server echoed it).
    public var deviceId: DeviceId?
    public var attachments: [Attachment]
    /// Why the message failed, when it did.
    public var failure: String?

    /// Whether the message is an assistant answer still growing.
    public var isStreaming: Bool { status == .streaming }

    /// A message as it is shown.
    public init(
        id: String, clientId: String? = nil, role: Role, content: String, timestamp: Date, status: Status, deviceId: DeviceId? = nil,
        attachments: [Attachment] = [], failure: String? = nil
    ) {
        self.id = id
        self.clientId = clientId
        self.role = role
        self.content = content
        self.timestamp = timestamp
        self.status = status
        self.deviceId = deviceId
        self.attachments = attachments
        self.failure = failure
    }

    /// The message a server event carries.
    init(_ event: ServerMessage) {
        self.init(
            id: event.id.rawValue, role: event.role == .user ? .user : .assistant, content: event.content,
            timestamp: Date(timeIntervalSince1970: Double(event.timestamp) / 1000), status: event.streaming ? .streaming : .delivered,
            deviceId: event.deviceId, attachments: event.attachments ?? [])
    }
}

/// A message waiting for the server's `ack`, kept in order and on disk until it comes.
public struct PendingMessage: Sendable, Hashable, Codable {
    /// The `c_` id every retry reuses.
    public var id: String
    public var content: String
    public var attachments: [Attachment]

    /// A message to send.
    public init(id: String, content: String, attachments: [Attachment]) {
        self.id = id
        self.content = content
        self.attachments = attachments
    }

    /// A new id for a message of this device: the spec's `ClientMessageId` (`c_…`), unique per device.
    static func newID() -> String { "c_\(UUID().uuidString.lowercased())" }

    /// The frame that sends it.
    var frame: ClientFrame {
        .message(ClientMessage(id: ClientMessageId(id), content: content, attachments: attachments.isEmpty ? .absent : .value(attachments)))
    }
}

/// A typing indicator from the server.
public struct TypingEvent: Sendable, Hashable {
    /// Who is typing (the assistant in v1).
    public var role: ChatMessage.Role
    /// Whether typing started or stopped; an active indicator expires after the spec's `typingExpiry`.
    public var active: Bool

    public init(role: ChatMessage.Role, active: Bool) {
        self.role = role
        self.active = active
    }
}
