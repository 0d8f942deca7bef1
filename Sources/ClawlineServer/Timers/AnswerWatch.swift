import ClawlineProtocol
import NIOConcurrencyHelpers

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

/// Every answer's inactivity on one ``DeadlineWatch``: an answer whose assistant sends nothing for
/// `timeout` is told it stalled. An answer costs a heap entry here, and the watch sleeps on the
/// clock only while some answer is watched.
final class AnswerWatch: Sendable {
    /// The watch itself (``DeadlineWatchService`` runs it).
    let deadlines: DeadlineWatch<AnswerEntry>
    /// How long an answer may go without an update.
    var timeout: Duration { deadlines.timing }

    init(now: @escaping @Sendable () -> Duration, timeout: Duration = Clawline.Constants.streamInactivityTimeout) {
        deadlines = DeadlineWatch(now: now, timing: timeout) { $0.stall() }
    }

    /// Starts watching an answer; returns the id that ``forget(_:)`` takes. Its silence counts from
    /// its last update.
    func watch(_ activity: AnswerActivity) -> Int { deadlines.watch(AnswerEntry(activity: activity)) }

    /// Stops watching an answer (it ended).
    func forget(_ id: Int) { deadlines.forget(id) }

    /// How many answers are watched.
    var count: Int { deadlines.count }
}

/// One answer's inactivity: its silence reaches the timeout at its last update plus the timeout.
struct AnswerEntry: WatchedDeadline {
    let activity: AnswerActivity

    /// Its timing is the watch's timeout.
    func deadline(_ timeout: Duration) -> Duration { activity.lastHeard + timeout }

    mutating func comeDue(at now: Duration, _ timeout: Duration) -> (action: AnswerActivity?, staysWatched: Bool) {
        now - activity.lastHeard >= timeout ? (activity, false) : (nil, true)
    }
}
