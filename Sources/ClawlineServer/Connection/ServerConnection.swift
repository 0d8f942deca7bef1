import ClawlineProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import WireRuntime

/// One client socket as the rest of the server sees it: frames sent to it go through its session
/// machine (the shared rules see both directions, in wire order) and into its bounded outbox,
/// which the socket's ``SocketFrameWriter`` drains. While the socket is *held* (authenticating and
/// replaying, or catching up after the node lost frames), live frames wait; each stored event goes
/// out once.
///
/// Numbered events (see `StoredEvent.number`) go out in their account's order: once the replay
/// says which number comes next, an event that arrives before its predecessor waits for it, and
/// the socket tells its owner (`onMissingEvent`), which fetches the missing ones from the store
/// if they do not arrive in time.
final class ServerConnection: Sendable {
    /// The socket's diagnostic id, kept as 16 bytes; ``sessionID`` spells it.
    private let sessionUUID: RandomUUID
    /// A diagnostic id, unique per socket (`sess_…`, sent in `auth_result`).
    var sessionID: String { "sess_" + sessionUUID.lowercased }
    /// The peer's IP address, when known.
    let remoteAddress: String?
    /// When the socket opened, on the server's clock.
    let openedAt: Duration
    /// What the writer has yet to send.
    let outbox: Outbox
    private let state: NIOLockedValueBox<State>
    /// Whether frames' text (messages and typing; never a token) is logged at trace level.
    private let logsContent: Bool
    private let metrics: ServerMetrics
    /// Called once when the socket falls more than the outbox's limit behind (the owner makes
    /// sure the socket closes even if its writer is stuck on a peer that reads nothing).
    private let onOverflow: @Sendable () -> Void
    /// Closes the connection under the socket, without a close handshake.
    private let abortChannel: @Sendable () -> Void
    /// Called (outside the lock) when an event waits for the event `number` of its account, and
    /// no earlier call is still watching for a missing one.
    private let onMissingEvent: @Sendable (ServerConnection, _ number: Int) -> Void

    /// The close code of a socket that fell too far behind: 1013 (try again later). The client
    /// reconnects with its cursor and replays what it missed.
    static let tooFarBehindCode = 1013

    private struct State {
        var machine: SessionMachine
        var closed = false
        /// While held, live frames wait here (with their bytes, counted against the outbox's limit).
        var heldFrames: [OutboundFrame]?
        var heldBytes = 0
        /// The stored events this socket sent most recently.
        var delivered = RecentEvents(capacity: 1024)
        /// Numbered events: the number of the event the socket sends next; `nil` until the
        /// replay sets it, and for a store that does not number events.
        var nextNumber: Int?
        /// Numbered events that came before their predecessors, by number (their bytes counted
        /// against the outbox's limit).
        var waiting: [Int: OutboundFrame] = [:]
        var waitingBytes = 0
        /// Whether the owner was told of a missing event and is still watching for it.
        var missingWatched = false
        /// The device once authenticated.
        var device: AuthenticatedDevice?
        /// When the last pong arrived, on the keepalive clock; `nil` before the first.
        var lastPong: Duration?
    }

    /// Where the server logs, without the socket's metadata: ``logger`` adds it when something is
    /// logged, so an idle socket holds no metadata of its own.
    private let baseLogger: Logger

    /// A connection whose outbox holds at most `outboxLimit` bytes.
    /// `now` is the server's time base, shared by every connection (a device's rate windows span them).
    init(
        now: @escaping @Sendable () -> Duration, remoteAddress: String? = nil, outboxLimit: Int = ProviderLimits().maxUnsentBytesPerSocket,
        logger: Logger, logsContent: Bool = false, metrics: ServerMetrics = .none, onOverflow: @escaping @Sendable () -> Void = {},
        abort: @escaping @Sendable () -> Void = {}, onMissingEvent: @escaping @Sendable (ServerConnection, Int) -> Void = { _, _ in }
    ) {
        sessionUUID = .version4()
        self.remoteAddress = remoteAddress
        openedAt = now()
        outbox = Outbox(limit: outboxLimit)
        baseLogger = logger
        logLevel = logger.logLevel
        state = NIOLockedValueBox(State(machine: SessionMachine(engine: OutboundFrame.engine, now: now)))
        self.logsContent = logsContent
        self.metrics = metrics
        self.onOverflow = onOverflow
        abortChannel = abort
        self.onMissingEvent = onMissingEvent
    }

