/// One Server-Sent Event.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field, or `message`.
    public var type: String
    /// The `data:` lines joined with newlines.
    public var data: String
    /// The last event ID in effect when the event was dispatched (`id:` fields persist across events).
    public var lastEventID: String
    /// A reconnection time in milliseconds, when this event's block carried a valid `retry:`.
    public var retry: Int?

    public init(type: String = "message", data: String, lastEventID: String = "", retry: Int? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}

/// A push parser for the `text/event-stream` format, following the WHATWG HTML rules: `data:`
/// lines joined with newlines, `event:`, `id:` (kept across events, ignored when it contains
/// NUL), `retry:` (digits only), comments, dispatch on a blank line, LF, CR and CRLF line ends,
/// one leading byte order mark, and input split anywhere (inside a line, a CRLF pair or a UTF-8
/// sequence). An event not ended by a blank line before the end of the stream is discarded.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var atStart = true
    private var skipNextLineFeed = false
    private var data = ""
    private var hasData = false
    private var eventType = ""
    private var lastEventID = ""
    private var retry: Int?

    public init() {}

    /// Feeds bytes and returns the events they complete.
    public mutating func consume(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if skipNextLineFeed {
                skipNextLineFeed = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A:
                if let event = endLine() { events.append(event) }
            case 0x0D:
                skipNextLineFeed = true
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the stream: a pending event without its blank line is discarded, as the standard says.
    public mutating func finish() {
        line.removeAll()
        resetEvent()
    }

    private mutating func endLine() -> ServerSentEvent? {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if atStart {
            atStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        guard !bytes.isEmpty else { return dispatch() }
        if bytes.first == UInt8(ascii: ":") { return nil }
        let field: String
        var value: Substring
        let text = String(decoding: bytes, as: UTF8.self)
        if let colon = text.firstIndex(of: ":") {
            field = String(text[..<colon])
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            data += value
            data += "\n"
            hasData = true
        case "id":
            if !value.contains("\u{0}") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int(value) { retry = milliseconds }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer { resetEvent() }
        guard hasData else { return nil }
        var text = data
        if text.hasSuffix("\n") { text.removeLast() }
        return ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: text, lastEventID: lastEventID, retry: retry)
    }

    private mutating func resetEvent() {
        data = ""
        hasData = false
        eventType = ""
        retry = nil
    }
}

/// The events of an asynchronous sequence of byte chunks (`[UInt8]`, `Data`, `ArraySlice<UInt8>`, ...).
public struct ServerSentEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element: Sequence, Base.Element.Element == UInt8 {
    public typealias Element = ServerSentEvent
    let base: Base

    public init(_ base: Base) {
        self.base = base
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var parser = ServerSentEventParser()
        var pending: [ServerSentEvent] = []
        var finished = false

        public mutating func next() async throws -> ServerSentEvent? {
            while pending.isEmpty {
                guard !finished else { return nil }
                try Task.checkCancellation()
                guard let chunk = try await base.next() else {
                    finished = true
                    parser.finish()
                    return nil
                }
                pending = parser.consume(chunk)
            }
            return pending.removeFirst()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator())
    }
}

extension AsyncSequence where Element: Sequence, Element.Element == UInt8 {
    /// The Server-Sent Events of a stream of byte chunks.
    public var serverSentEvents: ServerSentEventSequence<Self> { ServerSentEventSequence(self) }
}

extension AsyncSequence where Element == ServerSentEvent {
    /// Each event's data decoded as a frame of `Frame` (events of other types than `eventType`, if given, are skipped).
    public func frames<Frame: WireFrame>(_ type: Frame.Type, eventType: String? = nil) -> AsyncCompactMapSequence<Self, FrameDecodeResult<Frame>> {
        compactMap { event in
            if let eventType, event.type != eventType { return nil }
            return Frame.decode(text: event.data)
        }
    }
}
