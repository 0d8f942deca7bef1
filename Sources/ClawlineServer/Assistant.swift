import ClawlineProtocol

/// A user's message, as the assistant that answers it sees it.
public struct AssistantRequest: Sendable, Hashable {
    /// The account the message belongs to.
    public var userID: String
    /// The device that sent it.
    public var deviceID: String
    /// The server id of the echoed user message (`s_…`).
    public var messageID: String
    /// The text the user wrote.
    public var content: String
    /// The attachments the user sent.
    public var attachments: [Attachment]

    /// Creates a request.
    public init(userID: String, deviceID: String, messageID: String, content: String, attachments: [Attachment] = []) {
        self.userID = userID
        self.deviceID = deviceID
        self.messageID = messageID
        self.content = content
        self.attachments = attachments
    }
}

/// What answers user messages: it streams full-content snapshots of its answer and returns the
/// final content.
///
/// The server sends each snapshot to every connected device of the account as a `message` with
/// `streaming: true`, then the returned content with `streaming: false`, which is the only one it
/// stores and replays. Throwing fails the stream: the server answers `error` `server_error` with
/// the message's id and sends no final message. The task is cancelled when the stream ends
/// without a takeover (the socket closed, the token was revoked).
public protocol Assistant: Sendable {
    /// Answers `request`, calling `snapshot` with the whole answer so far each time it grows.
    func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String
}

/// The assistant a server has when none is configured: it answers every message by streaming
/// its words back, after `Echo:`, one word more per snapshot (so at least two snapshots), with
/// `pace` between snapshots (none by default; a demo sets one so a stream can be watched, or
/// interrupted). A message of more than ``maxSnapshots`` words grows by several words per
/// snapshot, so an answer has at most that many, whatever the message.
public struct EchoAssistant: Assistant {
    /// The time between two snapshots.
    public var pace: Duration
    private let clock: any Clock<Duration>

    /// The echo assistant, waiting `pace` on `clock` between snapshots.
    public init(pace: Duration = .zero, clock: any Clock<Duration> = ContinuousClock()) {
        self.pace = pace
        self.clock = clock
    }

    /// The most snapshots of one answer.
    public static let maxSnapshots = 32

    public func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String {
        let words = request.content.split(whereSeparator: \.isWhitespace)
        let tokens: [Substring] = ["Echo:"] + (words.isEmpty ? ["(no", "text)"] : words)
        let step = (tokens.count + Self.maxSnapshots - 1) / Self.maxSnapshots
        var text = ""
        for (index, token) in tokens.enumerated() {
            try Task.checkCancellation()
            if index > 0 { text.append(" ") }
            text.append(contentsOf: token)
            guard (index + 1) % step == 0 || index == tokens.count - 1 else { continue }
            if index + 1 > step, pace > .zero { try await clock.sleep(for: pace) }
            try await snapshot(text)
        }
        if pace > .zero { try await clock.sleep(for: pace) }
        return text
    }
}
