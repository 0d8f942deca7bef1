import Foundation

/// What a device keeps of its conversation across launches.
public struct Conversation: Sendable, Hashable, Codable {
    /// The timeline, oldest first.
    public var messages: [ChatMessage] = []
    /// Messages sent but not acknowledged, in the order they must reach the server.
    public var pending: [PendingMessage] = []
    /// The last server event this device fully processed: the `lastMessageId` of the next `auth`.
    public var cursor: String?

    /// An empty conversation.
    public init() {}
}

/// Keeps a ``Conversation`` across launches.
public protocol ConversationStore: Sendable {
    /// The stored conversation (empty when there is none).
    func load() async throws -> Conversation
    /// Stores `conversation`, replacing what was stored; returns once it is durable.
    func save(_ conversation: Conversation) async throws
    /// Stores `conversation`, whose messages before `index` are the ones stored last time (its
    /// queue and cursor may have changed), so a store can write only what follows; returns once
    /// it is durable. By default, ``save(_:)``.
    func save(_ conversation: Conversation, changedFrom index: Int) async throws
}

extension ConversationStore {
    public func save(_ conversation: Conversation, changedFrom index: Int) async throws {
        try await save(conversation)
    }
}

/// A conversation in memory only (tests, previews).
public actor InMemoryConversationStore: ConversationStore {
    private var conversation: Conversation

    /// A store holding `conversation`.
    public init(_ conversation: Conversation = Conversation()) {
        self.conversation = conversation
    }

    public func load() -> Conversation { conversation }
    public func save(_ conversation: Conversation) { self.conversation = conversation }
}
