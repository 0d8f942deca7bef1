import ClawlineProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import WireRuntime

/// What a connection's writer sends next.
enum Outgoing: Sendable {
    /// A frame, as canonical JSON text.
    case frame(String)
    /// Close the socket with this code.
    case close(code: Int, reason: String?)
    /// A WebSocket ping (the keepalive's).
    case ping
}

/// One client socket as the rest of the server sees it: frames sent to it go through its session
/// machine (the shared rules see both directions, in wire order) and into its outbox, which one
/// writer task drains; live frames wait while the socket is replaying.
final class ServerConnection: Sendable {
    /// A diagnostic id, unique per socket (`sess_…`, sent in `auth_result`).
    let sessionID: String
    /// The peer's IP address, when known.
    let remoteAddress: String?
    /// When the socket opened, on the server's clock.
    let openedAt: Duration
    private let outbox: AsyncStream<Outgoing>.Continuation
    private let state: NIOLockedValueBox<State>
    private let logger: Logger

    private struct State {
        var machine: SessionMachine
        var closed = false
        /// While replaying, live frames wait here.
        var heldFrames: [ServerFrame]?
        /// The events the replay carried: a live copy arriving later (from another node, whose
        /// notification can trail the commit the replay read) is not sent twice.
        var replayedEventIDs: Set<String> = []
        /// The device once authenticated.
        var device: AuthenticatedDevice?
    }

    /// A connection and the outbox its writer drains.
    /// `now` is the server's time base, shared by every connection (a device's rate windows span them).
    static func make(
        engine: SessionEngine, now: @escaping @Sendable () -> Duration, remoteAddress: String? = nil, logger: Logger
    ) -> (ServerConnection, AsyncStream<Outgoing>) {
        let (stream, continuation) = AsyncStream<Outgoing>.makeStream()
        let connection = ServerConnection(
            sessionID: "sess_" + UUID().uuidString.lowercased(), remoteAddress: remoteAddress, openedAt: now(), outbox: continuation,
            state: NIOLockedValueBox(State(machine: SessionMachine(engine: engine, now: now))), logger: logger)
        return (connection, stream)
    }

    private init(
        sessionID: String, remoteAddress: String?, openedAt: Duration, outbox: AsyncStream<Outgoing>.Continuation, state: NIOLockedValueBox<State>,
        logger: Logger
    ) {
        self.sessionID = sessionID
        self.remoteAddress = remoteAddress
        self.openedAt = openedAt
        self.outbox = outbox
        self.state = state
        self.logger = logger
    }

    /// The authenticated device on this socket, if any.
    var device: AuthenticatedDevice? { state.withLockedValue { $0.device } }

    /// Marks the socket authenticated.
    func authenticate(_ device: AuthenticatedDevice) {
        state.withLockedValue { $0.device = device }
    }

    /// Checks a received frame's bytes with the session machine, counting rate limits in `limiter`.
    func observeReceived(_ bytes: [UInt8], answeredCodes: [String], limiter: inout RateLimiter) -> [SessionViolation] {
        state.withLockedValue { state in
            state.machine.observe(json: bytes, from: .client, answeredCodes: answeredCodes, rateLimits: &limiter)
        }
    }

    /// Sends a frame now (or holds it while the socket replays, when `live`); a live event the
    /// replay already carried is dropped.
    func send(_ frame: ServerFrame, live: Bool = false) {
        state.withLockedValue { state in
            guard !state.closed else { return }
            if live, Self.isEvent(frame, in: state.replayedEventIDs) { return }
            if live, state.heldFrames != nil {
                state.heldFrames?.append(frame)
                return
            }
            write(frame, state: &state)
        }
    }

    /// Holds live frames until ``endReplay(sent:)``.
    func beginReplay() {
        state.withLockedValue { $0.heldFrames = $0.heldFrames ?? [] }
    }

    /// Sends the live frames held during replay, except events the replay already carried.
    func endReplay(sent eventIDs: Set<String>) {
        state.withLockedValue { state in
            let held = state.heldFrames ?? []
            state.heldFrames = nil
            state.replayedEventIDs = eventIDs
            for frame in held where !Self.isEvent(frame, in: eventIDs) {
                write(frame, state: &state)
            }
        }
    }

    /// Whether `frame` is a stored event (a final message) with one of `eventIDs`.
    private static func isEvent(_ frame: ServerFrame, in eventIDs: Set<String>) -> Bool {
        guard case .message(let message) = frame, !message.streaming else { return false }
        return eventIDs.contains(message.id.rawValue)
    }

    private func write(_ frame: ServerFrame, state: inout State) {
        // Encoded once: the session machine checks the bytes that go on the wire.
        let bytes = frame.encoded()
        let violations = state.machine.observe(json: bytes, from: .server)
        for violation in violations where violation.severity == .error {
            logger.error("the server broke a session rule", metadata: ["session": "\(sessionID)", "violation": "\(violation)"])
        }
        let text = String(decoding: bytes, as: UTF8.self)
        logger.trace("sending", metadata: ["session": "\(sessionID)", "frame": "\(text.prefix(200))"])
        outbox.yield(.frame(text))
    }

    /// Sends an `error` frame.
    func sendError(_ code: ErrorCode, _ message: String, messageID: String? = nil) {
        send(.error(ErrorMessage(code: code, message: message, messageId: messageID)))
    }

    /// Sends a WebSocket ping after the frames already sent.
    func ping() {
        state.withLockedValue { state in
            guard !state.closed else { return }
            outbox.yield(.ping)
        }
    }

    /// Closes the socket with `code` after the frames already sent; later sends are dropped.
    func close(code: Int, reason: String? = nil) {
        state.withLockedValue { state in
            guard !state.closed else { return }
            state.closed = true
            outbox.yield(.close(code: code, reason: reason))
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
            outbox.finish()
        }
    }

    /// Whether the socket was closed by the server.
    var isClosed: Bool { state.withLockedValue { $0.closed } }
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
