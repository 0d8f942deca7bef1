import NIOConcurrencyHelpers
import NIOCore

/// What a connection's writer sends next.
enum Outgoing: Sendable {
    /// A frame, as canonical JSON (UTF-8) in a buffer shared by every socket it goes to.
    case frame(ByteBuffer)
    /// Close the socket with this code.
    case close(code: Int, reason: String?)
    /// A WebSocket ping (the keepalive's).
    case ping

    /// The bytes the item holds until it is written.
    var byteCount: Int {
        switch self {
        case .frame(let json): json.readableBytes
        case .close(_, let reason): reason?.utf8.count ?? 0
        case .ping: 0
        }
    }
}

/// What a socket's writer has yet to send, bounded in bytes: the frames queued and the batch the
/// writer took but has not written yet both count. The writer is a drain that the outbox wakes
/// when there is work (``startDraining(wake:)``), which then takes everything queued at once
/// (``take()``), so a socket that reads quickly gets its frames in batches: a socket's
/// ``SocketFrameWriter``, on its event loop, with no task of its own.
final class Outbox: Sendable {
    /// The most bytes the outbox holds; a push past it fails and the owner closes the socket.
    let limit: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var items: [Outgoing] = []
        /// Bytes queued or taken and not yet written.
        var bytes = 0
        /// The most ``bytes`` ever held.
        var peak = 0
        var finished = false
        /// How the drain is told there is work, once it started.
        var wake: (@Sendable () -> Void)?
        /// Whether the drain was woken and has not yet found the outbox empty since: until then,
        /// new work needs no wake-up.
        var drainAwake = false
    }

    /// What a drain finds when it takes from the outbox.
    enum Taken {
        /// Everything queued, oldest first.
        case items([Outgoing])
        /// Nothing is queued; the drain is woken when something is.
        case idle
        /// The outbox is finished and empty.
        case ended
    }

    /// An empty outbox holding at most `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Queues an item; `false` (nothing queued) when it would take the outbox past its limit or
    /// the outbox is finished.
    func push(_ item: Outgoing) -> Bool {
        let size = item.byteCount
        return update { state in
            guard !state.finished, state.bytes + size <= limit else { return false }
            state.items.append(item)
            state.bytes += size
            state.peak = max(state.peak, state.bytes)
            return true
        }
    }

    /// Drops what is queued (not the batch being written), queues `last` and finishes: the writer
    /// sends `last` once its current write is done, then stops.
    func abandon(with last: Outgoing) {
        update { state in
            guard !state.finished else { return }
            state.bytes += last.byteCount - state.items.reduce(0) { $0 + $1.byteCount }
            state.items = [last]
            state.finished = true
        }
    }

    /// No more items: the writer stops once it has sent what is queued.
    func finish() {
        update { $0.finished = true }
    }

    /// Changes the state and wakes the drain (outside the lock) if it is idle and now has
    /// something to do.
    private func update<T>(_ body: (inout State) -> T) -> T {
        let (result, wake) = state.withLockedValue { state in (body(&state), Self.wakeUp(&state)) }
        wake?()
        return result
    }

    /// The drain's wake-up, when it is idle and now has something to do.
    private static func wakeUp(_ state: inout State) -> (@Sendable () -> Void)? {
        guard !state.items.isEmpty || state.finished, let wake = state.wake, !state.drainAwake else { return nil }
        state.drainAwake = true
        return wake
    }

    /// Hands the outbox to a drain: from now on `wake` is called (outside the outbox's lock)
    /// whenever the outbox has something new while the drain is idle, that is, once ``take()``
    /// answered ``Taken/idle``. Called at once when there is work already (the new drain has
    /// taken nothing yet).
    func startDraining(wake: @escaping @Sendable () -> Void) {
        let wake = state.withLockedValue { state in
            state.wake = wake
            state.drainAwake = false
            return Self.wakeUp(&state)
        }
        wake?()
    }

    /// The drain is over: it is never woken again (and what it held, the drain, is released).
    func stopDraining() {
        state.withLockedValue { $0.wake = nil }
    }

    /// For the drain: everything queued, or whether the outbox is idle (the drain is woken when
    /// that changes) or has ended.
    func take() -> Taken {
        state.withLockedValue { state in
            guard state.items.isEmpty else {
                defer { state.items = [] }
                return .items(state.items)
            }
            if state.finished { return .ended }
            state.drainAwake = false
            return .idle
        }
    }

    /// The writer wrote an item of `byteCount` bytes (or gave up on it).
    func written(_ byteCount: Int) {
        state.withLockedValue { $0.bytes -= byteCount }
    }

    /// Bytes queued or being written now.
    var bytes: Int { state.withLockedValue { $0.bytes } }

    /// The most bytes the outbox ever held.
    var peakBytes: Int { state.withLockedValue { $0.peak } }
}
