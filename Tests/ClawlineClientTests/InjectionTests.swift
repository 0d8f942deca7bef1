import ClawlineClient
import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing
import WireTestSupport

/// What the services are given rather than build: the provider's HTTP endpoints, and storage
/// whose failures are reported as what they are.
@Suite("Injected HTTP and storage failures")
struct InjectionTests {
    /// The provider's HTTP endpoints, answered in memory.
    final class FakeHTTP: ProviderHTTP, @unchecked Sendable {
        let version: Int
        private let uploads = NIOLockedValueBox<[(bytes: Data, mimeType: String, fileName: String)]>([])
        init(version: Int = 1) { self.version = version }

        var uploaded: [(bytes: Data, mimeType: String, fileName: String)] { uploads.withLockedValue { $0 } }

        func protocolVersion() async throws -> Int { version }

        func upload(_ bytes: Data, mimeType: String, fileName: String, token: String) async throws -> UploadedAsset {
            uploads.withLockedValue { $0.append((bytes, mimeType, fileName)) }
            return UploadedAsset(assetId: "a_7c9e6679-7425-40de-944b-e07fc1f90ae7", mimeType: mimeType, size: bytes.count)
        }

        func download(assetId: AssetId, token: String) async throws -> (data: Data, mimeType: String?) { (Data(), nil) }
    }

    /// A store that loads an empty conversation and fails every save.
    struct FailingStore: ConversationStore {
        func load() async throws -> Conversation { Conversation() }
        func save(_ conversation: Conversation) async throws { throw ClawlineClientError.storage("the disk is full") }
    }

    @Test("A file is uploaded through the injected HTTP client and attached by its asset id")
    func uploadThroughInjectedHTTP() async throws {
        let transport = FakeTransport()
        let http = FakeHTTP()
        let chat = ChatService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: FakeSession.deviceId, store: InMemoryConversationStore(),
            transport: transport, environment: ClientEnvironment(clock: ManualClock(), random: { 0.5 }), http: http)
        async let connecting: Void = chat.connect(token: "token", lastMessageId: nil)
        let socket = try await transport.socket(0)
        try await socket.authenticate()
        try await connecting
        try await chat.send(content: "the report", attachments: [.file(Data("pdf".utf8), mimeType: "application/pdf", fileName: "r.pdf")])
        let frames = try await socket.waitForFrames(2)
        #expect(http.uploaded.map(\.fileName) == ["r.pdf"] && http.uploaded.first?.bytes == Data("pdf".utf8))
        guard case .message(let message) = frames[1] else { throw ClientTestFailure("expected the message, got \(frames[1])") }
        #expect(message.attachments == .value([.asset(AssetAttachment(assetId: "a_7c9e6679-7425-40de-944b-e07fc1f90ae7"))]))
    }

    @Test("The version check goes through the injected HTTP client")
    func versionThroughInjectedHTTP() async throws {
        let connection = ConnectionService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceInfo: DeviceInfo(platform: "Linux", model: "t"), http: FakeHTTP(version: 2))
        await #expect(throws: ClawlineClientError.updateRequired(serverVersion: 2)) { try await connection.checkVersion() }
    }

    @Test("A conversation that cannot be stored is a storage notice, not a protocol violation")
    func storageFailureIsItsOwnNotice() async throws {
        let transport = FakeTransport()
        let chat = ChatService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: FakeSession.deviceId, store: FailingStore(), transport: transport,
            environment: ClientEnvironment(clock: ManualClock(), random: { 0.5 }))
        let notices = Recorder(chat.notices)
        async let connecting: Void = chat.connect(token: "token", lastMessageId: nil)
        let socket = try await transport.socket(0)
        try await socket.authenticate()
        try await connecting
        socket.deliver(FakeSession.event("s_1", .assistant, "hello"))
        let failure = try await notices.first { if case .storageFailed = $0 { true } else { false } }
        #expect(
            failure == .storageFailed(ConversationStorageError(change: "the event s_1 and the cursor", reason: "Storage failed: the disk is full")))
        #expect(
            "\(ConversationStorageError(change: "the event s_1 and the cursor", reason: "full"))"
                == "could not store the event s_1 and the cursor: full")
        #expect(!notices.all.contains { if case .protocolViolation = $0 { true } else { false } })
    }

    @Test("A message that cannot be stored is not queued: send throws what failed to store, and nothing is sent")
    func unstoredMessageIsNotQueued() async throws {
        let transport = FakeTransport()
        let chat = ChatService(
            serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: FakeSession.deviceId, store: FailingStore(), transport: transport,
            environment: ClientEnvironment(clock: ManualClock(), random: { 0.5 }))
        async let connecting: Void = chat.connect(token: "token", lastMessageId: nil)
        let socket = try await transport.socket(0)
        try await socket.authenticate()
        try await connecting
        do {
            try await chat.send(content: "lost?", attachments: [])
            Issue.record("send succeeded without storing the message")
        } catch let error as ConversationStorageError {
            #expect(error.change.hasPrefix("the message c_") && error.change.hasSuffix(" queued to send"), "\(error)")
            #expect(error.reason == "Storage failed: the disk is full")
        }
        let conversation = try await chat.conversation()
        #expect(conversation.pending.isEmpty && conversation.messages.isEmpty)
        // A marker: typing goes out at once, so a message sent before it would be in the frames by now.
        await chat.sendTyping(active: true)
        #expect(try await socket.waitForFrames(2).map(\.tag) == ["auth", "typing"])
    }
}
