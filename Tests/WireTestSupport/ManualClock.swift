import Foundation

/// A clock that only moves when a test moves it, for timers and rate limits under test.
/// Sleepers wake when ``advance(by:)`` passes their deadline.
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: the time since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [(id: UUID, deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = []
    /// Signalled whenever a sleeper starts or stops waiting.
    private let sleepersChanged = ChangeSignal()

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves the clock on and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = lock.withLock {
            current = current.advanced(by: duration)
            let now = current
            let due = sleepers.filter { $0.deadline <= now }
            sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        if !due.isEmpty { sleepersChanged.signal() }
    }

    /// How many sleepers wait for the clock to move.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// Waits until at least `count` sleepers wait, so that a test moves the clock only once the
    /// timers it means to fire are armed. Woken by each sleeper that starts or stops; gives up
    /// after a minute in real time (a guard against a hung test) and returns whether they came.
    @discardableResult
    public func waitForSleepers(atLeast count: Int) async -> Bool {
        await sleepersChanged.wait { sleeperCount >= count }
    }

    /// Waits until at most `count` sleepers wait: the timers a test expects to be cancelled are
    /// gone. Returns whether they went within the guard's minute.
    @discardableResult
    public func waitForSleepers(atMost count: Int) async -> Bool {
        await sleepersChanged.wait { sleeperCount <= count }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = lock.withLock {
                    if deadline <= current || Task.isCancelled { return true }
                    sleepers.append((id, deadline, continuation))
                    return false
                }
                if resumeNow { continuation.resume() } else { sleepersChanged.signal() }
            }
        } onCancel: {
            let cancelled = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
            if cancelled != nil { sleepersChanged.signal() }
        }
        try Task.checkCancellation()
    }
}
