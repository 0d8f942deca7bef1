import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// A ``ProviderStore`` on PostgreSQL (PostgresNIO), for one node or several nodes sharing one
/// database. Chosen with `clawline-server serve --database postgres://…`.
///
/// - The schema is created and migrated on open, under an advisory lock, so nodes starting at once
///   migrate it once.
/// - Each account's events are appended under a transaction-scoped advisory lock on the account:
///   their sequence numbers commit in order, so a replay never skips an event another node is
///   still committing.
/// - A client message id is claimed and its echo stored in one transaction: a retry that lands on
///   another node is still a retry.
public final class PostgresProviderStore: AssetBytesStore {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    let logger: Logger
    private let listenerConfiguration: PostgresConnection.Configuration

    private init(client: PostgresClient, runner: Task<Void, Never>, logger: Logger, listenerConfiguration: PostgresConnection.Configuration) {
        self.client = client
        self.runner = runner
        self.logger = logger
        self.listenerConfiguration = listenerConfiguration
    }

    /// A bus to the other nodes on this database (`LISTEN`/`NOTIFY`).
    public func clusterBus() -> PostgresClusterBus {
        PostgresClusterBus(client: client, connection: listenerConfiguration, logger: logger)
    }

    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database`, with
    /// `?sslmode=disable|prefer|require`, `disable` by default) and migrates its schema. With a
    /// `schema` (or `?schema=NAME` in the URL), the tables live in that PostgreSQL schema (created
    /// if needed), so several deployments or test runs can share a database.
    public static func open(
        url: String, schema: String? = nil, logger: Logger = Logger(label: "clawline.store")
    ) async throws
        -> PostgresProviderStore
    {
        let address = try Address(url)
        let schema = schema ?? address.schema
        // One connection first: a wrong address or password fails here at once, where the pool
        // would keep retrying.
        do {
            let probe = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: try address.connectionConfiguration(), id: 0, logger: logger
            ).get()
            try await probe.close()
        } catch {
            throw ServerSetupError("cannot connect to the database at \(redacted(url)): \(String(reflecting: error))")
        }
        var configuration = address.clientConfiguration
        if let schema {
            guard schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !schema.isEmpty else {
                throw ServerSetupError("the schema name '\(schema)' may hold only letters, digits and _")
            }
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        // The pool's own chatter (such as a lease requested a moment before its run loop starts)
        // stays quiet; failures reach the caller as errors.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        let runner = Task { await client.run() }
        var listenerConfiguration = try address.connectionConfiguration()
        if let schema { listenerConfiguration.options.additionalStartupParameters = [("search_path", schema)] }
        let store = PostgresProviderStore(client: client, runner: runner, logger: logger, listenerConfiguration: listenerConfiguration)
        do {
            try await store.migrate(creatingSchema: schema)
        } catch {
            runner.cancel()
            throw ServerSetupError("cannot use the database at \(redacted(url)): \(String(reflecting: error))")
        }
        return store
    }

    /// Closes every connection.
    public func close() async throws {
        runner.cancel()
        await runner.value
    }
}
