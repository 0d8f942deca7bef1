import ClawlineProtocol
import WireProbe

/// A frame the provider sent, parsed.
public struct ReceivedFrame: Sendable, CustomStringConvertible {
    /// Its place among the frames of its connection (0 for the first).
    public var sequence: Int
    /// Its members.
    public var members: [String: JSONValue]
    /// Its text, as it came.
    public var text: String

    /// The `type` member.
    public var type: String? { members["type"]?.stringValue }
    /// A string member.
    public func string(_ key: String) -> String? { members[key]?.stringValue }
    /// A boolean member.
    public func bool(_ key: String) -> Bool? { members[key]?.boolValue }
    /// Whether this is an `error` frame with `code`.
    public func isError(_ code: String) -> Bool { type == "error" && string("code") == code }

    public var description: String { text.count > 160 ? "\(text.prefix(150))… (\(text.utf8.count) bytes)" : text }
}

/// One WebSocket to the provider under test, as the conformance cases use it.
///
/// Every frame both ways goes through Clawline's session machine (the spec's rules), and a rule
/// the provider's frames break is kept in ``violations``: each case also fails on those. Frames
/// are read in order and kept: ``expect(_:within:where:)`` takes the first frame not yet taken
/// that matches, so a case can wait for frames in any order and still check their order.
public actor ClawlineConnection {
    private let socket: any ProbeSocket
    private var machine = SessionMachine(engine: ClawlineConnection.engine)
    private let timeout: Duration
    /// Every frame received, in order.
    public private(set) var received: [ReceivedFrame] = []
    /// The sequence numbers of frames a check has taken.
    private var taken: Set<Int> = []
    /// The close: `nil` while open; then its code, or `nil` inside when none came.
    public private(set) var close: Int??
    /// The spec's session rules the provider's frames broke on this connection.
    public private(set) var violations: [String] = []
    /// A name for reports (`device 1f3e… (2nd socket)`).
    public let name: String
    private var markersSent = 0

    static let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)

    init(socket: any ProbeSocket, name: String, timeout: Duration) {
        self.socket = socket
        self.name = name
        self.timeout = timeout
    }

    /// Sends a frame.
    public func send(_ frame: JSONValue) async throws {
        try await send(text: JSONWriter.string(frame))
    }

    /// Sends a text frame as it is.
    public func send(text: String) async throws {
        _ = machine.observe(json: Array(text.utf8), from: .client)
        do {
            try await socket.send(text)
        } catch {
            throw ContractBreach(expected: "\(name) open, to send a frame", got: "it was closed (\(error))")
        }
    }

    /// Closes the socket (1000).
    public func disconnect() async { await socket.close() }

    /// Whether the socket is closed (as far as read so far).
    public var isClosed: Bool { close != nil }

    /// Reads one event into ``received``; `false` when none came in `wait` or the socket closed.
    private func read(within wait: Duration) async -> Bool {
        guard close == nil, let event = try? await socket.next(within: wait) else { return false }
        switch event {
        case .closed(let code):
            close = .some(code)
            return false
        case .text(let text):
            let members = (try? JSONParser.parse(text))?.objectValue ?? [:]
            let answer = machine.observe(json: Array(text.utf8), from: .server)
            violations += answer.filter { $0.severity == .error }.map { "\($0.ruleName) (\($0.rule.rawValue)): \($0.message)" }
            received.append(ReceivedFrame(sequence: received.count, members: members, text: text))
            return true
        }
    }

    /// The first frame not yet taken that matches `match`, read as it comes within `within`
    /// (the suite's timeout by default); throws a ``ContractBreach`` naming `what` when none came.
    @discardableResult
    public func expect(_ what: String, within: Duration? = nil, where match: (ReceivedFrame) -> Bool) async throws -> ReceivedFrame {
        let clock = ContinuousClock()
        let deadline = clock.now + (within ?? timeout)
        var index = 0
        while true {
            while index < received.count {
                let frame = received[index]
                index += 1
                if !taken.contains(frame.sequence), match(frame) {
                    taken.insert(frame.sequence)
                    return frame
                }
            }
            let left = deadline - clock.now
            guard left > .zero, await read(within: left) else { break }
        }
        throw ContractBreach(expected: "\(what) on \(name)", got: "\(closeWords), after \(untakenWords)")
    }

    /// The first frame not yet taken of `type` (and matching `match`).
    @discardableResult
    public func expect(
        type: String, _ what: String? = nil, within: Duration? = nil, where match: (ReceivedFrame) -> Bool = { _ in true }
    )
        async throws -> ReceivedFrame
    {
        try await expect(what ?? type, within: within) { $0.type == type && match($0) }
    }

    /// Waits for the socket to close; returns its close code (`nil` when it closed without one).
    /// Throws when it is still open after `within`.
    public func expectClose(_ why: String, within: Duration? = nil) async throws -> Int? {
        let clock = ContinuousClock()
        let deadline = clock.now + (within ?? timeout)
        while close == nil {
            let left = deadline - clock.now
            guard left > .zero else { break }
            _ = await read(within: left)
        }
        guard let close else {
            throw ContractBreach(expected: "\(name) closed (\(why))", got: "still open after \(within ?? timeout), after \(untakenWords)")
        }
        return close
    }

    /// Waits for the socket to close, and checks its close code is `code`.
    public func expectClose(_ why: String, code expected: Int, within: Duration? = nil) async throws {
        let code = try await expectClose(why, within: within)
        try require(code == expected, expected: "close \(expected)", got: "close \(code.map(String.init) ?? "without a code")")
    }

    /// Sends a marker the provider must answer (`{}`, which the spec answers `invalid_message`
    /// and keeps the socket open) and reads until its answer: everything the provider sent for
    /// earlier frames has then come. Returns the frames not taken that came before the answer.
    @discardableResult
    public func settle() async throws -> [ReceivedFrame] {
        markersSent += 1
        try await send(text: "{}")
        let answer = try await expect("the invalid_message answer to the marker {} (sent to see that every earlier frame was answered)") {
            $0.isError("invalid_message") && $0.string("messageId") == nil
        }
        return received[..<answer.sequence].filter { !taken.contains($0.sequence) }
    }

    /// Marks frames as taken, so later checks pass over them.
    public func take(_ frames: [ReceivedFrame]) { taken.formUnion(frames.map(\.sequence)) }

    /// The frames received and not taken by a check, in order.
    public var untaken: [ReceivedFrame] { received.filter { !taken.contains($0.sequence) } }

    private var closeWords: String {
        guard let close else { return "nothing within the wait" }
        return "the socket closed (\(close.map { "code \($0)" } ?? "without a code"))"
    }

    /// Every frame this socket received, and its close, in words (what a failed setup step reports).
    var receivedWords: String {
        let frames = received.suffix(4).map(\.description).joined(separator: ", ")
        let shown = received.isEmpty ? "nothing" : (received.count > 4 ? "\(received.count) frames, the last: \(frames)" : frames)
        guard let close else { return shown }
        return shown + ", then close \(close.map(String.init) ?? "without a code")"
    }

    private var untakenWords: String {
        let frames = untaken
        if frames.isEmpty { return "no other frame" }
        let shown = frames.suffix(4).map(\.description).joined(separator: ", ")
        return frames.count > 4 ? "\(frames.count) other frames, the last: \(shown)" : "other frames: \(shown)"
    }
}
