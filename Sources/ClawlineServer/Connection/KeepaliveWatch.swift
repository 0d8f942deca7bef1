import ClawlineProtocol
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Every socket's keepalive on one task: each watched socket is pinged every interval and closed
/// (1001) once no pong (which its ``SocketFrameWriter`` sees) has come for the timeout. One task and one
/// timer serve every socket, instead of a task and a timer per socket: an idle socket costs a heap
/// entry here, and the watch wakes only when some socket's ping or timeout is due.
final class KeepaliveWatch: Sendable {
    private struct Watched {
        let connection: ServerConnection
        /// When the watch began: the socket's silence counts from here until its first pong.
        let since: Duration
        /// When the socket is pinged next, on the keepalive clock.
        var nextPing: Duration

        /// When the socket was last heard from: its last pong, or the watch's start.
        var lastHeard: Duration { connection.lastPong ?? since }
    }

    private struct State {
        var watched: [Int: Watched] = [:]
        /// When each watched socket's ping or timeout is due: a binary min-heap on the deadline. An
        /// entry may be stale (its pong moved the timeout later, or the socket was forgotten); it
        /// is looked at again when it comes up.
        var due = DeadlineHeap()
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())
    private let now: @Sendable () -> Duration
    let interval: Duration
    let timeout: Duration

    init(
        now: @escaping @Sendable () -> Duration, interval: Duration = Clawline.Constants.pingInterval,
        timeout: Duration = Clawline.Constants.pongTimeout
    ) {
        self.now = now
        self.interval = interval
        self.timeout = timeout
    }

    /// Starts watching `connection`; returns the id that ``forget(_:)`` takes. Its silence counts
    /// from now, and its first ping is due one interval from now.
    func watch(_ connection: ServerConnection) -> Int {
        let current = now()
        let watched = Watched(connection: connection, since: current, nextPing: current + interval)
        return state.withLockedValue { state in
            let id = state.nextID
            state.nextID += 1
            state.watched[id] = watched
            state.due.insert(deadline: min(watched.nextPing, watched.lastHeard + timeout), id: id)
            return id
        }
    }

    /// Stops watching a socket (it closed).
    func forget(_ id: Int) {
        _ = state.withLockedValue { $0.watched.removeValue(forKey: id) }
    }

    /// How many sockets are watched.
    var count: Int { state.withLockedValue { $0.watched.count } }

    /// Pings and closes as due, sleeping on `clock` in between, until cancelled.
    ///
    /// A socket watched while this sleeps is due one interval after it was watched, never before
    /// the earliest deadline this sleeps until (every deadline is at most one interval ahead), so
    /// no wake-up is needed.
    func run(clock: any Clock<Duration>) async throws {
        while true {
            let current = now()
            let (pings, closes, next) = state.withLockedValue { state in takeDue(at: current, from: &state) }
            for connection in pings { connection.ping() }
            for connection in closes { connection.close(code: 1001, reason: "no pong for \(timeout)") }
            // Every due deadline was taken, so the next one is later than now.
            try await clock.sleep(for: (next.map { min($0, current + interval) } ?? current + interval) - current)
        }
    }

    /// Takes every socket due at `current`: those to ping and those to close, and the next deadline.
    private func takeDue(at current: Duration, from state: inout State) -> ([ServerConnection], [ServerConnection], Duration?) {
        var pings: [ServerConnection] = []
        var closes: [ServerConnection] = []
        while let (deadline, id) = state.due.first, deadline <= current {
            state.due.removeFirst()
            guard var watched = state.watched[id] else { continue }
            if watched.connection.isClosed {
                state.watched[id] = nil
                continue
            }
            let lastHeard = watched.lastHeard
            if current - lastHeard >= timeout {
                state.watched[id] = nil
                closes.append(watched.connection)
                continue
            }
            if current >= watched.nextPing {
                pings.append(watched.connection)
                watched.nextPing = current + interval
                state.watched[id] = watched
            }
            state.due.insert(deadline: min(watched.nextPing, lastHeard + timeout), id: id)
        }
        return (pings, closes, state.due.first?.deadline)
    }
}

/// Runs a ``KeepaliveWatch`` on the keepalive clock until the server shuts down.
struct KeepaliveWatchService: Service {
    let watch: KeepaliveWatch
    let clock: any Clock<Duration>

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await watch.run(clock: clock) }
    }
}

/// A binary min-heap of (deadline, id).
struct DeadlineHeap {
    private var items: [(deadline: Duration, id: Int)] = []

    var first: (deadline: Duration, id: Int)? { items.first }
    var count: Int { items.count }

    mutating func insert(deadline: Duration, id: Int) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left].deadline < items[smallest].deadline { smallest = left }
            if right < items.count, items[right].deadline < items[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
