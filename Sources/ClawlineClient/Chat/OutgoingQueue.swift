import ClawlineProtocol

/// The messages a device has sent and the server has not acknowledged, as a value: the persisted
/// order, the one message in flight, and the spec's message rate. It decides what to send and
/// when; the service does the sending and keeps the timers.
struct OutgoingQueue: Sendable {
    /// What to do next.
    enum Step: Sendable, Hashable {
        /// Send this message now (it is in flight from now on).
        case send(PendingMessage)
        /// The next message fits the rate after this long.
        case wait(Duration)
        /// Nothing to send: the queue is empty, or a message is in flight.
        case idle
    }

    /// The messages in the order they must reach the server (stored with the conversation).
    private(set) var pending: [PendingMessage]
    /// The id of the message sent and not yet answered, if any.
    private(set) var inFlight: String?
    private var window = SendWindow(Clawline.RateLimits.message)

    /// A queue holding `pending` (as stored), nothing in flight.
    init(_ pending: [PendingMessage] = []) {
        self.pending = pending
    }

    /// Whether `id` is waiting for its `ack`.
    func contains(_ id: String) -> Bool { pending.contains { $0.id == id } }

    /// Adds a message at the end.
    mutating func enqueue(_ message: PendingMessage) {
        pending.append(message)
    }

    /// The next step at `now` (time since any fixed origin): a message is sent only when none is
    /// in flight and the spec's message rate allows it.
    mutating func next(at now: Duration) -> Step {
        guard inFlight == nil, let head = pending.first else { return .idle }
        let wait = window.wait(at: now)
        guard wait == .zero else { return .wait(wait) }
        window.record(at: now)
        inFlight = head.id
        return .send(head)
    }

    /// The server acknowledged `id`: it leaves the queue. Returns whether it was queued.
    @discardableResult
    mutating func acknowledged(_ id: String) -> Bool { remove(id) }

    /// The server refused `id` for good: it leaves the queue. Returns whether it was queued.
    @discardableResult
    mutating func refused(_ id: String) -> Bool { remove(id) }

    /// `id` was never stored, so it is taken back before it is sent. Returns whether it was queued.
    @discardableResult
    mutating func withdraw(_ id: String) -> Bool { remove(id) }

    /// `id` was not accepted this time (rate-limited, a server error, no `ack` in time): it stays
    /// at the head and is sent again with the same id.
    mutating func sendAgain(_ id: String) {
        if inFlight == id { inFlight = nil }
    }

    /// The socket ended: what was in flight is sent again on the next one.
    mutating func connectionEnded() {
        inFlight = nil
    }

    private mutating func remove(_ id: String) -> Bool {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return false }
        pending.remove(at: index)
        if inFlight == id { inFlight = nil }
        return true
    }
}
