import ClawlineClient
import ClawlineProtocol
import ClawlineServer
import Foundation

/// The demo's script: two devices of one account talk through a provider in this process.
final class DemoRun: Sendable {
    let provider: LocalProvider
    let capture = CaptureWriter()
    private let started = ContinuousClock.now
    private let figures = Figures()

    init(provider: LocalProvider) {
        self.provider = provider
    }

    /// Prints one transcript line: time since the start, who, what.
    func say(_ who: String, _ what: String) {
        let (seconds, attoseconds) = started.duration(to: .now).components
        let time = String(format: "%6.3f s  ", Double(seconds) + Double(attoseconds) / 1e18)
        write(time + who.padding(toLength: 8, withPad: " ", startingAt: 0) + " " + what + "\n")
    }

    /// `duration` in milliseconds, one decimal.
    private func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    private func device(_ label: String) -> (id: DeviceId, chat: ChatService, connection: ConnectionService) {
        let id = DeviceId(UUID().uuidString.lowercased())
        let observer = capture.observer(label: label)
        let chat = ChatService(serverURL: provider.baseURL, deviceId: id, store: InMemoryConversationStore(), observer: observer)
        let connection = ConnectionService(
            serverURL: provider.baseURL, deviceInfo: DeviceInfo(platform: "demo", model: label), observer: observer)
        return (id, chat, connection)
    }

    func play() async throws {
        say("server", "listening on \(provider.baseURL.absoluteString)")
        let phone = device("phone")
        try await phone.connection.checkVersion()
        guard case .success(let admin) = try await phone.connection.requestPairing(claimedName: "Phone", deviceId: phone.id) else {
            throw ClientFailure("the first device was not approved")
        }
        say("phone", "paired as \(admin.claims?.isAdmin == true ? "admin" : "member") of account \(admin.userId.rawValue.prefix(8))…")
        await phone.connection.attach(phone.chat)
        let approvals = phone.connection.incomingPairingRequests
        let phoneMessages = Inbox(phone.chat.incomingMessages)
        try await phone.chat.connect(token: admin.token, lastMessageId: nil)
        say("phone", "connected")

        let tablet = device("tablet")
        async let tabletPairing = tablet.connection.requestPairing(claimedName: "Tablet", deviceId: tablet.id)
        say("tablet", "asks to pair; it waits for an admin")
        for await request in approvals where request.deviceId == tablet.id {
            say("phone", "sees the request of \"\(request.claimedName ?? "?")\" (\(request.deviceInfo.model)) and approves it into its account")
            try await phone.connection.approvePairing(deviceId: request.deviceId, userId: admin.userId)
            break
        }
        guard case .success(let member) = try await tabletPairing else { throw ClientFailure("the tablet was not approved") }
        say("tablet", "paired as \(member.claims?.isAdmin == true ? "admin" : "member") of the same account: \(member.userId == admin.userId)")
        let tabletMessages = Inbox(tablet.chat.incomingMessages)
        let tabletStates = Inbox(tablet.chat.connectionState)
        let tabletNotices = Inbox(tablet.chat.notices)
        try await tablet.chat.connect(token: member.token, lastMessageId: nil)
        say("tablet", "connected")

        let question = "Please stream this sentence back to me one word at a time"
        let sentAt = ContinuousClock.now
        let sent = try await phone.chat.send(content: question, attachments: [])
        say("phone", "sends \"\(question)\" as \(sent.id.prefix(10))…")
        let first = try await tabletMessages.next { $0.role == .assistant && $0.status == .streaming }
        figures.firstSnapshot = sentAt.duration(to: .now)
        say("tablet", "streaming: \"\(first.content)\"")
        let second = try await tabletMessages.next { $0.id == first.id && $0.status == .streaming && $0.content != first.content }
        say("tablet", "streaming: \"\(second.content)\"")
        let droppedAt = ContinuousClock.now
        await tablet.chat.dropConnection()
        say("tablet", "loses its connection mid-stream")
        let final = try await phoneMessages.next { $0.id == first.id && $0.status == .delivered }
        say("phone", "final answer: \"\(final.content)\"")
        _ = try await tabletStates.next { $0 == .reconnecting }
        _ = try await tabletNotices.next { if case .authenticated = $0 { true } else { false } }
        let reconnected = try await tabletNotices.next { if case .authenticated = $0 { true } else { false } }
        guard case .authenticated(let resumed) = reconnected else { throw ClientFailure("the tablet did not authenticate again") }
        say("tablet", "reconnected (backoff with jitter) from its cursor; the server replays \(resumed.replayCount) event(s) it missed")
        let replayed = try await tabletMessages.next { $0.id == final.id && $0.status == .delivered }
        figures.recovery = droppedAt.duration(to: .now)
        say("tablet", "\(resumed.replayCount > 0 ? "replayed" : "received") final answer: \"\(replayed.content)\"")
        try await expectSameHistory(phone.chat, tablet.chat)
        say("tablet", "history matches the phone's: every event once, no partial left")

        let thanks = try await tablet.chat.send(content: "Thanks", attachments: [])
        say("tablet", "sends \"Thanks\" as \(thanks.id.prefix(10))…")
        let answer = try await phoneMessages.next { $0.role == .assistant && $0.status == .delivered && $0.content == "Echo: Thanks" }
        say("phone", "sees the tablet's message answered: \"\(answer.content)\"")
        try await expectSameHistory(phone.chat, tablet.chat)
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
        figures.total = started.duration(to: .now)
        figures.frames = capture.frameCount
    }

    /// Fails unless both devices hold the same events, each once, none still streaming.
    private func expectSameHistory(_ first: ChatService, _ second: ChatService) async throws {
        for _ in 0..<200 {
            let one = try await first.conversation().messages
            let two = try await second.conversation().messages
            if one.map(\.id) == two.map(\.id), Set(one.map(\.id)).count == one.count, !one.contains(where: \.isStreaming),
                !two.contains(where: \.isStreaming)
            {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ClientFailure("the two devices' histories differ")
    }

    func printFigures() {
        say(
            "figures",
            "\(figures.frames) frames; first snapshot \(milliseconds(figures.firstSnapshot)) after sending; "
                + "tablet whole again \(milliseconds(figures.recovery)) after its socket dropped (most of it the reconnect backoff); "
                + "\(milliseconds(figures.total)) in all")
    }
}

/// Numbers the demo reports.
private final class Figures: @unchecked Sendable {
    var firstSnapshot = Duration.zero
    var recovery = Duration.zero
    var total = Duration.zero
    var frames = 0
}

/// Keeps what a stream yields so the script can wait for the next element it expects.
final class Inbox<Element: Sendable>: Sendable {
    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let storage = storage
        task = Task { for await element in stream { storage.append(element) } }
    }

    deinit { task.cancel() }

    /// The first element after those already taken that matches `predicate` (within 30 s).
    func next(where predicate: @escaping (Element) -> Bool) async throws -> Element {
        for _ in 0..<3000 {
            if let found = storage.take(where: predicate) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ClientFailure("the demo waited 30 s for an event that did not come")
    }

    private final class Storage: @unchecked Sendable {
        private let lock = NSLock()
        private var elements: [Element] = []
        private var consumed = 0

        func append(_ element: Element) { lock.withLock { elements.append(element) } }

        func take(where predicate: (Element) -> Bool) -> Element? {
            lock.withLock {
                guard let index = elements[consumed...].firstIndex(where: predicate) else { return nil }
                consumed = index + 1
                return elements[index]
            }
        }
    }
}
