import ClawlineClient
import Foundation

// The cost of storing one more event in a conversation of N messages: `FileConversationStore`
// (an append-only journal, compacted as it grows) beside a store that rewrites the whole file on
// every change (what the client did before), side by side. Each save is made durable (fsync).
//
//     swift run -c release HistoryStoreBenchmarks [EVENTS-PER-SIZE]

let events = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200

/// The earlier store: the whole conversation as one JSON object, rewritten atomically.
actor WholeFileStore: ConversationStore {
    let url: URL
    init(url: URL) { self.url = url }
    func load() throws -> Conversation { Conversation() }
    func save(_ conversation: Conversation) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(conversation)
        let temporary = url.appendingPathExtension("tmp")
        try data.write(to: temporary)
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.synchronize()
        try handle.close()
        _ = rename(temporary.path, url.path)
    }
}

func message(_ index: Int) -> ChatMessage {
    ChatMessage(
        id: "s_\(UUID().uuidString.lowercased())", role: index % 2 == 0 ? .user : .assistant,
        content: String(repeating: "a few words of a chat message ", count: 1 + index % 5), timestamp: Date(), status: .delivered)
}

/// Microseconds per save of one more event, after the store holds `size` messages.
func measure(_ store: any ConversationStore, size: Int) async throws -> (mean: Double, p99: Double) {
    var conversation = Conversation()
    conversation.messages = (0..<size).map(message)
    try await store.save(conversation)
    var samples: [Double] = []
    for index in 0..<events {
        conversation.messages.append(message(size + index))
        conversation.cursor = conversation.messages.last?.id
        let start = ContinuousClock.now
        try await store.save(conversation, changedFrom: conversation.messages.count - 1)
        let took = start.duration(to: .now)
        samples.append(Double(took.components.seconds) * 1e6 + Double(took.components.attoseconds) / 1e12)
    }
    samples.sort()
    return (samples.reduce(0, +) / Double(samples.count), samples[min(samples.count - 1, samples.count * 99 / 100)])
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-history-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
print("one more event, \(events) saves per size, each durable (fsync)")
for size in [10, 1_000, 10_000] {
    let journal = try await measure(FileConversationStore(url: directory.appendingPathComponent("journal-\(size)")), size: size)
    let whole = try await measure(WholeFileStore(url: directory.appendingPathComponent("whole-\(size)")), size: size)
    print(
        String(
            format: "%6d messages: journal %8.0f µs mean %8.0f µs p99   whole-file rewrite %8.0f µs mean %8.0f µs p99", size, journal.mean,
            journal.p99, whole.mean, whole.p99))
}
