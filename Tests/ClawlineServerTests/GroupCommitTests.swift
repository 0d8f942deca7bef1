import Foundation
import Logging
import NIOConcurrencyHelpers
import SQLiteNIO
import Testing
import WireTestSupport

@testable import ClawlineServer

/// The SQLite store's group commit and its background checkpoints.
@Suite struct GroupCommitTests {
    /// Runs `body` with a connection to a fresh in-memory database with one table whose `name`
    /// is unique, and closes it however `body` ends.
    static func withDatabase(_ body: (SQLiteConnection) async throws -> Void) async throws {
        let connection = try await SQLiteConnection.open(storage: .memory)
        do {
            _ = try await connection.query("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Starts a task per name that inserts it through `commits` and returns its row id, while
    /// the test holds `lock`, so every insert is queued before any batch starts.
    static func queueInserts(
        _ names: [String], commits: GroupCommit, lock: AsyncLock, on connection: SQLiteConnection
    ) async throws -> [Task<Int, any Error>] {
        var tasks: [Task<Int, any Error>] = []
        for name in names {
            let queued = commits.queuedCount
            tasks.append(
                Task {
                    try await commits.write(on: connection, lock: lock, isOneStatement: true) { connection in
                        let rows = try await connection.query("INSERT INTO items (name) VALUES (?) RETURNING id", [.text(name)])
                        guard let id = rows.first?.column("id")?.integer else { throw StoreFailure("no id returned") }
                        return id
                    }
                })
            // One at a time, so the queue's order and the lock's are the order of `names`.
            #expect(try await eventually { commits.queuedCount == queued + 1 })
            #expect(try await eventually { await lock.waiting == queued + 1 })
        }
        return tasks
    }

    static func names(on connection: SQLiteConnection) async throws -> [String] {
        try await connection.query("SELECT name FROM items ORDER BY id").compactMap { $0.column("name")?.string }
    }

    @Test func writesQueuedWhileTheConnectionIsBusyShareTransactionsOfAtMostTheBatchSizeAndEachGetsItsOwnResult() async throws {
        try await Self.withDatabase { connection in
            let commits = GroupCommit()
            let lock = AsyncLock()
            // One full batch and a second with the rest.
            let count = GroupCommit.maxBatchSize + 44
            let names = (1...count).map { "item \($0)" }
            let release = AsyncSignal()
            let holder = Task { try await lock.withLock { await release.wait() } }
            let tasks = try await Self.queueInserts(names, commits: commits, lock: lock, on: connection)
            release.fire()
            try await holder.value

            var ids: [Int] = []
            for task in tasks { ids.append(try await task.value) }
            #expect(ids == Array(1...count))
            #expect(commits.batchCount == 2)
            #expect(try await Self.names(on: connection) == names)
        }
    }

    @Test func aFailingWriteInABatchFailsAloneAndTheOthersCommit() async throws {
        try await Self.withDatabase { connection in
            _ = try await connection.query("INSERT INTO items (name) VALUES ('taken')")
            let commits = GroupCommit()
            let lock = AsyncLock()
            let release = AsyncSignal()
            let holder = Task { try await lock.withLock { await release.wait() } }
            let tasks = try await Self.queueInserts(["a", "taken", "b"], commits: commits, lock: lock, on: connection)
            release.fire()
            try await holder.value

            #expect(try await tasks[0].value == 2)
            await #expect(throws: SQLiteError.self) { try await tasks[1].value }
            #expect(try await tasks[2].value > 2)
            #expect(try await Self.names(on: connection) == ["taken", "a", "b"])
        }
    }

    @Test func aCancelledCallerStillCommitsTheBatchItRunsAndLeavesNoTransactionOpen() async throws {
        try await Self.withDatabase { connection in
            let commits = GroupCommit()
            let lock = AsyncLock()
            let release = AsyncSignal()
            let holder = Task { try await lock.withLock { await release.wait() } }
            // The first queued caller takes the lock first, so it commits the batch for all three.
            let tasks = try await Self.queueInserts(["leader", "second", "third"], commits: commits, lock: lock, on: connection)
            tasks[0].cancel()
            release.fire()
            try await holder.value

            #expect(try await tasks[1].value == 2)
            #expect(try await tasks[2].value == 3)
            #expect(try await Self.names(on: connection) == ["leader", "second", "third"])
            // No transaction was left open: a transaction of its own still begins and commits.
            try await GroupCommit.transaction(on: connection) { _ = try await connection.query("INSERT INTO items (name) VALUES ('later')") }
            #expect(try await Self.names(on: connection).last == "later")
        }
    }

    @Test func theCheckpointerCopiesTheLogIntoTheDatabaseFileWhileTheWriterNeverDoes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-checkpoint-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let writer = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await writer.query("PRAGMA journal_mode=WAL")
        _ = try await writer.query("PRAGMA wal_autocheckpoint = 0")
        _ = try await writer.query("CREATE TABLE blobs (data BLOB NOT NULL)")
        for _ in 1...20 { _ = try await writer.query("INSERT INTO blobs (data) VALUES (zeroblob(16384))") }
        func databaseFileSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        // Everything written so far is in the log only.
        #expect(databaseFileSize() < 16384)

        let checkpointer = try await LogCheckpointer.start(path: path, interval: .milliseconds(10), logger: Logger(label: "test"))
        #expect(try await eventually { databaseFileSize() > 20 * 16384 })
        await checkpointer.stop()
        #expect(databaseFileSize() > 20 * 16384)
        try await writer.close()
    }
}
