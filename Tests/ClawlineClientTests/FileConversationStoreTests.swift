import Foundation
import Testing

@testable import ClawlineClient

/// The journal behind `FileConversationStore`: what a relaunch reads, after clean saves and after
/// a crash in the middle of one.
@Suite("Conversation journal")
struct FileConversationStoreTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("clawline-journal-\(UUID().uuidString).jsonl")
    }

    /// A conversation after `count` events: messages, a queue and the cursor.
    static func conversation(_ count: Int) -> Conversation {
        var conversation = Conversation()
        conversation.messages = (0..<count).map { index in
            ChatMessage(
                id: "s_\(index)", role: index % 2 == 0 ? .user : .assistant, content: "message \(index) ✓",
                timestamp: Date(timeIntervalSince1970: Double(index)), status: .delivered)
        }
        conversation.pending = count % 3 == 0 ? [] : [PendingMessage(id: "c_\(count)", content: "queued", attachments: [])]
        conversation.cursor = count == 0 ? nil : "s_\(count - 1)"
        return conversation
    }

    @Test("saves append what changed; a new store reads the same conversation, also after a message changes in place")
    func roundTrip() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let store = FileConversationStore(url: file)
        for count in 1...30 { try await store.save(Self.conversation(count), changedFrom: count - 1) }
        var changed = Self.conversation(30)
        changed.messages[3].status = .failed
        try await store.save(changed, changedFrom: 3)
        #expect(try await FileConversationStore(url: file).load() == changed)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 31, "one record per save")
        #expect(lines.last?.contains(#""keep":3"#) == true, "the last record keeps the unchanged messages")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("a crash at any byte of the last record loses that record only; the next save goes on from there")
    func truncatedAtEveryOffsetOfTheLastRecord() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let store = FileConversationStore(url: file)
        for count in 1...20 { try await store.save(Self.conversation(count), changedFrom: count - 1) }
        let before = try Data(contentsOf: file)
        try await store.save(Self.conversation(21), changedFrom: 20)
        let after = try Data(contentsOf: file)
        #expect(after.count > before.count)
        for offset in before.count..<after.count {
            try after.prefix(offset).write(to: file)
            let relaunched = FileConversationStore(url: file)
            let loaded = try await relaunched.load()
            #expect(loaded == Self.conversation(20), "truncated at byte \(offset) of \(after.count)")
            // The torn record is gone from the file, and the history goes on after it.
            try await relaunched.save(Self.conversation(22), changedFrom: 20)
            #expect(try await FileConversationStore(url: file).load() == Self.conversation(22), "saved after a cut at byte \(offset)")
        }
        try after.write(to: file)
        #expect(try await FileConversationStore(url: file).load() == Self.conversation(21))
    }

    @Test("the journal is compacted as it grows, and a history reset rewrites it")
    func compaction() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let store = FileConversationStore(url: file)
        var conversation = Self.conversation(50)
        for round in 0..<2_000 {
            conversation.messages[49].content = "edited \(round)"
            try await store.save(conversation, changedFrom: 49)
        }
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
        let snapshot = try Journal.line(JournalRecord(keep: 0, of: conversation)).count
        #expect(size <= 5 * snapshot + 65_536, "the journal stays within its compaction bound: \(size) bytes")
        #expect(try await FileConversationStore(url: file).load() == conversation)
        try await store.save(Conversation(), changedFrom: 0)
        #expect(try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count == 1, "a reset rewrites the journal")
    }

    @Test("a conversation in the earlier one-object format is read, and the next save turns it into a journal")
    func earlierFormat() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(Self.conversation(5)).write(to: file)
        let store = FileConversationStore(url: file)
        #expect(try await store.load() == Self.conversation(5))
        try await store.save(Self.conversation(6), changedFrom: 5)
        #expect(try await FileConversationStore(url: file).load() == Self.conversation(6))
        #expect(try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count == 2, "a journal now")
    }

    @Test("a file that is not a conversation is an error that names it")
    func unreadable() async throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not a conversation\n".utf8).write(to: file)
        await #expect(throws: ClawlineClientError.storage("the conversation in \(file.path) is unreadable: its first record does not decode")) {
            _ = try await FileConversationStore(url: file).load()
        }
    }
}
