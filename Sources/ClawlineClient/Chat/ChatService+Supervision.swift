import ClawlineProtocol
import Foundation
import WireRuntime

/// What the connection supervisor asks of the service, for its session: each call is refused
/// when its session (or socket generation) is no longer current, so a loop left over from an
/// earlier `connect` cannot change the newer socket.
extension ChatService {
    /// A new attempt of `session` begins; `false` when the session has ended.
    func beginAttempt(session: Int) -> Bool {
        guard session == self.session, !Task.isCancelled else { return false }
        if state != .waitingForApproval { set(backoff.failedAttempts == 0 ? .connecting : .reconnecting) }
        return true
    }

    /// The socket of `session` could not be opened.
    func attemptFailed(_ reason: String, session: Int) {
        guard session == self.session else { return }
        noticeSink.yield(.connectionLost(reason))
    }

    /// Makes `opened` the socket of `session` and sends `auth`; returns its generation, or `nil`
    /// when the session has ended (the caller closes the socket).
    func adopt(_ opened: any WebSocketConnection, session: Int) -> Int? {
        guard session == self.session, let token, let timeline else { return nil }
        generation += 1
        socket = opened
        socketName = connections.next()
        machine = SessionMachine(engine: Self.engine, now: environment.elapsed)
        let cursor = timeline.cursor.map(Nullable.value) ?? .absent
        send(.auth(Auth(token: token, deviceId: deviceId, lastMessageId: cursor)))
        schedule(after: Clawline.Constants.connectTimeout) { service, generation in
            service.authenticationTimedOut(generation)
        }
        return generation
    }

    /// Handles a frame read on the socket of `generation`.
    func receive(_ text: String, generation: Int) async -> SocketEnd {
        guard generation == self.generation, socket != nil else { return .stale }
        return await receive(text).map(SocketEnd.failed) ?? .reading
    }

    /// The socket of `generation` ended; only the current socket is forgotten.
    func socketEnded(generation: Int, end: SocketEnd, closeCode: Int?) {
        guard generation == self.generation else { return }
        endSocket()
        if case .lost = end { noticeSink.yield(.connectionLost("the socket closed\(closeCode.map { " (\($0))" } ?? "")")) }
    }

    /// After a socket of `session` ended: when to try again (on the environment's elapsed time),
    /// or `nil` when the session is over.
    func nextAttempt(after end: SocketEnd, session: Int) -> Duration? {
        guard session == self.session else { return nil }
        switch end {
        case .failed(.deviceNotApproved):
            // Pending approval: ask again every deviceApprovalRetryInterval until an admin decides.
            set(.waitingForApproval)
            noticeSink.yield(.reconnecting(in: Clawline.Constants.deviceApprovalRetryInterval))
            return environment.elapsed() + Clawline.Constants.deviceApprovalRetryInterval
        case .failed(let failure):
            set(.failed(failure))
            settleConnect(.failure(failure))
            return nil
        case .lost, .reading:
            var delay = backoff.nextDelay()
            if authRateLimited {
                // The provider counts auth attempts per device: the next one waits out the window.
                authRateLimited = false
                delay = max(delay, Clawline.RateLimits.auth.window ?? delay)
            }
            set(.reconnecting)
            noticeSink.yield(.reconnecting(in: delay))
            return environment.elapsed() + delay
        case .stale:
            return nil
        }
    }

    func authenticationTimedOut(_ generation: Int) {
        guard generation == self.generation, !isAuthenticated, let socket else { return }
        noticeSink.yield(.connectionLost("no auth_result within \(Clawline.Constants.connectTimeout)"))
        socket.close(code: 1000)
    }
}
