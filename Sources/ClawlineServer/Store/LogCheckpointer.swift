import GRDB
import Logging

/// Copies a SQLite database's write-ahead log back into the database file, from a connection of
/// its own, every `interval`.
///
/// SQLite's automatic checkpoint runs on the connection that commits, so the write that crosses
/// the log's threshold waits for the copy and its fsync (tens of milliseconds on a virtual disk),
/// and every write queued behind it waits too. Here the writers only append to the log: a passive
/// checkpoint never blocks them, and the log is rewound by the first commit after a checkpoint
/// that copied all of it.
final class LogCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let task: Task<Void, Never>

    private init(connection: DatabaseQueue, task: Task<Void, Never>) {
        self.connection = connection
        self.task = task
    }

    /// Opens a second connection to the database at `path` and starts checkpointing it.
    static func start(path: String, interval: Duration = .milliseconds(500), logger: Logger) async throws -> LogCheckpointer {
        var configuration = Configuration()
        configuration.label = "clawline.store.checkpoints"
        configuration.busyMode = .timeout(5)
        let connection = try DatabaseQueue(path: path, configuration: configuration)
        do {
            // Once rewound, the log file is cut back to this size (64 MiB) rather than kept at its peak.
            try await connection.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_size_limit = 67108864") }
        } catch {
            try? connection.close()
            throw error
        }
        let task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                do {
                    try await connection.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("the write-ahead log could not be checkpointed", metadata: ["error": "\(error)"])
                }
            }
        }
        return LogCheckpointer(connection: connection, task: task)
    }

    /// Stops checkpointing and closes the connection (closing again does nothing).
    func stop() async {
        task.cancel()
        await task.value
        try? connection.close()
    }
}