    /// The authenticated device on this socket, if any.
    var device: AuthenticatedDevice? { state.withLockedValue { $0.device } }

    /// Where the socket logs: with its session id, and its device and account once known.
    var logger: Logger { state.withLockedValue { logger(for: $0) } }

    /// The level the socket logs at (read without building the socket's metadata): its logger's,
    /// read once (reading it from the logger copied the log handler for every frame sent).
    let logLevel: Logger.Level

    /// The logger with the socket's metadata: its session id, and its device and account once known.
    private func logger(for state: State) -> Logger {
        var logger = baseLogger
        logger[metadataKey: "session"] = .string(sessionID)
        if let device = state.device {
            logger[metadataKey: "device"] = .string(device.deviceID)
            logger[metadataKey: "account"] = .string(device.userID)
        }
        return logger
    }

    /// When the last pong arrived, on the keepalive clock (its ``SocketFrameWriter`` sees them); `nil` before the first.
    var lastPong: Duration? { state.withLockedValue { $0.lastPong } }

    /// A pong arrived at `time`, on the keepalive clock.
    func recordPong(at time: Duration) {
        state.withLockedValue { $0.lastPong = time }
    }

    /// Marks the socket authenticated.
    func authenticate(_ device: AuthenticatedDevice) {
        state.withLockedValue { $0.device = device }
    }

