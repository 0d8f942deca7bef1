import ClawlineProtocol
import NIOConcurrencyHelpers
import ServiceLifecycle

/// One answer in progress, as the ``AnswerWatch`` sees it: when the assistant last sent
/// something, and what to do if it sends nothing more for the watch's timeout.
final class AnswerActivity: Sendable {
    private let lastUpdate: NIOLockedValueBox<Duration>
    private let onStall: @Sendable () -> Void

    /// An answer that started at `start` (on the watch's clock) and calls `onStall` once if it
    /// stalls.
    init(startedAt start: Duration, onStall: @escaping @Sendable () -> Void) {
        lastUpdate = NIOLockedValueBox(start)
        self.onStall = onStall
    }

    /// Records that the assistant sent something at `now`.
    func touch(at now: Duration) { lastUpdate.withLockedValue { $0 = now } }

    /// When the assistant last sent something (or the answer started).
    var lastHeard: Duration { lastUpdate.withLockedValue { $0 } }

    /// Tells the answer it stalled.
    func stall() { onStall() }
}

/// Every answer's inactivity on one task: an answer whose assistant sends nothing for `timeout`
/// is told it stalled. One task and one timer serve every answer in progress, instead of a task
/// sleeping beside each: an answer costs a heap entry here, and the watch sleeps on the clock only
/// while some answer is watched (so a test's manual clock sees no sleeper from it otherwise).
final class AnswerWatch: Sendable {
    private struct State {
        var watched: [Int: AnswerActivity] = [:]
        /// When each answer's silence may reach the timeout: a min-heap on the deadline. An entry
        /// may be stale (the answer was heard from since, or ended); it is looked at again when it
        /// comes up.
        var due = DeadlineHeap()
        var nextID = 0
        /// Whether ``run(clock:)`` found nothing to watch and waits for ``wakeups``.
        var waitsForAnswers = false
    }

    private let state = NIOLockedValueBox(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let now: @Sendable () -> Duration
    /// How long an answer may go without an update.
    let timeout: Duration

    init(now: @escaping @Sendable () -> Duration, timeout: Duration = Clawline.Constants.streamInactivityTimeout) {
        self.now = now
        self.timeout = timeout
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts watching an answer; returns the id that ``forget(_:)`` takes. Its silence counts from
    /// its last update.
    ///
    /// Every deadline is its answer's last update plus the same timeout, so a new answer is never
    /// due before the deadline the watch already sleeps until: only a watch waiting for its first
    /// answer needs waking.
    func watch(_ activity: AnswerActivity) -> Int {
        let deadline = activity.lastHeard + timeout
        let (id, wakes) = state.withLockedValue { state in
            let id = state.nextID
            state.nextID += 1
            // Before the new answer is added, so that the rebuilt heap does not hold it twice.
            compactIfMostlyStale(&state)
            state.watched[id] = activity
            state.due.insert(deadline: deadline, id: id)
            defer { state.waitsForAnswers = false }
            return (id, state.waitsForAnswers)
        }
        if wakes { wake.yield() }
        return id
    }

    /// Stops watching an answer (it ended).
    func forget(_ id: Int) {
        _ = state.withLockedValue { $0.watched.removeValue(forKey: id) }
    }

    /// How many answers are watched.
    var count: Int { state.withLockedValue { $0.watched.count } }

    /// How many deadlines the heap holds, stale ones included.
    var pendingDeadlines: Int { state.withLockedValue { $0.due.count } }

    /// Rebuilds the heap from the answers still watched once stale entries (answers that ended
    /// before their deadline came up) outnumber them, so the heap stays bounded by the answers in
    /// progress even before ``run(clock:)`` reaches their deadlines, or if it never runs.
    private func compactIfMostlyStale(_ state: inout State) {
        guard state.due.count > 2 * state.watched.count + 64 else { return }
        var due = DeadlineHeap()
        for (id, activity) in state.watched { due.insert(deadline: activity.lastHeard + timeout, id: id) }
        state.due = due
    }

    /// Whether the watch found nothing to watch and waits for an answer rather than the clock.
    var waitsForAnswers: Bool { state.withLockedValue { $0.waitsForAnswers } }

    /// Tells stalled answers so, sleeping on `clock` until the next deadline in between, until
    /// cancelled.
    func run(clock: any Clock<Duration>) async throws {
        var answersCame = wakeups.makeAsyncIterator()
        while true {
            let current = now()
            let (stalled, next) = state.withLockedValue { state in takeDue(at: current, from: &state) }
            for activity in stalled { activity.stall() }
            if let next {
                try await clock.sleep(for: next - current)
            } else if await answersCame.next() == nil {
                throw CancellationError()
            }
        }
    }

    /// Takes every answer due at `current`: those that stalled, and the next deadline (`nil` when
    /// nothing is watched, and the watch then waits for an answer).
    private func takeDue(at current: Duration, from state: inout State) -> ([AnswerActivity], Duration?) {
        var stalled: [AnswerActivity] = []
        while let (deadline, id) = state.due.first, deadline <= current {
            state.due.removeFirst()
            guard let activity = state.watched[id] else { continue }
            let lastHeard = activity.lastHeard
            if current - lastHeard >= timeout {
                state.watched[id] = nil
                stalled.append(activity)
            } else {
                state.due.insert(deadline: lastHeard + timeout, id: id)
            }
        }
        if state.watched.isEmpty {
            // Stale entries only: nothing is due any more.
            state.due = DeadlineHeap()
            state.waitsForAnswers = true
            return (stalled, nil)
        }
        return (stalled, state.due.first?.deadline)
    }
}

/// Runs an ``AnswerWatch`` on the server's clock until the server shuts down.
struct AnswerWatchService: Service {
    let watch: AnswerWatch
    let clock: any Clock<Duration>

    func run() async throws {
        try? await cancelWhenGracefulShutdown { try await watch.run(clock: clock) }
    }
}
