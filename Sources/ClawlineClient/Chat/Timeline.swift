import ClawlineProtocol

/// What changes a device's timeline: the server's events, and what the device did itself.
public enum TimelineEvent: Sendable, Hashable {
    /// A server `message` event: a snapshot of an answer (`streaming`), or a final event (an
    /// answer, or a user message echoed to every device of the account).
    case received(ServerMessage)
    /// A message this device queued, shown at once as `sending` (its optimistic copy).
    case queued(ChatMessage)
    /// The server acknowledged the message this device sent with `clientId`.
    case acknowledged(clientId: String)
    /// The server refused the message sent with `clientId` for good (it is not retried).
    case refused(clientId: String, reason: String)
    /// The answer to the accepted message sent with `clientId` failed: its partial answers go.
    case answerFailed(clientId: String, reason: String)
    /// The replay after `auth` is complete: the missing-final rule applies.
    case replayFinished
    /// The server's history restarted (`historyReset`): only this device's own messages not yet
    /// echoed stay, and the cursor is cleared.
    case historyReset
    /// The socket ended: answers that streamed on it are no longer live.
    case connectionEnded
    /// A failed message is sent again: a local copy goes (its retry is queued anew), an echoed
    /// message loses its failure.
    case retried(messageId: String)
    /// A message as a ``ChatServicing`` reported it on `incomingMessages` (view models).
    case updated(ChatMessage)
}

/// A device's timeline as a value, and the one function that changes it: the chat service and the
/// view models apply the same events with it, so they cannot disagree.
///
/// The rules, from the contract (seed 002):
/// - **Dedupe.** A final event is applied once, however often it arrives (live, replayed, or both
///   across reconnects); a snapshot of an answer whose final was applied is ignored.
/// - **Snapshots** of an answer replace each other under the answer's id; only finals move the
///   cursor.
/// - **Echoes.** The provider answers a message with `ack`, then echoes it to every device. An echo
///   from this device replaces the oldest own message that was acknowledged and not yet echoed;
///   when none is waiting, the oldest own message still unacknowledged (its `ack` was lost with a
///   socket, and the echo came back in a replay before the retry's `ack`). Content is never
///   compared: two identical messages sent quickly each get their own echo.
/// - **The missing final.** After a replay, when no answer is streaming, this device's last user
///   message with no answer after it is marked failed, with a retry.
public struct Timeline: Sendable, Hashable {
    /// The messages, oldest first.
    public private(set) var messages: [ChatMessage]
    /// The last final server event applied: the next `auth`'s `lastMessageId`.
    public private(set) var cursor: String?
    /// This device.
    public let deviceId: DeviceId?
    /// Final server events already applied.
    private var applied: Set<String>
    /// Answers that streamed on the current socket.
    private var liveStreams: Set<String> = []

    /// The timeline of `deviceId` holding `messages` (as stored), with `cursor`.
    public init(messages: [ChatMessage] = [], cursor: String? = nil, deviceId: DeviceId?) {
        self.messages = messages
        self.cursor = cursor
        self.deviceId = deviceId
        applied = Set(messages.lazy.filter { !$0.isLocal && $0.status != .streaming }.map(\.id))
    }

    /// The timeline after `event`.
    public static func reduce(_ timeline: Timeline, _ event: TimelineEvent) -> Timeline {
        var next = timeline
        next.apply(event)
        return next
    }

    /// Applies `event`; returns the messages it added or changed, as they now are.
    @discardableResult
    public mutating func apply(_ event: TimelineEvent) -> [ChatMessage] {
        switch event {
        case .received(let event): return receive(event)
        case .queued(let message): return append(message)
        case .acknowledged(let clientID):
            return change(where: { $0.isLocal && $0.clientId == clientID && $0.status == .sending }) { $0.status = .delivered }
        case .refused(let clientID, let reason): return change(where: { $0.clientId == clientID }) { $0.fail(reason) }
        case .answerFailed(let clientID, let reason):
            let live = liveStreams
            liveStreams = []
            removeMessages { $0.isStreaming && live.contains($0.id) }
            return change(where: { $0.clientId == clientID }, last: true) { $0.fail(reason) }
        case .replayFinished: return replayFinished()
        case .historyReset:
            removeMessages { !$0.isLocal }
            cursor = nil
            applied = []
            liveStreams = []
            return []
        case .connectionEnded:
            liveStreams = []
            return []
        case .retried(let id):
            guard let index = messages.lastIndex(where: { $0.id == id }), messages[index].status == .failed else { return [] }
            if messages[index].isLocal {
                removeMessage(at: index)
                return []
            }
            return [
                mutateMessage(at: index) {
                    $0.status = .delivered
                    $0.failure = nil
                }
            ]
        case .updated(let message): return update(message)
        }
    }

    /// Whether an answer streams on the current socket.
    public var isStreaming: Bool { !liveStreams.isEmpty }