    /// What a frame's log line carries: its type and size, and its text when content is logged
    /// and the frame is one that carries content and no secret (`message`, `typing`).
    func logMetadata(type: String, text: @autoclosure () -> String, byteCount: Int) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["type": .string(type), "bytes": .stringConvertible(byteCount)]
        if logsContent, type == "message" || type == "typing" { metadata["frame"] = .string(text()) }
        return metadata
    }

    /// Checks a received frame's bytes with the session machine, counting rate limits in `limiter`.
    func observeReceived(_ bytes: [UInt8], answeredCodes: [String], limiter: inout RateLimiter) -> [SessionViolation] {
        state.withLockedValue { state in
            state.machine.observe(json: bytes, from: .client, answeredCodes: answeredCodes, rateLimits: &limiter)
        }
    }

    /// Encodes `frame` and sends it as the `OutboundFrame` overload does.
    func send(_ frame: ServerFrame, live: Bool = false) {
        send(OutboundFrame(frame), live: live)
    }

    /// Sends a frame now, or holds it while the socket is held when `live`. A stored event this
    /// socket already sent is dropped, and so is a snapshot of an answer whose final it sent.
    func send(_ frame: OutboundFrame, live: Bool = false) {
        let (overflowed, missing) = state.withLockedValue { state -> (Bool, Int?) in
            guard !state.closed else { return (false, nil) }
            if Self.alreadyEnded(frame, state) { return (false, nil) }
            if live, state.heldFrames != nil {
                state.heldFrames?.append(frame)
                state.heldBytes += frame.wire.readableBytes
                return (unsentBytes(state) > outbox.limit && overflow(&state), nil)
            }
            return (!deliver(frame, state: &state) && overflow(&state), Self.newlyMissing(&state))
        }
        report(overflowed: overflowed, missing: missing)
    }

    /// Tells the owner, outside the lock, what a send or release left: an overflow, or an event
    /// the socket now waits for.
    private func report(overflowed: Bool, missing: Int?) {
        if overflowed { onOverflow() }
        if let missing, !overflowed { onMissingEvent(self, missing) }
    }

    /// The bytes the socket holds that its peer has not taken: queued, held and waiting.
    private func unsentBytes(_ state: State) -> Int {
        outbox.bytes + state.heldBytes + state.waitingBytes
    }

    /// Writes `frame`, in its account's order when it is a numbered event the socket knows the
    /// place of: one already sent is dropped, one after a missing event waits, and the events
    /// waiting for it follow it. `false` when the socket has no room for it.
    private func deliver(_ frame: OutboundFrame, state: inout State) -> Bool {
        guard let number = frame.number, let next = state.nextNumber else { return write(frame, state: &state) }
        if number < next { return true }
        if number > next {
            if state.waiting.updateValue(frame, forKey: number) == nil { state.waitingBytes += frame.wire.readableBytes }
            return unsentBytes(state) <= outbox.limit
        }
        guard write(frame, state: &state) else { return false }
        state.nextNumber = number + 1
        return writeWaiting(state: &state)
    }

    /// Writes the waiting events that now come next, in order.
    private func writeWaiting(state: inout State) -> Bool {
        while let next = state.nextNumber, let frame = state.waiting.removeValue(forKey: next) {
            state.waitingBytes -= frame.wire.readableBytes
            guard write(frame, state: &state) else { return false }
            state.nextNumber = next + 1
        }
        return true
    }

    /// The number the socket now waits for, when events wait and no one watches for it yet.
    private static func newlyMissing(_ state: inout State) -> Int? {
        guard !state.closed, !state.waiting.isEmpty, !state.missingWatched else { return nil }
        state.missingWatched = true
        return state.nextNumber
    }

    /// Numbers the socket's events from here: the replay ended at the account's event `newest`
    /// (`nil` when the store does not number events), and `cursor` is the newest event the
    /// device has (the replay's last, or the one it replayed after). Call it while held.
    func startNumbering(after newest: Int?, cursor: String?) {
        state.withLockedValue { state in
            if let cursor { state.delivered.insert(cursor) }
            state.nextNumber = newest.map { $0 + 1 }
        }
    }

    /// The number of the event the socket waits for, if events wait; otherwise `nil`, and the
    /// owner's watch ends (the next missing event is reported again).
    func missingEvent() -> Int? {
        state.withLockedValue { state in
            guard !state.closed, !state.waiting.isEmpty, let next = state.nextNumber else {
                state.missingWatched = false
                return nil
            }
            return next
        }
    }

    /// Gives up on the missing events before the first waiting one (the store did not have them
    /// either) and sends what waits; returns the numbers skipped.
    func skipMissingEvents() -> ClosedRange<Int>? {
        let (overflowed, skipped) = state.withLockedValue { state -> (Bool, ClosedRange<Int>?) in
            guard let next = state.nextNumber, let first = state.waiting.keys.min(), first > next else { return (false, nil) }
            state.nextNumber = first
            return (!writeWaiting(state: &state) && overflow(&state), next...(first - 1))
        }
        if overflowed { onOverflow() }
        return skipped
    }

    /// Whether the socket already sent `frame`'s event, or the final of the answer it is a snapshot of.
    private static func alreadyEnded(_ frame: OutboundFrame, _ state: State) -> Bool {
        guard let id = frame.messageID else { return false }
        return state.delivered.contains(id)
    }

    /// Holds live frames until ``release()``.
    func hold() {
        state.withLockedValue { $0.heldFrames = $0.heldFrames ?? [] }
    }

    /// Sends the live frames held, except stored events the socket sent meanwhile and snapshots
    /// of answers whose final it sent (the replay may have carried it).
    func release() {
        let (overflowed, missing) = state.withLockedValue { state -> (Bool, Int?) in
            let held = state.heldFrames ?? []
            state.heldFrames = nil
            state.heldBytes = 0
            for frame in held where !state.closed {
                if Self.alreadyEnded(frame, state) { continue }
                if !deliver(frame, state: &state) { return (overflow(&state), nil) }
            }
            return (false, Self.newlyMissing(&state))
        }
        report(overflowed: overflowed, missing: missing)
    }

    /// The stored event a catch-up reads after: a few events before the newest this socket sent,
    /// since events from other nodes may arrive in another order than the store keeps them (the
    /// ones in between were sent, and are not sent again). `nil` when it sent none.
    func catchUpCursor(margin: Int = 64) -> String? {
        state.withLockedValue { $0.delivered.recent(back: margin) }
    }

    /// Puts a frame in the outbox; `false` when the outbox has no room for it.
    private func write(_ frame: OutboundFrame, state: inout State) -> Bool {
        // Parsed once for every socket: each session machine checks the frame that goes on the wire.
        for violation in state.machine.observe(parsed: frame.parsed) where violation.severity == .error {
            logger(for: state).error("the server broke a session rule", metadata: ["violation": "\(violation)"])
        }
        if logLevel <= .trace {
            logger(for: state).trace("sending", metadata: logMetadata(type: frame.type, text: frame.text, byteCount: frame.wire.readableBytes))
        }
        guard outbox.push(.frame(frame.wire)) else { return false }
        metrics.sent(type: frame.type)
        if let eventID = frame.eventID { state.delivered.insert(eventID) }
        return true
    }

    /// The socket fell too far behind: what it has not taken is dropped and it closes with
    /// ``tooFarBehindCode``. Returns `true` (the owner's `onOverflow` runs outside the lock).
    private func overflow(_ state: inout State) -> Bool {
        state.closed = true
        state.heldFrames = nil
        state.waiting = [:]
        logger(for: state).warning("a socket fell too far behind and is closed", metadata: ["limit": "\(outbox.limit)"])
        outbox.abandon(with: .close(code: Self.tooFarBehindCode, reason: "the client read too slowly"))
        return true
    }

    /// Sends an `error` frame.
    func sendError(_ code: ErrorCode, _ message: String, messageID: String? = nil) {
        metrics.answeredError(code: code.rawValue)
        send(.error(ErrorMessage(code: code, message: message, messageId: messageID)))
    }

    /// Sends an error, then closes with the error's close code (`session_replaced`, `token_revoked`,
    /// `rate_limited` and the like end the socket).
    func fail(_ code: ErrorCode, _ message: String) {
        sendError(code, message)
        close(code: code.closeCode ?? 1008)
    }

    /// Sends a WebSocket ping after the frames already sent.
    func ping() {
        state.withLockedValue { state in
            guard !state.closed else { return }
            _ = outbox.push(.ping)
        }
    }

    /// The code that stands for a close frame without a status code (RFC 6455, section 7.4.1:
    /// 1005 is never sent; a peer reads it from an empty close frame). Only a test's fault sends one.
    static let noStatusCode = 1005

    /// Closes the socket with `code` after the frames already sent; later sends are dropped.
    func close(code: Int, reason: String? = nil) {
        state.withLockedValue { state in
            guard !state.closed else { return }
            state.closed = true
            state.heldFrames = nil
            state.waiting = [:]
            if !outbox.push(.close(code: code, reason: reason)) {
                outbox.abandon(with: .close(code: code, reason: reason))
            }
            outbox.finish()
        }
    }

    /// Closes the socket with the code of the session rules' last transition that ends the
    /// connection (a failed `auth_result` or `pair_result`), 1000 if none gave one.
    func closeAsTheRulesSay() {
        let code = state.withLockedValue { $0.machine.closeCode } ?? 1000
        close(code: code)
    }

    /// Ends the outbox without a close frame (the client went away).
    func finish() {
        state.withLockedValue { state in
            state.closed = true
            state.heldFrames = nil
            state.waiting = [:]
            outbox.finish()
        }
    }

    /// Closes the connection at once, whatever its writer and its peer are doing (a drain's
    /// deadline passed).
    func abort() {
        finish()
        abortChannel()
    }

    /// Whether the socket was closed by the server.
    var isClosed: Bool { state.withLockedValue { $0.closed } }
}

/// The stored events a socket sent most recently, oldest first, at most `capacity`.
struct RecentEvents: Sendable {
    let capacity: Int
    private var order: [String] = []
    private var start = 0
    private var members: Set<String> = []

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ eventID: String) -> Bool { members.contains(eventID) }

    mutating func insert(_ eventID: String) {
        guard members.insert(eventID).inserted else { return }
        order.append(eventID)
        if order.count - start > capacity {
            members.remove(order[start])
            start += 1
            if start > capacity {
                order.removeFirst(start)
                start = 0
            }
        }
    }

    /// The event `back` places before the newest (the oldest kept when fewer), `nil` when none.
    func recent(back: Int) -> String? {
        guard order.count > start else { return nil }
        return order[max(start, order.count - 1 - back)]
    }
}

/// A device authenticated on a socket.
struct AuthenticatedDevice: Sendable, Hashable {
    var deviceID: String
    var userID: String
    var isAdmin: Bool
    /// When the pairing the device authenticated under was made: a device removed and paired
    /// again has a later one, and its sockets of the earlier pairing are closed.
    var pairedAt: Date
}
