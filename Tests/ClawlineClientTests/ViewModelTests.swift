import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireRuntime
import WireTestSupport

private let credentials = Credentials(serverURL: URL(string: "http://127.0.0.1:1")!, deviceId: "test-device-id", token: "tok", userId: "testuser")

@Suite("PairingViewModel")
@MainActor
struct PairingViewModelTests {
    @Test("Successful pairing stores the credentials")
    func success() async {
        let auth = MockAuthManager()
        let connection = MockConnectionService(result: .success(credentials))
        let model = PairingViewModel(auth: auth, connection: connection, device: MockDeviceIdentifier(deviceId: "specific-device-123"))
        model.nameInput = "TestUser"
        await model.submitName()
        #expect(model.state == .success)
        #expect(auth.isAuthenticated && auth.currentUserId == "testuser")
        #expect(connection.recorded == ["pair TestUser specific-device-123"])
    }

    @Test("An empty name is an error and nothing is sent")
    func emptyName() async {
        let auth = MockAuthManager()
        let connection = MockConnectionService(result: .success(credentials))
        let model = PairingViewModel(auth: auth, connection: connection, device: MockDeviceIdentifier())
        model.nameInput = "   "
        await model.submitName()
        #expect(model.state == .error("Name cannot be empty"))
        #expect(!auth.isAuthenticated && connection.recorded.isEmpty)
    }

    @Test("A denial is shown and nothing is stored")
    func denied() async {
        let auth = MockAuthManager()
        let model = PairingViewModel(auth: auth, connection: MockConnectionService(result: .denied(.pairDenied)), device: MockDeviceIdentifier())
        model.nameInput = "Hacker"
        await model.submitName()
        #expect(model.state == .error("An admin denied this device."))
        #expect(!auth.isAuthenticated)
    }

    @Test("A server of another protocol version asks for an update")
    func updateRequired() async {
        let connection = MockConnectionService(result: .success(credentials), versionError: .updateRequired(serverVersion: 2))
        let model = PairingViewModel(auth: MockAuthManager(), connection: connection, device: MockDeviceIdentifier())
        model.nameInput = "Phone"
        await model.submitName()
        guard case .error(let text) = model.state else {
            Issue.record("no error")
            return
        }
        #expect(text.contains("update the app"))
        #expect(connection.recorded.isEmpty)
    }
}

@Suite("ChatViewModel")
@MainActor
struct ChatViewModelTests {
    static func assistant(_ id: String, _ content: String, streaming: Bool = false) -> ChatMessage {
        ChatMessage(id: id, role: .assistant, content: content, timestamp: Date(), status: streaming ? .streaming : .delivered)
    }

    @Test("Sending shows the user message at once, clears the input and is replaced by the echo")
    func sendThenEcho() async throws {
        let chat = MockChatService()
        let model = ChatViewModel(auth: MockAuthManager(token: "t"), chatService: chat)
        await model.onAppear()
        model.messageInput = "Hello"
        await model.send()
        #expect(model.messageInput == "")
        #expect(model.messages.map(\.content) == ["Hello"] && model.messages[0].status == .sending)
        #expect(model.isSending)
        chat.messageSink.yield(ChatMessage(id: "s_1", clientId: "c_1", role: .user, content: "Hello", timestamp: Date(), status: .delivered))
        chat.messageSink.yield(Self.assistant("s_2", "Hi"))
        #expect(try await eventuallyOnMain { model.messages.count == 2 })
        #expect(model.messages.map(\.id) == ["s_1", "s_2"])
        #expect(!model.isSending)
    }

    @Test("A failed send shows an error and keeps the message, marked failed")
    func sendFails() async {
        let chat = MockChatService()
        let model = ChatViewModel(auth: MockAuthManager(token: "t"), chatService: chat)
        await model.onAppear()
        chat.fail(with: .notConnected)
        model.messageInput = "Hello"
        await model.send()
        #expect(model.error != nil && !model.isSending)
        #expect(model.messages.count == 1 && model.messages[0].status == .failed)
    }

    @Test("Appearing connects, disappearing disconnects, and the state follows the service")
    func lifecycle() async throws {
        let chat = MockChatService()
        let model = ChatViewModel(auth: MockAuthManager(token: "t"), chatService: chat)
        #expect(model.connectionState == .disconnected)
        await model.onAppear()
        #expect(chat.recorded.connectCalled)
        #expect(try await eventuallyOnMain { model.connectionState == .connected })
        await model.onDisappear()
        #expect(chat.recorded.disconnectCalled)
    }

