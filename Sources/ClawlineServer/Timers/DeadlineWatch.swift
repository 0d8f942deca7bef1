import NIOConcurrencyHelpers
import ServiceLifecycle

/// Something a ``DeadlineWatch`` watches: when it must next be looked at, and what happens then.
protocol WatchedDeadline: Sendable {
    /// What the watch does for an entry, outside its lock, once the entry's deadline came up.
    associatedtype Action: Sendable
    /// The spans every entry of one watch shares (an interval, a timeout), held once by the watch.
    associatedtype Timing: Sendable

    /// When the entry must next be looked at, on the watch's clock.
    func deadline(_ timing: Timing) -> Duration

    /// Looks at the entry at `now`, which is at or past a deadline it had (it may since have
    /// moved later). Runs under the watch's lock, so it only decides: the action to take (if any)
    /// and whether the entry stays watched, until its new ``deadline(_:)``.
    mutating func comeDue(at now: Duration, _ timing: Timing) -> (action: Action?, staysWatched: Bool)
}

/// Many deadlines on one task: each watched entry is a heap entry, and the watch wakes only when
/// some entry is due, or sleeps on nothing at all while nothing is watched (so a test's manual
/// clock sees no sleeper from it then). One task and one timer serve every entry, instead of a
/// task and a timer each.
///
/// An entry's deadline may move later without the watch hearing of it (a pong, an update): the
/// heap then holds a stale deadline, and the entry is looked at again when it comes up. The
/// watch never needs waking for an earlier deadline, because every user's entries obey one rule:
/// a newly watched entry is never due before every entry already watched (each is "now plus the
/// same span", or a ping at most one interval ahead). Only a watch waiting for its first entry is
/// woken.
final class DeadlineWatch<Entry: WatchedDeadline>: Sendable {
    private struct State {
        var watched: [Int: Entry] = [:]
        var due = DeadlineHeap()
        var nextID = 0
        /// Whether ``run(clock:)`` found nothing to watch and waits for an entry.
        var waitsForEntries = false
    }

    private let state = NIOLockedValueBox(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let now: @Sendable () -> Duration
    /// The spans every entry is judged by.
    let timing: Entry.Timing
    private let perform: @Sendable (Entry.Action) -> Void

    /// A watch reading the time from `now`, which judges every entry by `timing` and does
    /// `perform` with each action an entry's ``WatchedDeadline/comeDue(at:_:)`` asks for.
    init(now: @escaping @Sendable () -> Duration, timing: Entry.Timing, perform: @escaping @Sendable (Entry.Action) -> Void) {
        self.now = now
        self.timing = timing
        self.perform = perform
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts watching `entry`; returns the id that ``forget(_:)`` takes.
    func watch(_ entry: Entry) -> Int {
        let (id, wakes) = state.withLockedValue { state in
            let id = state.nextID
            state.nextID += 1
            // Before the new entry is added, so that the rebuilt heap does not hold it twice.
            compactIfMostlyStale(&state)
            state.watched[id] = entry
            state.due.insert(deadline: entry.deadline(timing), id: id)
            defer { state.waitsForEntries = false }
            return (id, state.waitsForEntries)
        }
        if wakes { wake.yield() }
        return id
    }

    /// Stops watching an entry (its socket closed, its answer ended).
    func forget(_ id: Int) {
        _ = state.withLockedValue { $0.watched.removeValue(forKey: id) }
    }

    /// How many entries are watched.
    var count: Int { state.withLockedValue { $0.watched.count } }

    /// How many deadlines the heap holds, stale ones included.
    var pendingDeadlines: Int { state.withLockedValue { $0.due.count } }

    /// Whether the watch found nothing to watch and waits for an entry rather than the clock.
    var waitsForEntries: Bool { state.withLockedValue { $0.waitsForEntries } }

    /// Rebuilds the heap from the entries still watched once stale deadlines (entries forgotten
    /// before their deadline came up) outnumber them, so the heap stays bounded by the entries
    /// watched even before ``run(clock:)`` reaches their deadlines, or if it never runs.
    private func compactIfMostlyStale(_ state: inout State) {
        guard state.due.count > 2 * state.watched.count + 64 else { return }
        var due = DeadlineHeap()
        for (id, entry) in state.watched { due.insert(deadline: entry.deadline(timing), id: id) }
        state.due = due
    }

    /// Takes the actions that come due, sleeping on `clock` until the next deadline in between,
    /// until cancelled.
    func run(clock: any Clock<Duration>) async throws {
        try await run(on: clock)
    }

    private func run<C: Clock<Duration>>(on clock: C) async throws {
        var entriesCame = wakeups.makeAsyncIterator()
        while true {
            // The clock's instant is read before the watch's time: a clock that moves between the
            // two reads (a test's manual clock) only wakes the watch early, and one that moves
            // before the sleep begins wakes it at once, never one deadline late.
            let instant = clock.now
            let current = now()
            let (actions, next) = state.withLockedValue { state in takeDue(at: current, from: &state) }
            for action in actions { perform(action) }
            if let next {
                // Every due deadline was taken, so the next one is later than now.
                try await clock.sleep(until: instant.advanced(by: next - current), tolerance: nil)
            } else if waitForEntries(), await entriesCame.next() == nil {
                throw CancellationError()
            }
        }
    }

    /// Looks at every entry due at `current`: the actions they ask for, and the next deadline
    /// (`nil` when nothing is watched, and the watch then waits for an entry).
    private func takeDue(at current: Duration, from state: inout State) -> ([Entry.Action], Duration?) {
        var actions: [Entry.Action] = []
        while let (deadline, id) = state.due.first, deadline <= current {
            state.due.removeFirst()
            guard var entry = state.watched[id] else { continue }
            let (action, staysWatched) = entry.comeDue(at: current, timing)
            if let action { actions.append(action) }
            if staysWatched {
                state.watched[id] = entry
                state.due.insert(deadline: entry.deadline(timing), id: id)
            } else {
                state.watched[id] = nil
            }
        }
        return (actions, state.watched.isEmpty ? nil : state.due.first?.deadline)
    }

    /// Whether the watch should wait for an entry: nothing is watched (an entry watched since the
    /// last look is looked at first). Set only after the last actions were taken, so that a test
    /// that sees ``waitsForEntries`` sees their effects.
    private func waitForEntries() -> Bool {
        state.withLockedValue { state in
            guard state.watched.isEmpty else { return false }
            // Stale deadlines only: nothing is due any more.
            state.due = DeadlineHeap()
            state.waitsForEntries = true
            return true
        }
    }
}

/// Runs a ``DeadlineWatch`` on a clock until the server shuts down.
struct DeadlineWatchService<Entry: WatchedDeadline>: Service {
    let watch: DeadlineWatch<Entry>
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
