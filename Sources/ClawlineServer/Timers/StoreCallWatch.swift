/// Every bounded store call's bound on one ``DeadlineWatch``: a call that has not ended
/// ``limit`` after it started is told so once. A call costs a heap entry here instead of a task
/// and a timer of its own, and the watch sleeps on the clock only while some call is watched.
///
/// Every call is bounded by the same span from its start, so a newly watched call is never due
/// before those already watched, as the watch requires.
final class StoreCallWatch: Sendable {
    /// The watch itself (``DeadlineWatchService`` runs it).
    let deadlines: DeadlineWatch<StoreCallEntry>
    private let now: @Sendable () -> Duration

    /// How long a caller waits for a call.
    var limit: Duration { deadlines.timing }

    /// A watch reading the time from `now` that bounds every call at `limit`.
    init(now: @escaping @Sendable () -> Duration, limit: Duration) {
        self.now = now
        deadlines = DeadlineWatch(now: now, timing: limit) { expire in expire() }
    }

    /// Starts watching a call that starts now; `expire` runs once (outside the watch's lock) if
    /// the call is still watched ``limit`` from now. Returns the id that ``forget(_:)`` takes.
    func watch(expire: @escaping @Sendable () -> Void) -> Int {
        deadlines.watch(StoreCallEntry(startedAt: now(), expire: expire))
    }

    /// Stops watching a call (it ended).
    func forget(_ id: Int) { deadlines.forget(id) }

    /// How many calls are watched.
    var count: Int { deadlines.count }
}

/// One store call's bound: it expires at its start plus the watch's limit.
struct StoreCallEntry: WatchedDeadline {
    /// When the call started, on the watch's clock.
    let startedAt: Duration
    /// What the caller does when the call outlives the limit.
    let expire: @Sendable () -> Void

    func deadline(_ limit: Duration) -> Duration { startedAt + limit }

    /// A call's deadline never moves: once due, it expires and is no longer watched.
    mutating func comeDue(at now: Duration, _ limit: Duration) -> (action: (@Sendable () -> Void)?, staysWatched: Bool) {
        (expire, false)
    }
}