    @Test("A refused token returns the device to pairing")
    func refusedToken() async throws {
        let chat = MockChatService()
        let auth = MockAuthManager(token: "t")
        let model = ChatViewModel(auth: auth, chatService: chat)
        await model.onAppear()
        chat.stateSink.yield(.failed(.authRejected(.tokenRevoked)))
        #expect(try await eventuallyOnMain { !auth.isAuthenticated })
        #expect(model.error != nil)
    }

    @Test("Snapshots of a streamed answer are coalesced into one update per 75 ms; the final shows at once")
    func snapshotsCoalesced() async throws {
        let chat = MockChatService()
        let clock = ManualClock()
        let model = ChatViewModel(auth: MockAuthManager(token: "t"), chatService: chat, clock: clock)
        await model.onAppear()
        for content in ["E", "Ec", "Ech"] { chat.messageSink.yield(Self.assistant("s_1", content, streaming: true)) }
        // The model asked for a fourth message: it has taken all three, and shows none before the clock moves.
        #expect(try await eventuallyOnMain(wokenBy: chat.pulled) { chat.messagesRequested > 3 })
        #expect(model.messages.isEmpty)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .milliseconds(75))
        #expect(try await eventuallyOnMain { model.messages.map(\.content) == ["Ech"] })
        chat.messageSink.yield(Self.assistant("s_1", "Echo"))
        #expect(try await eventuallyOnMain { model.messages.map(\.content) == ["Echo"] && model.messages[0].status == .delivered })
    }

    @Test("The assistant's typing indicator expires after the spec's typing expiry")
    func typingExpires() async throws {
        let chat = MockChatService()
        let clock = ManualClock()
        let model = ChatViewModel(auth: MockAuthManager(token: "t"), chatService: chat, clock: clock)
        await model.onAppear()
        chat.typingSink.yield(TypingEvent(role: .assistant, active: true))
        #expect(try await eventuallyOnMain { model.isAssistantTyping })
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: Clawline.Constants.typingExpiry)
        #expect(try await eventuallyOnMain { !model.isAssistantTyping })
    }
}

@Suite("ApprovalsViewModel")
@MainActor
struct ApprovalsViewModelTests {
    static func adminToken() -> String {
        let payload = Data(#"{"sub":"admin-account","deviceId":"d","isAdmin":true}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        return "e30.\(payload).c2ln"
    }

    @Test("An admin sees each waiting device once, approves into its own account or a new one, and denies")
    func decide() async throws {
        let connection = MockConnectionService(result: .denied(.pairDenied))
        let model = ApprovalsViewModel(auth: MockAuthManager(token: Self.adminToken(), userId: "admin-account"), connection: connection)
        model.start()
        let info = DeviceInfo(platform: "iOS", model: "iPad")
        for id in ["a", "b", "a", "c"] {
            connection.requestSink.yield(PairApprovalRequest(deviceId: DeviceId(id), claimedName: id, deviceInfo: info))
        }
        #expect(try await eventuallyOnMain { model.requests.map(\.deviceId) == ["a", "b", "c"] })
        await model.approve(model.requests[0])
        await model.deny(model.requests[0])
        await model.approve(model.requests[0], intoNewAccount: true)
        #expect(model.requests.isEmpty)
        #expect(connection.recorded[0] == "approve a admin-account" && connection.recorded[1] == "deny b")
        // A new account is named as the contract names accounts: user_ and a version 4 UUID.
        let newAccount = try #require(connection.recorded[2].split(separator: " ").last.map(String.init))
        #expect(connection.recorded[2].hasPrefix("approve c user_") && newAccount.hasPrefix("user_"))
        #expect(WireFormats.isUUIDv4(String(newAccount.dropFirst("user_".count))))
    }

    @Test("A member sees no requests")
    func memberSeesNothing() async throws {
        let connection = MockConnectionService(result: .denied(.pairDenied))
        let model = ApprovalsViewModel(auth: MockAuthManager(token: "e30.e30.c2ln"), connection: connection)
        model.start()
        connection.requestSink.yield(PairApprovalRequest(deviceId: "a", deviceInfo: DeviceInfo(platform: "iOS", model: "iPad")))
        // start() returned without taking the stream: nothing can ever reach the model's list.
        #expect(connection.subscriptions == 0)
        #expect(model.requests.isEmpty)
    }
}
