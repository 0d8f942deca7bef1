import ClawlineClient
import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import Observation
import WireTestSupport

@Observable
@MainActor
final class MockAuthManager: AuthManaging {
    var credentials: Credentials?
    var isAuthenticated: Bool { credentials != nil }
    var currentUserId: UserId? { credentials?.userId }
    var token: String? { credentials?.token }
    var claims: TokenClaims? { credentials?.claims }

    init(token: String? = nil, userId: UserId = "user-1") {
        credentials = token.map {
            Credentials(serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", token: $0, userId: userId)
        }
    }

    func storeCredentials(_ credentials: Credentials) { self.credentials = credentials }
    func clearCredentials() { credentials = nil }
}

final class MockConnectionService: ConnectionServicing {
    let result: PairingResult
    let versionError: ClawlineClientError?
    let requestSink: AsyncStream<PairApprovalRequest>.Continuation
    private let requests: AsyncStream<PairApprovalRequest>
    private let calls = NIOLockedValueBox<[String]>([])
    private let requestStreamReads = NIOLockedValueBox(0)

    init(result: PairingResult, versionError: ClawlineClientError? = nil) {
        self.result = result
        self.versionError = versionError
        (requests, requestSink) = AsyncStream.makeStream()
    }

    var incomingPairingRequests: AsyncStream<PairApprovalRequest> {
        requestStreamReads.withLockedValue { $0 += 1 }
        return requests
    }

    /// How many times a model took the stream of pairing requests (to observe it).
    var subscriptions: Int { requestStreamReads.withLockedValue { $0 } }

    /// What the model asked for, in order.
    var recorded: [String] { calls.withLockedValue { $0 } }

    func checkVersion() async throws {
        if let versionError { throw versionError }
    }

    func requestPairing(claimedName: String, deviceId: DeviceId) async throws -> PairingResult {
        calls.withLockedValue { $0.append("pair \(claimedName) \(deviceId)") }
        return result
    }

    func approvePairing(deviceId: DeviceId, userId: UserId) async throws { calls.withLockedValue { $0.append("approve \(deviceId) \(userId)") } }
    func denyPairing(deviceId: DeviceId) async throws { calls.withLockedValue { $0.append("deny \(deviceId)") } }
}

final class MockChatService: ChatServicing {
    let incomingMessages: AsyncStream<ChatMessage>
    let connectionState: AsyncStream<ConnectionState>
    let incomingTyping: AsyncStream<TypingEvent>
    let serverFrames: AsyncStream<ServerFrame>
    let notices: AsyncStream<ChatNotice>
    let messageSink: AsyncStream<ChatMessage>.Continuation
    let stateSink: AsyncStream<ConnectionState>.Continuation
    let typingSink: AsyncStream<TypingEvent>.Continuation
    let noticeSink: AsyncStream<ChatNotice>.Continuation
    private let state = NIOLockedValueBox(State())

    struct State {
        var connectCalled = false
        var disconnectCalled = false
        var sent: [String] = []
        var errorToThrow: ClawlineClientError?
    }

    /// How many messages the model asked for: past the ones yielded, it has handled them all.
    var messagesRequested: Int { pulls.withLockedValue { $0 } }
    private let pulls = NIOLockedValueBox(0)
    /// Signalled after each message the model asks for.
    let pulled = ChangeSignal()

    init() {
        let (messages, messageSink) = AsyncStream<ChatMessage>.makeStream()
        self.messageSink = messageSink
        let reader = MessageReader(messages)
        let (pulls, pulled) = (pulls, pulled)
        incomingMessages = AsyncStream(unfolding: {
            pulls.withLockedValue { $0 += 1 }
            pulled.signal()
            return await reader.next()
        })
        (connectionState, stateSink) = AsyncStream.makeStream()
        (incomingTyping, typingSink) = AsyncStream.makeStream()
        (serverFrames, _) = AsyncStream.makeStream()
        (notices, noticeSink) = AsyncStream.makeStream()
        stateSink.yield(.disconnected)
    }

    var recorded: State { state.withLockedValue { $0 } }
    func fail(with error: ClawlineClientError?) { state.withLockedValue { $0.errorToThrow = error } }

    func connect(token: String, lastMessageId: String?) async throws {
        let error = state.withLockedValue { state -> ClawlineClientError? in
            state.connectCalled = true
            return state.errorToThrow
        }
        if let error { throw error }
        stateSink.yield(.connected)
    }

    func disconnect() async {
        state.withLockedValue { $0.disconnectCalled = true }
        stateSink.yield(.disconnected)
    }

    func send(content: String, attachments: [OutgoingAttachment]) async throws -> ChatMessage {
        let error = state.withLockedValue { state -> ClawlineClientError? in
            state.sent.append(content)
            return state.errorToThrow
        }
        if let error { throw error }
        let id = "c_\(recorded.sent.count)"
        return ChatMessage(id: id, clientId: id, role: .user, content: content, timestamp: Date(), status: .sending)
    }

    func retry(messageId: String) async throws -> ChatMessage { try await send(content: "retry", attachments: []) }
    func sendTyping(active: Bool) async {}
    func send(decision: PairDecision) async throws {}
    func conversation() async throws -> Conversation { Conversation() }
}

struct MockDeviceIdentifier: DeviceIdentifying {
    let deviceId: DeviceId
    init(deviceId: DeviceId = "test-device-id") { self.deviceId = deviceId }
}

/// The one reader of a mock's message stream, behind the counting stream a model reads.
private final class MessageReader: @unchecked Sendable {
    // One consumer (the model's observation task) calls next() at a time.
    private var iterator: AsyncStream<ChatMessage>.AsyncIterator

    init(_ stream: AsyncStream<ChatMessage>) { iterator = stream.makeAsyncIterator() }

    func next() async -> ChatMessage? { await iterator.next(isolation: nil) }
}