    private mutating func receive(_ event: ServerMessage) -> [ChatMessage] {
        let id = event.id.rawValue
        guard !applied.contains(id) else { return [] }
        var message = ChatMessage(event)
        if event.streaming {
            liveStreams.insert(id)
            upsert(message)
            return [message]
        }
        applied.insert(id)
        liveStreams.remove(id)
        cursor = id
        if message.role == .user, let deviceId, event.deviceId == deviceId, let index = ownMessageEchoed() {
            message.clientId = messages[index].clientId
            // The echo takes the place the server gives it: a message sent while the replay was
            // still arriving would otherwise stay before the history it follows.
            removeMessage(at: index)
            appendMessage(message)
        } else {
            upsert(message)
        }
        guard message.role == .assistant else { return [message] }
        return [message] + clearMissingAnswer(before: message.id)
    }

    /// The own message an echo from this device stands for, by the contract's order.
    private func ownMessageEchoed() -> Int? {
        messages.firstIndex { $0.isLocal && $0.status == .delivered } ?? messages.firstIndex { $0.isLocal && $0.status == .sending }
    }

    /// An answer arrived: the user message before it is no longer missing its answer.
    private mutating func clearMissingAnswer(before answerID: String) -> [ChatMessage] {
        guard let answer = messages.lastIndex(where: { $0.id == answerID }),
            let question = messages[..<answer].lastIndex(where: { $0.role == .user }),
            messages[question].status == .failed, !messages[question].isLocal
        else { return [] }
        return [
            mutateMessage(at: question) {
                $0.status = .delivered
                $0.failure = nil
            }
        ]
    }

    /// After the replay: a streamed answer from before the reconnect that got no final is lost
    /// (the server does not replay partials), and this device's last message without an answer is
    /// shown as failed, with a retry.
    private mutating func replayFinished() -> [ChatMessage] {
        let live = liveStreams
        removeMessages { $0.isStreaming && !live.contains($0.id) }
        guard live.isEmpty, let last = messages.lastIndex(where: { $0.role == .user }),
            messages[last].deviceId == deviceId, messages[last].status == .delivered,
            !messages[(last + 1)...].contains(where: { $0.role == .assistant })
        else { return [] }
        return [mutateMessage(at: last) { $0.fail("no answer came; send it again") }]
    }

    private mutating func update(_ message: ChatMessage) -> [ChatMessage] {
        if !message.isLocal, let clientID = message.clientId, let index = messages.firstIndex(where: { $0.isLocal && $0.clientId == clientID }) {
            removeMessage(at: index)
            return append(message)
        }
        upsert(message)
        if !message.isLocal, !message.isStreaming { applied.insert(message.id) }
        return [message]
    }

    private mutating func append(_ message: ChatMessage) -> [ChatMessage] {
        appendMessage(message)
        return [message]
    }

    /// Inserts `message` or replaces the message with its id.
    private mutating func upsert(_ message: ChatMessage) {
        if let index = messages.lastIndex(where: { $0.id == message.id }) {
            mutateMessage(at: index) { $0 = message }
        } else {
            appendMessage(message)
        }
    }

    private mutating func change(where matches: (ChatMessage) -> Bool, last: Bool = false, _ body: (inout ChatMessage) -> Void) -> [ChatMessage] {
        guard let index = last ? messages.lastIndex(where: matches) : messages.firstIndex(where: matches) else { return [] }
        return [mutateMessage(at: index, body)]
    }

    // MARK: Every change to `messages` goes through these, which keep the change mark.

    /// The index of the first message changed since ``takeChangeMark()``, if any.
    private var changedFrom: Int?

    /// Whether any message changed since the last ``takeChangeMark()`` (it does not take the mark).
    var hasMarkedChanges: Bool { changedFrom != nil }

    /// Takes back the local message `clientID` that was just queued and could not be stored.
    mutating func withdrawQueued(clientID: String) {
        guard let index = messages.lastIndex(where: { $0.isLocal && $0.clientId == clientID }) else { return }
        removeMessage(at: index)
    }

    /// Where the messages changed since the last call: the messages before the returned index are
    /// as they were then (`nil`: none changed). A store appends only what follows it.
    public mutating func takeChangeMark() -> Int? {
        defer { changedFrom = nil }
        return changedFrom
    }

    private mutating func mark(_ index: Int) {
        changedFrom = min(changedFrom ?? index, index)
    }

    private mutating func appendMessage(_ message: ChatMessage) {
        mark(messages.count)
        messages.append(message)
    }

    private mutating func removeMessage(at index: Int) {
        mark(index)
        messages.remove(at: index)
    }

    private mutating func removeMessages(where matches: (ChatMessage) -> Bool) {
        guard let first = messages.firstIndex(where: matches) else { return }
        mark(first)
        messages.removeAll(where: matches)
    }

    @discardableResult
    private mutating func mutateMessage(at index: Int, _ body: (inout ChatMessage) -> Void) -> ChatMessage {
        mark(index)
        body(&messages[index])
        return messages[index]
    }
}

extension ChatMessage {
    /// Whether this is this device's own copy of a message the server has not echoed yet (its id
    /// is still the one it was sent with). The one place the client tells a local message from a
    /// server event: server ids are opaque.
    public var isLocal: Bool { clientId == id }

    mutating func fail(_ reason: String) {
        status = .failed
        failure = reason
    }
}
