import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A conversation in an append-only journal (one 0600 file): each save appends one line with
/// what changed since the last save (the messages from the first one that changed, as the caller
/// says with ``save(_:changedFrom:)``, the queue and the cursor), so storing one more event costs
/// the same with ten messages or ten thousand.
///
/// When the journal has grown to several times the conversation's size it is compacted: the
/// whole conversation is written as one record to a new file, renamed over the old one.
///
/// **Crashes.** A record is a line of JSON ending in a newline, written with one `write(2)` and
/// `fsync(2)`. A crash in the middle of a write leaves the last line without its newline (or
/// with bytes that do not decode); loading drops that one record and nothing before it, and the
/// next save writes after the last good record. A conversation stored by the earlier one-file
/// format (a single JSON object) is read, and the next save compacts it into a journal.
public actor FileConversationStore: ConversationStore {
    /// The file.
    public let url: URL
    /// What the journal holds of the conversation after the last save or load (the messages
    /// themselves are not kept: an app's timeline stays the only copy in memory).
    private var stored: StoredState?
    /// Bytes of the journal's good records.
    private var journalBytes = 0

    private struct StoredState {
        /// The encoded size of each message, and their sum: what a compaction would write.
        var messageBytes: [Int]
        var totalMessageBytes: Int
        var pending: [PendingMessage]
        var cursor: String?

        var messageCount: Int { messageBytes.count }

        init(_ conversation: Conversation) throws {
            messageBytes = try conversation.messages.map(Journal.size)
            totalMessageBytes = messageBytes.reduce(0, +)
            pending = conversation.pending
            cursor = conversation.cursor
        }

        /// The state after a record that kept `keep` messages of it and then `conversation`'s.
        mutating func update(keeping keep: Int, of conversation: Conversation) throws {
            totalMessageBytes -= messageBytes[keep...].reduce(0, +)
            messageBytes.removeSubrange(keep...)
            for message in conversation.messages[keep...] {
                let size = try Journal.size(of: message)
                messageBytes.append(size)
                totalMessageBytes += size
            }
            pending = conversation.pending
            cursor = conversation.cursor
        }
    }

    /// A store in `url`.
    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> Conversation {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            stored = try StoredState(Conversation())
            journalBytes = 0
            return Conversation()
        }
        let journal = try Journal.read(data, from: url)
        stored = try StoredState(journal.conversation)
        journalBytes = journal.goodBytes
        if journal.goodBytes < data.count || journal.isLegacy {
            // A torn last record, or the old format: start over from what was read.
            try compact(journal.conversation)
        }
        return journal.conversation
    }

    /// Writes the whole conversation (a compaction): a caller that does not say what changed.
    public func save(_ conversation: Conversation) throws {
        try compact(conversation)
    }

    /// Appends the messages from `index` on, the queue and the cursor: the cost of one more event
    /// does not grow with the history.
    public func save(_ conversation: Conversation, changedFrom index: Int) async throws {
        if stored == nil || Self.size(of: url) != journalBytes {
            // Not read yet, or another writer (another process on the same file) changed it.
            _ = try load()
        }
        guard var stored else { return try compact(conversation) }
        let keep = max(0, min(index, stored.messageCount, conversation.messages.count))
        if keep == conversation.messages.count, keep == stored.messageCount, conversation.pending == stored.pending,
            conversation.cursor == stored.cursor
        {
            return
        }
        if keep == 0 || journalBytes > 4 * stored.totalMessageBytes + 65_536 { return try compact(conversation) }
        let line = try Journal.line(JournalRecord(keep: keep, of: conversation))
        try append(line)
        journalBytes += line.count
        try stored.update(keeping: keep, of: conversation)
        self.stored = stored
    }

    private static func size(of url: URL) -> Int? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }

    /// Writes `conversation` as the journal's one record, atomically.
    private func compact(_ conversation: Conversation) throws {
        let line = try Journal.line(JournalRecord(keep: 0, of: conversation))
        try PrivateFile.write(line, to: url)
        journalBytes = line.count
        stored = try StoredState(conversation)
    }

    /// Appends `line` with one write and makes it durable.
    private func append(_ line: Data) throws {
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw ClawlineClientError.storage("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            let reason = written < 0 ? String(cString: strerror(errno)) : "wrote \(written) of \(line.count) bytes"
            // Whatever part was written is a torn record: read the journal again before the next save.
            stored = nil
            throw ClawlineClientError.storage("cannot append to \(url.path): \(reason)")
        }
        guard fsync(descriptor) == 0 else { throw ClawlineClientError.storage("cannot sync \(url.path): \(String(cString: strerror(errno)))") }
    }
}

/// One save: keep the first `keep` messages, then these; the queue and the cursor as they are.
struct JournalRecord: Codable, Sendable, Hashable {
    var keep: Int
    var messages: [ChatMessage]
    var pending: [PendingMessage]
    var cursor: String?

    /// The record that keeps the first `keep` messages and then has the rest of `conversation`.
    init(keep: Int, of conversation: Conversation) {
        self.keep = keep
        messages = Array(conversation.messages[keep...])
        pending = conversation.pending
        cursor = conversation.cursor
    }

    /// `conversation` with this record applied.
    func applied(to conversation: Conversation) -> Conversation? {
        guard keep <= conversation.messages.count else { return nil }
        var next = Conversation()
        next.messages = Array(conversation.messages[..<keep]) + messages
        next.pending = pending
        next.cursor = cursor
        return next
    }
}

/// Reading and writing the journal's lines.
enum Journal {
    /// A journal read: the conversation of its good records, and how many bytes they take.
    struct Contents {
        var conversation: Conversation
        var goodBytes: Int
        var isLegacy = false
    }

    static func line(_ record: JournalRecord) throws -> Data {
        try encoder().encode(record) + Data([UInt8(ascii: "\n")])
    }

    /// The bytes `message` takes in a record.
    static func size(of message: ChatMessage) throws -> Int {
        try encoder().encode(message).count + 1
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The conversation in `data`: every complete record that decodes, in order, up to the first
    /// that does not (a torn write). A file in the earlier one-object format is read whole.
    static func read(_ data: Data, from url: URL) throws -> Contents {
        let decoder = JSONDecoder()
        var conversation = Conversation()
        var offset = data.startIndex
        while let newline = data[offset...].firstIndex(of: UInt8(ascii: "\n")) {
            guard let record = try? decoder.decode(JournalRecord.self, from: data[offset..<newline]),
                let next = record.applied(to: conversation)
            else { break }
            conversation = next
            offset = newline + 1
        }
        if offset == data.startIndex, !data.isEmpty {
            // No record decodes: the earlier one-object format (no newline), a first record torn
            // by a crash (no newline either), or a file that is not a conversation.
            if let legacy = try? decoder.decode(Conversation.self, from: data) {
                return Contents(conversation: legacy, goodBytes: data.count, isLegacy: true)
            }
            guard data.contains(UInt8(ascii: "\n")) else { return Contents(conversation: conversation, goodBytes: 0) }
            throw ClawlineClientError.storage("the conversation in \(url.path) is unreadable: its first record does not decode")
        }
        return Contents(conversation: conversation, goodBytes: offset - data.startIndex)
    }
}
