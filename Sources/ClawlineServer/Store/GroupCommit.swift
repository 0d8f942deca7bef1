import Foundation
import GRDB
import NIOConcurrencyHelpers

/// Group commit for one SQLite connection: writes that queue up while a commit is on its way
/// share the next transaction, so a busy server pays for one commit (its log pages, and its
/// fsync under `FULL`) per batch instead of one per write.
///
/// There is no writer task and no lock to wait for: each caller queues its write, and the first
/// write queued while no drain is on its way schedules one job on the connection's serial queue.
/// That job runs what is queued, a batch at a time, synchronously and with cached statements,
/// until it finds the queue empty; a write queued meanwhile joins the next batch without a job of
/// its own. Every caller returns only after the transaction holding its write has committed (or
/// failed): one hop to the connection's queue per batch, not per statement.
///
/// A batch of one write that is a single statement runs without `BEGIN` and `COMMIT` (SQLite
/// commits a statement on its own), so a quiet server pays nothing for the grouping.
///
/// A busy store waits a little to fill its batches: when a write comes less than `window` after
/// the one before it and no commit is on its way, its batch starts `window` later (the drain job
/// waits that long on the connection's queue), so the writes that come meanwhile share its
/// commit. A moderately busy server otherwise commits almost every write alone (each commit takes
/// a fraction of the time between writes), and pays a commit and a wake-up of the connection's
/// queue for each. A write that comes after a quiet `window` commits at once: a lone device's
/// message waits for nothing.
///
/// A commit runs to its end whatever happens to the callers' tasks: the others' writes are in it,
/// and a caller waits for its outcome even when cancelled.
///
/// When a batch fails, it is rolled back and each of its writes is run again in a transaction of
/// its own, so one bad write fails alone.
final class GroupCommit: Sendable {
    private struct State {
        var queue: [PendingWrite] = []
        /// Whether a drain job is scheduled or running: until it finds the queue empty, new writes
        /// need no job of their own.
        var draining = false
        var batches = 0
        /// When the last write was queued; `nil` before the first, or when there is no window.
        var lastQueued: ContinuousClock.Instant?
    }

    /// How long the first write of a busy store's batch waits for others (`.zero`: never).
    let window: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let pause: @Sendable (Duration) -> Void

    /// A group commit whose batches wait `window` when writes come closer together than that.
    /// `now` and `pause` (which blocks the calling thread for a duration) are the clock, for tests.
    init(
        window: Duration = .zero, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        pause: @escaping @Sendable (Duration) -> Void = GroupCommit.sleep
    ) {
        self.window = window
        self.now = now
        self.pause = pause
    }

    /// Blocks the calling thread for `duration` (`nanosleep`, a relative wait). The batch waits on
    /// the connection's queue, so a read queued behind it waits too, for at most the window; no
    /// timer is set. (Timers are not used: in the test that steps a node's wall clock forward with
    /// libfaketime, batches scheduled with `asyncAfter` or `Task.sleep` never committed.)
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    private let state = NIOLockedValueBox(State())
    /// Told the size of each batch committed (the server's metrics).
    private let batchObserver = ObserverSlot<Int>()

    /// The most writes one transaction holds, so no write waits behind an unbounded batch.
    static let maxBatchSize = 256

    /// How many batches were committed (or tried) so far.
    var batchCount: Int { state.withLockedValue { $0.batches } }

    /// Tells `observer` the number of writes of each batch from now on.
    func observeBatches(_ observer: @escaping @Sendable (Int) -> Void) {
        batchObserver.set(observer)
    }

    /// How many writes wait for the next batch.
    var queuedCount: Int { state.withLockedValue { $0.queue.count } }

    /// A queued write: runs its statements (inside the batch's transaction), keeping its value,
    /// and once the batch has committed (or failed) hands the caller the value (or the error).
    private struct PendingWrite: Sendable {
        var run: @Sendable (Database) throws -> Void
        var finish: @Sendable ((any Error)?) -> Void
        /// Whether the write is one statement, atomic without a transaction around it.
        var isOneStatement: Bool
    }

    /// Queues `body` and returns its result once the transaction holding it has committed.
    /// `database` is the one connection every write goes through; `isOneStatement` tells that
    /// `body` runs a single statement.
    func write<T: Sendable>(
        on database: DatabaseQueue, isOneStatement: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            // Set and read on the connection's queue only, by `run` and then `finish`.
            let value = NIOLockedValueBox<T?>(nil)
            let pending = PendingWrite(
                run: { database in
                    let result = try body(database)
                    value.withLockedValue { $0 = result }
                },
                finish: { error in
                    if let error { return continuation.resume(throwing: error) }
                    guard let result = value.withLockedValue({ $0 }) else {
                        return continuation.resume(throwing: StoreFailure("a queued write was never run"))
                    }
                    continuation.resume(returning: result)
                },
                isOneStatement: isOneStatement)
            let queuedAt = window > .zero ? now() : nil
            // `nil` when a drain is on its way (the write joins it); else how long its batch waits.
            let drainAfter = state.withLockedValue { state -> Duration? in
                state.queue.append(pending)
                defer {
                    state.draining = true
                    state.lastQueued = queuedAt
                }
                guard !state.draining else { return nil }
                guard let queuedAt, let last = state.lastQueued, queuedAt - last < window else { return .zero }
                return window
            }
            guard let drainAfter else { return }
            database.asyncWriteWithoutTransaction { database in
                if drainAfter > .zero { self.pause(drainAfter) }
                self.drain(database)
            }
        }
    }

    /// Commits what is queued, a batch at a time, until the queue is empty.
    private func drain(_ database: Database) {
        while true {
            let batch = state.withLockedValue { state -> [PendingWrite] in
                let count = min(state.queue.count, Self.maxBatchSize)
                guard count > 0 else {
                    state.draining = false
                    return []
                }
                defer { state.queue.removeFirst(count) }
                state.batches += 1
                return Array(state.queue.prefix(count))
            }
            guard !batch.isEmpty else { return }
            batchObserver.report(batch.count)
            Self.commit(batch, in: database)
        }
    }

    /// Runs `batch` in one transaction; if it fails, runs each write in a transaction of its own.
    private static func commit(_ batch: [PendingWrite], in database: Database) {
        if batch.count == 1, batch[0].isOneStatement {
            do {
                try batch[0].run(database)
                batch[0].finish(nil)
            } catch {
                batch[0].finish(error)
            }
            return
        }
        do {
            try transaction(in: database) {
                for write in batch { try write.run(database) }
            }
            for write in batch { write.finish(nil) }
        } catch {
            guard batch.count > 1 else { return batch[0].finish(error) }
            for write in batch { commit([write], in: database) }
        }
    }

    /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back if it throws.
    static func transaction(in database: Database, _ body: () throws -> Void) throws {
        try database.inTransaction(.immediate) {
            try body()
            return .commit
        }
    }
}
