import ClawlineProtocol

/// Every socket's keepalive on one ``DeadlineWatch``: each watched socket is pinged every interval
/// and closed (1001) once no pong (which its ``SocketFrameWriter`` sees) has come for the timeout.
/// An idle socket costs a heap entry here, and the watch wakes only when some socket's ping or
/// timeout is due.
final class KeepaliveWatch: Sendable {
    /// The watch itself (``DeadlineWatchService`` runs it).
    let deadlines: DeadlineWatch<KeepaliveEntry>
    private let now: @Sendable () -> Duration

    /// How often a socket is pinged.
    var interval: Duration { deadlines.timing.interval }
    /// How long a socket may go without a pong.
    var timeout: Duration { deadlines.timing.timeout }

    init(
        now: @escaping @Sendable () -> Duration, interval: Duration = Clawline.Constants.pingInterval,
        timeout: Duration = Clawline.Constants.pongTimeout
    ) {
        self.now = now
        deadlines = DeadlineWatch(now: now, timing: KeepaliveEntry.Timing(interval: interval, timeout: timeout)) { action in
            switch action {
            case .ping(let connection): connection.ping()
            case .close(let connection): connection.close(code: 1001, reason: "no pong for \(timeout)")
            }
        }
    }

    /// Starts watching `connection`; returns the id that ``forget(_:)`` takes. Its silence counts
    /// from now, and its first ping is due one interval from now.
    func watch(_ connection: ServerConnection) -> Int {
        let current = now()
        return deadlines.watch(
            KeepaliveEntry(connection: connection, since: current, nextPing: current + interval))
    }

    /// Stops watching a socket (it closed).
    func forget(_ id: Int) { deadlines.forget(id) }

    /// How many sockets are watched.
    var count: Int { deadlines.count }
}

/// One socket's keepalive: when it is pinged next and when its silence reaches the timeout.
struct KeepaliveEntry: WatchedDeadline {
    /// What a socket's deadline asks for.
    enum Action: Sendable {
        case ping(ServerConnection)
        case close(ServerConnection)
    }

    /// The watch's spans: how often a socket is pinged, and how long it may go without a pong.
    struct Timing: Sendable {
        let interval: Duration
        let timeout: Duration
    }

    let connection: ServerConnection
    /// When the watch began: the socket's silence counts from here until its first pong.
    let since: Duration
    /// When the socket is pinged next, on the keepalive clock.
    var nextPing: Duration

    /// When the socket was last heard from: its last pong, or the watch's start.
    var lastHeard: Duration { connection.lastPong ?? since }

    /// Its next ping, or its timeout if that comes first: at most one interval ahead.
    func deadline(_ timing: Timing) -> Duration { min(nextPing, lastHeard + timing.timeout) }

    mutating func comeDue(at now: Duration, _ timing: Timing) -> (action: Action?, staysWatched: Bool) {
        if connection.isClosed { return (nil, false) }
        if now - lastHeard >= timing.timeout { return (.close(connection), false) }
        guard now >= nextPing else { return (nil, true) }
        nextPing = now + timing.interval
        return (.ping(connection), true)
    }
}
