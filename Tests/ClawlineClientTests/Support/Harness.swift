import ClawlineClient
import ClawlineProtocol
import Foundation
import WireTestSupport

@testable import ClawlineServer

/// A provider in this process and the clients of a test.
struct Harness: Sendable {
    let provider: LocalProvider
    /// The clock of every client timer (ack timeouts, backoff, rate windows).
    let clock: ManualClock
    /// The server's clock (pairing timeouts, rate windows); ``advance(by:)`` moves both.
    let serverClock: ManualClock
    let capture = CaptureWriter()

    var serverURL: URL { provider.baseURL }

    /// Runs `body` against a fresh provider (echo assistant answering with `pace` between
    /// snapshots, in real time, and breaching the contract as `faults` say), then shuts it down.
    static func run<T: Sendable>(
        pace: Duration = .zero, faults: ProviderFaults = [], _ body: @Sendable (Harness) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-client-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverClock = ManualClock()
        let provider = try await LocalProvider.start(
            dataDirectory: directory, assistant: EchoAssistant(pace: pace), environment: ServerEnvironment(clock: serverClock),
            maintenanceInterval: .milliseconds(50), faults: faults)
        let harness = Harness(provider: provider, clock: ManualClock(), serverClock: serverClock)
        do {
            let value = try await body(harness)
            await provider.shutdown()
            return value
        } catch {
            await provider.shutdown()
            throw error
        }
    }

    /// Moves the client and server clocks on together.
    func advance(by duration: Duration) {
        serverClock.advance(by: duration)
        clock.advance(by: duration)
    }

    /// A new device with its services (nothing connected yet).
    func device(
        _ label: String, id: DeviceId = DeviceId(UUID().uuidString.lowercased()), store: any ConversationStore = InMemoryConversationStore()
    )
        -> TestDevice
    {
        let environment = ClientEnvironment(clock: clock, random: { 0.5 })
        let observer = capture.observer(label: label)
        let store = SignallingConversationStore(store)
        let chat = ChatService(serverURL: serverURL, deviceId: id, store: store, environment: environment, observer: observer)
        let connection = ConnectionService(
            serverURL: serverURL, deviceInfo: DeviceInfo(platform: "Linux", model: "test"), environment: environment, observer: observer)
        return TestDevice(deviceId: id, chat: chat, connection: connection, store: store)
    }
}

/// One client device of a test.
struct TestDevice: Sendable {
    let deviceId: DeviceId
    let chat: ChatService
    let connection: ConnectionService
    let store: SignallingConversationStore

    /// Waits until the device's conversation satisfies `condition`: checked now and after each
    /// time the chat service stores it (it stores every change it makes); false after `timeout`
    /// in real time (a guard against a hung test, not a timing assertion).
    func conversation(timeout: Duration = .seconds(60), until condition: (Conversation) -> Bool) async throws -> Bool {
        try await store.wait(for: chat, timeout: timeout, until: condition)
    }

    /// Pairs and connects (the first device, or one approved at once).
    func pairAndConnect(name: String = "Test device") async throws -> Credentials {
        let credentials = try await pair(name: name)
        try await chat.connect(token: credentials.token, lastMessageId: nil)
        return credentials
    }

    /// Pairs and expects to be approved (the first device is, at once).
    func pair(name: String = "Test device") async throws -> Credentials {
        guard case .success(let credentials) = try await connection.requestPairing(claimedName: name, deviceId: deviceId) else {
            throw ClientTestFailure("pairing was denied")
        }
        return credentials
    }
}

/// A conversation store that signals after each save, so a test can wait for the chat service's
/// next change instead of polling it.
final class SignallingConversationStore: ConversationStore {
    let base: any ConversationStore
    /// Signalled after each save.
    let saved = ChangeSignal()

    init(_ base: any ConversationStore) { self.base = base }

    func load() async throws -> Conversation { try await base.load() }

    func save(_ conversation: Conversation) async throws {
        try await base.save(conversation)
        saved.signal()
    }

    func save(_ conversation: Conversation, changedFrom index: Int) async throws {
        try await base.save(conversation, changedFrom: index)
        saved.signal()
    }

    /// Waits until `chat`'s conversation satisfies `condition`, checked now and after each save;
    /// false after `timeout` in real time.
    func wait(for chat: ChatService, timeout: Duration, until condition: (Conversation) -> Bool) async throws -> Bool {
        try await saved.wait(timeout: timeout) { condition(try await chat.conversation()) }
    }
}
