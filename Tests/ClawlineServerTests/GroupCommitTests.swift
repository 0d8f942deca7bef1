import Dispatch
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import Testing
import WireTestSupport

@testable import ClawlineServer

/// The SQLite store's group commit and its background checkpoints.
@Suite struct GroupCommitTests {
    /// A fresh in-memory database with one table whose `name` is unique.
    static func database() throws -> DatabaseQueue {
        let database = try DatabaseQueue()
        try database.writeWithoutTransaction { try $0.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)") }
        return database
    }

    /// Holds the connection's queue (a job blocks on it) until ``release()``, so every write
    /// started meanwhile is queued before any batch starts.
    final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let entered = AsyncSignal()

        /// Blocks `database`'s queue, returning once the blocking job runs.
        init(on database: DatabaseQueue) async {
            database.asyncWriteWithoutTransaction { [opened, entered] _ in
                entered.fire()
                opened.wait()
            }
            await entered.wait()
        }

        func release() { opened.signal() }
    }

    /// Starts a task per name that inserts it through `commits` and returns its row id; each is
    /// queued before the next starts, so the queue's order is the order of `names`.
    static func queueInserts(_ names: [String], commits: GroupCommit, on database: DatabaseQueue) async throws -> [Task<Int, any Error>] {
        var tasks: [Task<Int, any Error>] = []
        for name in names {
            let queued = commits.queuedCount
            tasks.append(
                Task {
                    try await commits.write(on: database, isOneStatement: true) { database in
                        guard let id = try Int.fetchOne(database, sql: "INSERT INTO items (name) VALUES (?) RETURNING id", arguments: [name])
                        else { throw StoreFailure("no id returned") }
                        return id
                    }
                })
            #expect(try await eventually { commits.queuedCount == queued + 1 })
        }
        return tasks
    }

    static func names(in database: DatabaseQueue) throws -> [String] {
        try database.read { try String.fetchAll($0, sql: "SELECT name FROM items ORDER BY id") }
    }

    @Test func writesQueuedWhileTheConnectionIsBusyShareTransactionsOfAtMostTheBatchSizeAndEachGetsItsOwnResult() async throws {
        let database = try Self.database()
        let commits = GroupCommit()
        // One full batch and a second with the rest.
        let count = GroupCommit.maxBatchSize + 44
        let names = (1...count).map { "item \($0)" }
        let gate = await Gate(on: database)
        let tasks = try await Self.queueInserts(names, commits: commits, on: database)
        gate.release()

        var ids: [Int] = []
        for task in tasks { ids.append(try await task.value) }
        #expect(ids == Array(1...count))
        #expect(commits.batchCount == 2)
        #expect(try Self.names(in: database) == names)
    }

    @Test func aWriteQueuedOnAnIdleConnectionRunsAloneAndTheNextFindsTheDrainOver() async throws {
        let database = try Self.database()
        let commits = GroupCommit()
        for (index, name) in ["first", "second"].enumerated() {
            let id = try await commits.write(on: database, isOneStatement: true) { database in
                try Int.fetchOne(database, sql: "INSERT INTO items (name) VALUES (?) RETURNING id", arguments: [name])
            }
            #expect(id == index + 1)
            #expect(commits.batchCount == index + 1, "each write, queued alone, is a batch of its own")
        }
        #expect(commits.queuedCount == 0)
    }

    /// A clock for the commit window: `now` moves only when told, and a batch's pause holds the
    /// connection's queue until the test ends it.
    final class WindowClock: Sendable {
        private let state = NIOLockedValueBox((offset: Duration.zero, pauses: [Duration]()))
        private let start = ContinuousClock.now
        private let paused = AsyncSignal()
        private let resumed = DispatchSemaphore(value: 0)

        var now: @Sendable () -> ContinuousClock.Instant { { [state, start] in start + state.withLockedValue { $0.offset } } }
        var pause: @Sendable (Duration) -> Void {
            { [state, paused, resumed] duration in
                state.withLockedValue { $0.pauses.append(duration) }
                paused.fire()
                resumed.wait()
            }
        }

        func advance(by duration: Duration) { state.withLockedValue { $0.offset += duration } }
        /// The pauses asked for so far.
        var pauses: [Duration] { state.withLockedValue { $0.pauses } }
        /// Waits until a batch pauses.
        func waitForPause() async { await paused.wait() }
        /// Ends the pause in progress.
        func endPause() { resumed.signal() }
    }

    static func insert(_ name: String, through commits: GroupCommit, on database: DatabaseQueue) -> Task<Int, any Error> {
        Task {
            try await commits.write(on: database, isOneStatement: true) { database in
                guard let id = try Int.fetchOne(database, sql: "INSERT INTO items (name) VALUES (?) RETURNING id", arguments: [name])
                else { throw StoreFailure("no id returned") }
                return id
            }
        }
    }

    @Test func writesThatComeFurtherApartThanTheWindowCommitAtOnce() async throws {
        let database = try Self.database()
        let clock = WindowClock()
        let commits = GroupCommit(window: .milliseconds(5), now: clock.now, pause: clock.pause)
        for (index, name) in ["first", "second", "third"].enumerated() {
            #expect(try await Self.insert(name, through: commits, on: database).value == index + 1)
            clock.advance(by: .milliseconds(5))
        }
        #expect(clock.pauses.isEmpty, "no batch waited")
        #expect(commits.batchCount == 3)
    }

    @Test func aWriteWithinTheWindowOfTheLastWaitsForTheWindowAndTheWritesMeanwhileShareItsCommit() async throws {
        let database = try Self.database()
        let clock = WindowClock()
        let commits = GroupCommit(window: .milliseconds(5), now: clock.now, pause: clock.pause)
        #expect(try await Self.insert("first", through: commits, on: database).value == 1)
        clock.advance(by: .milliseconds(1))
        let tasks = [Self.insert("second", through: commits, on: database)]
        await clock.waitForPause()
        #expect(clock.pauses == [.milliseconds(5)], "the second write came 1 ms after the first: its batch waits")
        // Writes while that batch waits join it, whenever they come: no second wait.
        clock.advance(by: .milliseconds(20))
        let later = ["third", "fourth"].map { Self.insert($0, through: commits, on: database) }
        #expect(try await eventually { commits.queuedCount == 3 })
        #expect(commits.batchCount == 1, "nothing committed while the batch waits")

        clock.endPause()
        var ids: [Int] = []
        for task in tasks + later { ids.append(try await task.value) }
        #expect(Set(ids) == [2, 3, 4])
        #expect(clock.pauses.count == 1)
        #expect(commits.batchCount == 2, "the three writes shared one batch")
        #expect(try Set(Self.names(in: database)) == ["first", "second", "third", "fourth"])
    }

    @Test func aFailingWriteInABatchFailsAloneAndTheOthersCommit() async throws {
        let database = try Self.database()
        try await database.writeWithoutTransaction { try $0.execute(sql: "INSERT INTO items (name) VALUES ('taken')") }
        let commits = GroupCommit()
        let gate = await Gate(on: database)
        let tasks = try await Self.queueInserts(["a", "taken", "b"], commits: commits, on: database)
        gate.release()

        #expect(try await tasks[0].value == 2)
        await #expect(throws: DatabaseError.self) { try await tasks[1].value }
        #expect(try await tasks[2].value > 2)
        #expect(try Self.names(in: database) == ["taken", "a", "b"])
    }

    @Test func aCancelledCallerStillHasItsWriteCommittedWithTheOthersAndNoTransactionIsLeftOpen() async throws {
        let database = try Self.database()
        let commits = GroupCommit()
        let gate = await Gate(on: database)
        let tasks = try await Self.queueInserts(["first", "second", "third"], commits: commits, on: database)
        tasks[0].cancel()
        gate.release()

        #expect(try await tasks[0].value == 1, "a cancelled caller waits for the batch that holds its write")
        #expect(try await tasks[1].value == 2)
        #expect(try await tasks[2].value == 3)
        #expect(try Self.names(in: database) == ["first", "second", "third"])
        // No transaction was left open: a transaction of its own still begins and commits.
        try await database.writeWithoutTransaction { database in
            try GroupCommit.transaction(in: database) { try database.execute(sql: "INSERT INTO items (name) VALUES ('later')") }
        }
        #expect(try Self.names(in: database).last == "later")
    }

    @Test func theCheckpointerCopiesTheLogIntoTheDatabaseFileWhileTheWriterNeverDoes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-checkpoint-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let writer = try DatabaseQueue(path: path)
        try await writer.writeWithoutTransaction { database in
            try database.execute(sql: "PRAGMA journal_mode=WAL")
            try database.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try database.execute(sql: "CREATE TABLE blobs (data BLOB NOT NULL)")
            for _ in 1...20 { try database.execute(sql: "INSERT INTO blobs (data) VALUES (zeroblob(16384))") }
        }
        func databaseFileSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        // Everything written so far is in the log only.
        #expect(databaseFileSize() < 16384)

        let checkpointer = try await LogCheckpointer.start(path: path, interval: .milliseconds(10), logger: Logger(label: "test"))
        #expect(try await eventually { databaseFileSize() > 20 * 16384 })
        await checkpointer.stop()
        #expect(databaseFileSize() > 20 * 16384)
        try writer.close()
    }
}
