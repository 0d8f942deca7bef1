import ClawlineProtocol
import WireRuntime

/// A frame the server sends, encoded once and parsed once for the session machines however many
/// sockets it goes to (a broadcast reaches every device of an account).
struct OutboundFrame: Sendable {
    /// The canonical JSON text that goes on the wire.
    let text: String
    /// The frame as the session machines read it.
    let parsed: ParsedFrame
    /// The stored event's id when the frame is one (a final `message`): a socket sends each
    /// event once, whether it comes from a replay, a catch-up or live.
    let eventID: String?
    /// The event id a snapshot (`streaming: true`) grows, or a final ends: once a socket sent the
    /// final, no snapshot of it may follow.
    let messageID: String?
    /// The frame's message type (`message`, `ack`, …), as the metrics count it.
    let type: String

    /// The engine every connection's session machine runs.
    static let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)

    /// Encodes and parses `frame`.
    init(_ frame: ServerFrame) {
        let bytes = frame.encoded()
        text = String(decoding: bytes, as: UTF8.self)
        parsed = ParsedFrame(json: bytes, from: .server, engine: Self.engine)
        if case .message(let message) = frame {
            messageID = message.id.rawValue
            eventID = message.streaming ? nil : message.id.rawValue
        } else {
            (messageID, eventID) = (nil, nil)
        }
        type = frame.tag
    }

    /// A stored event, sent as the store keeps it (its canonical JSON).
    init(_ event: StoredEvent) {
        text = event.frame
        parsed = ParsedFrame(json: event.frame.utf8, from: .server, engine: Self.engine)
        eventID = event.eventID
        messageID = event.eventID
        type = "message"
    }
}
