import NIOConcurrencyHelpers
import SQLiteNIO

/// Group commit for one SQLite connection: writes that queue up while a commit is on its way
/// share the next transaction, so a busy server pays for one commit (its log pages, and its
/// fsync under `FULL`) per batch instead of one per write.
///
/// There is no writer task: each caller queues its write and then takes the connection's lock;
/// whoever holds the lock commits everything queued so far, so a caller finds its write either
/// done by an earlier holder or in the batch it commits itself. Every caller returns only after
/// the transaction holding its write has committed (or failed).
///
/// A batch of one write that is a single statement runs without `BEGIN` and `COMMIT` (SQLite
/// commits a statement on its own), so a quiet server pays nothing for the grouping.
///
/// A commit runs to its end even when the caller that runs it is cancelled: the others' writes
/// are in it.
///
/// When a batch fails, it is rolled back and each of its writes is run again in a transaction of
/// its own, so one bad write fails alone.
final class GroupCommit: Sendable {
    private let queue = NIOLockedValueBox<[PendingWrite]>([])
    private let batches = NIOLockedValueBox(0)
    /// Told the size of each batch committed (the server's metrics).
    private let batchObserver = ObserverSlot<Int>()

    /// The most writes one transaction holds, so no write waits behind an unbounded batch.
    static let maxBatchSize = 256

    /// How many batches were committed (or tried) so far.
    var batchCount: Int { batches.withLockedValue { $0 } }

    /// Tells `observer` the number of writes of each batch from now on.
    func observeBatches(_ observer: @escaping @Sendable (Int) -> Void) {
        batchObserver.set(observer)
    }

    /// How many writes wait for the next batch.
    var queuedCount: Int { queue.withLockedValue { $0.count } }

    /// A queued write: runs its statements (inside the batch's transaction) and keeps its outcome.
    private struct PendingWrite: Sendable {
        var run: @Sendable (SQLiteConnection) async throws -> Void
        var fail: @Sendable (any Error) -> Void
        /// Whether the write is one statement, atomic without a transaction around it.
        var isOneStatement: Bool
    }

    /// Queues `body` and returns its result once the transaction holding it has committed.
    /// `lock` serialises every use of `connection`; `isOneStatement` tells that `body` runs a
    /// single statement.
    func write<T: Sendable>(
        on connection: SQLiteConnection, lock: AsyncLock, isOneStatement: Bool = false,
        _ body: @escaping @Sendable (SQLiteConnection) async throws -> T
    ) async throws -> T {
        let outcome = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let pending = PendingWrite(
            run: { connection in
                let value = try await body(connection)
                outcome.withLockedValue { $0 = .success(value) }
            },
            fail: { error in outcome.withLockedValue { $0 = .failure(error) } }, isOneStatement: isOneStatement)
        queue.withLockedValue { $0.append(pending) }
        try await lock.withLock {
            // Batches of the oldest writes until this one has run (an earlier holder may have).
            while outcome.withLockedValue({ $0 == nil }) {
                let batch = queue.withLockedValue { queue in
                    let count = min(queue.count, Self.maxBatchSize)
                    defer { queue.removeFirst(count) }
                    return Array(queue.prefix(count))
                }
                guard !batch.isEmpty else { return }
                batches.withLockedValue { $0 += 1 }
                batchObserver.report(batch.count)
                // The batch holds other callers' writes: it must not stop half way because this
                // caller's task was cancelled (sqlite-nio's queries throw when theirs is).
                await Task { await Self.commit(batch, on: connection) }.value
            }
        }
        guard let result = outcome.withLockedValue({ $0 }) else { throw StoreFailure("a queued write was never run") }
        return try result.get()
    }

    /// Runs `batch` in one transaction; if it fails, runs each write in a transaction of its own.
    private static func commit(_ batch: [PendingWrite], on connection: SQLiteConnection) async {
        if batch.count == 1, batch[0].isOneStatement {
            do { try await batch[0].run(connection) } catch { batch[0].fail(error) }
            return
        }
        do {
            try await transaction(on: connection) {
                for write in batch { try await write.run(connection) }
            }
        } catch {
            guard batch.count > 1 else { return batch[0].fail(error) }
            for write in batch { await commit([write], on: connection) }
        }
    }

    /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back if it throws.
    static func transaction<T: Sendable>(on connection: SQLiteConnection, _ body: () async throws -> T) async throws -> T {
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            let value = try await body()
            _ = try await connection.query("COMMIT")
            return value
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }
}
