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

/// A conversation in one JSON file, rewritten atomically (mode 0600) on every change.
///
/// The whole file is rewritten each time, which is simple and safe (a crash leaves the old file
/// or the new one); a timeline of thousands of messages would want an append-only journal.
public actor FileConversationStore: ConversationStore {
    /// The file.
    public let url: URL

    /// A store in `url`.
    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> Conversation {
        guard FileManager.default.fileExists(atPath: url.path) else { return Conversation() }
        do {
            return try JSONDecoder().decode(Conversation.self, from: Data(contentsOf: url))
        } catch {
            throw ClawlineClientError.storage("the conversation in \(url.path) is unreadable: \(error)")
        }
    }

    public func save(_ conversation: Conversation) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try PrivateFile.write(try encoder.encode(conversation), to: url)
    }
}
