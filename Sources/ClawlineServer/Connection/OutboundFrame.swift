import ClawlineProtocol
import NIOCore
import WireRuntime

/// A frame the server sends, encoded once and parsed once for the session machines however many
/// sockets it goes to (a broadcast reaches every device of an account).
struct OutboundFrame: Sendable {
    /// The canonical JSON that goes on the wire, in a buffer every socket's writer shares (a
    /// broadcast is not copied per socket).
    let wire: ByteBuffer
    /// The frame as the session machines read it.
    let parsed: ParsedFrame
    /// The stored event's id when the frame is one (a final `message`): a socket sends each
    /// event once, whether it comes from a replay, a catch-up or live.
    let eventID: String?
    /// The event id a snapshot (`streaming: true`) grows, or a final ends: once a socket sent the
    /// final, no snapshot of it may follow.
    let messageID: String?
    /// The stored event's number in its account (see `StoredEvent.number`), when the store
    /// numbers events: sockets send an account's events in this order.
    private(set) var number: Int?
    /// The frame's message type (`message`, `ack`, …), as the metrics count it.
    let type: String

    /// The canonical JSON text (a copy of ``wire``: for logs and the cluster's bus).
    var text: String { String(buffer: wire) }

    /// The engine every connection's session machine runs.
    static let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)

    /// Encodes and parses `frame`, a stored event numbered `number` when it has one.
    init(_ frame: ServerFrame, number: Int? = nil) {
        self.number = number
        let bytes = frame.encoded()
        wire = ByteBuffer(bytes: bytes)
        parsed = ParsedFrame(json: bytes, from: .server, engine: Self.engine)
        if case .message(let message) = frame {
            messageID = message.id.rawValue
            eventID = message.streaming ? nil : message.id.rawValue
        } else {
            (messageID, eventID) = (nil, nil)
        }
        type = frame.tag
    }

    /// The same frame as a stored event numbered `number` in its account (or unnumbered): the
    /// text encoded before the store numbered it is not encoded again.
    func numbered(_ number: Int?) -> OutboundFrame {
        var numbered = self
        numbered.number = number
        return numbered
    }

    /// A stored event, sent as the store keeps it (its canonical JSON).
    init(_ event: StoredEvent) {
        wire = ByteBuffer(string: event.frame)
        parsed = ParsedFrame(json: event.frame.utf8, from: .server, engine: Self.engine)
        eventID = event.eventID
        messageID = event.eventID
        number = event.number
        type = "message"
    }
}
