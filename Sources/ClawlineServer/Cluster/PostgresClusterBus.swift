import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A ``ClusterBus`` on the nodes' shared PostgreSQL: `NOTIFY` on one channel, read with `LISTEN`
/// on a connection of its own. A message too large for a notification payload (PostgreSQL's
/// limit is 8000 bytes) is written to the `cluster_messages` table and its row id notified. A
/// node sends what gathered while its previous batch was on the way as one notification.
///
/// While the listening connection is down (it reconnects every second), the node misses live
/// frames. Once it listens again the bus yields ``ClusterMessage/resumed``, and the node catches
/// its sockets up from the store: every stored event reaches them, none twice.
public final class PostgresClusterBus: ClusterBus {
    static let channel = "clawline_cluster"
    /// The largest payload notified inline; larger ones go through the table.
    static let inlineLimit = 7000

    public let messages: AsyncStream<ClusterMessage>
    /// This node, so it can skip its own notifications.
    public let nodeID = UUID().uuidString.lowercased()
    private let client: PostgresClient
    private let listener: Task<Void, Never>
    private let listening = NIOLockedValueBox(false)

    /// Whether the listening connection is up.
    public var isListening: Bool { listening.withLockedValue { $0 } }
    private let logger: Logger

    private struct Envelope: Codable {
        var node: String
        var messages: [ClusterMessage]?
        var row: Int?
        /// When the publishing node sent it, in milliseconds since 1970 (its wall clock).
        var sentAt: Double?
    }

    /// Told how late each notification arrived (the server's metrics).
    private let lagObserver = ObserverSlot<Duration>()

    init(client: PostgresClient, connection: PostgresConnection.Configuration, logger: Logger) {
        self.client = client
        self.logger = logger
        let (messages, sink) = AsyncStream<ClusterMessage>.makeStream()
        self.messages = messages
        let nodeID = nodeID
        let listening = listening
        let lagObserver = lagObserver
        listener = Task {
            var listenedBefore = false
            while !Task.isCancelled {
                do {
                    let socket = try await PostgresConnection.connect(
                        on: PostgresClient.defaultEventLoopGroup.next(), configuration: connection, id: 1, logger: logger
                    ).get()
                    defer { Task { try? await socket.close() } }
                    try await socket.listen(on: Self.channel) { notifications in
                        // LISTEN is in place here: whatever was missed since the last connection
                        // was lost is in the store, and what commits from now on is notified.
                        if listenedBefore { sink.yield(.resumed) }
                        listenedBefore = true
                        listening.withLockedValue { $0 = true }
                        for try await notification in notifications {
                            guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(notification.payload.utf8)),
                                envelope.node != nodeID
                            else { continue }
                            if let sentAt = envelope.sentAt {
                                lagObserver.report(.milliseconds(Date().timeIntervalSince1970 * 1000 - sentAt))
                            }
                            if let messages = envelope.messages {
                                for message in messages { sink.yield(message) }
                            } else if let row = envelope.row {
                                for message in await Self.load(row: row, from: client, logger: logger) { sink.yield(message) }
                            }
                        }
                    }
                } catch {
                    guard !Task.isCancelled else { break }
                    logger.error("the cluster listener lost its connection; reconnecting", metadata: ["error": "\(error)"])
                }
                listening.withLockedValue { $0 = false }
                try? await Task.sleep(for: .seconds(1))
            }
            sink.finish()
        }
    }

    deinit { listener.cancel() }

    /// Stops listening.
    public func close() {
        listener.cancel()
    }

    public func publish(_ messages: [ClusterMessage]) async {
        do {
            let encoder = JSONEncoder()
            let sentAt = Date().timeIntervalSince1970 * 1000
            let inline = String(decoding: try encoder.encode(Envelope(node: nodeID, messages: messages, sentAt: sentAt)), as: UTF8.self)
            if inline.utf8.count <= Self.inlineLimit {
                try await client.query("SELECT pg_notify(\(Self.channel), \(inline))", logger: logger)
                return
            }
            let payload = String(decoding: try encoder.encode(messages), as: UTF8.self)
            // The table's times are the database's: a node whose clock jumped must neither keep
            // rows for ever nor delete rows another node just wrote and its peers have yet to read.
            var row: Int?
            for try await id in try await client.query(
                "INSERT INTO cluster_messages (payload, created_at) VALUES (\(payload), extract(epoch FROM clock_timestamp())) RETURNING id",
                logger: logger
            ).decode(Int.self) {
                row = id
            }
            let pointer = String(decoding: try encoder.encode(Envelope(node: nodeID, row: row, sentAt: sentAt)), as: UTF8.self)
            try await client.query("SELECT pg_notify(\(Self.channel), \(pointer))", logger: logger)
            try await client.query("DELETE FROM cluster_messages WHERE created_at < extract(epoch FROM clock_timestamp()) - 60", logger: logger)
        } catch {
            logger.error("a cluster message could not be published", metadata: ["error": "\(error)"])
        }
    }

    private static func load(row: Int, from client: PostgresClient, logger: Logger) async -> [ClusterMessage] {
        do {
            for try await payload in try await client.query("SELECT payload FROM cluster_messages WHERE id = \(row)", logger: logger).decode(
                String.self)
            {
                return try JSONDecoder().decode([ClusterMessage].self, from: Data(payload.utf8))
            }
        } catch {
            logger.error("cluster messages could not be read", metadata: ["error": "\(error)", "row": "\(row)"])
        }
        return []
    }
}

extension PostgresClusterBus: ReportsDeliveryLag {
    func reportDeliveryLag(to metrics: ServerMetrics) {
        lagObserver.set { metrics.clusterMessageArrived(after: $0) }
    }
}
