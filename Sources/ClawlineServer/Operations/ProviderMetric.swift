/// Every metric the provider reports: its Prometheus name, what it means, and its histogram
/// buckets. One list, so the exporter's `# HELP` lines, the README's table and the code agree.
public enum ProviderMetric: String, CaseIterable, Sendable {
    case sockets = "clawline_sockets"
    case framesReceived = "clawline_frames_received_total"
    case framesSent = "clawline_frames_sent_total"
    case errorAnswers = "clawline_error_answers_total"
    case ackLatency = "clawline_ack_latency_seconds"
    case replayEvents = "clawline_replay_events"
    case storeCommit = "clawline_store_commit_seconds"
    case storeCommitBatchSize = "clawline_store_commit_batch_size"
    case clusterDeliveryLag = "clawline_cluster_delivery_lag_seconds"
    case answerQueueDepth = "clawline_answer_queue_depth"
    case pairingRequestsPending = "clawline_pairing_requests_pending"

    /// What a Prometheus series of this metric is.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The Prometheus name.
    public var name: String { rawValue }

    /// What kind of series it is.
    public var kind: Kind {
        switch self {
        case .sockets, .answerQueueDepth, .pairingRequestsPending: .gauge
        case .framesReceived, .framesSent, .errorAnswers: .counter
        case .ackLatency, .replayEvents, .storeCommit, .storeCommitBatchSize, .clusterDeliveryLag: .histogram
        }
    }

    /// The label that splits the series, if any.
    public var label: String? {
        switch self {
        case .sockets: "phase"
        case .framesReceived, .framesSent: "type"
        case .errorAnswers: "code"
        default: nil
        }
    }

    /// What the metric means (the `# HELP` line).
    public var help: String {
        switch self {
        case .sockets: "Open WebSockets on this node by session phase (unauthenticated: not yet authenticated; authenticated)."
        case .framesReceived: "Frames received from clients, by message type; type=\"invalid\" for a frame that did not decode."
        case .framesSent: "Frames queued to clients, by message type (a broadcast counts once per socket)."
        case .errorAnswers: "error frames sent to clients, by error code."
        case .ackLatency: "Seconds from a client message's arrival to its ack being queued (the message is stored first)."
        case .replayEvents: "Events replayed to a socket after a successful auth."
        case .storeCommit: "Seconds the store took to commit an accepted client message."
        case .storeCommitBatchSize: "Writes committed in one SQLite transaction by group commit (SQLite only)."
        case .clusterDeliveryLag:
            "Seconds from another node publishing a cluster message to this node receiving it, by the two nodes' wall clocks (PostgreSQL only)."
        case .answerQueueDepth: "Client messages on this node waiting for, or receiving, the assistant's answer."
        case .pairingRequestsPending: "Pairing requests waiting for an admin's decision, on any node."
        }
    }

    /// Histogram buckets in seconds for durations; empty for the other kinds.
    var durationBuckets: [Duration] {
        switch self {
        case .ackLatency, .storeCommit, .clusterDeliveryLag:
            [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5].map { Duration.seconds($0) }
        default: []
        }
    }

    /// Histogram buckets for values that are counts.
    var valueBuckets: [Double] {
        switch self {
        case .replayEvents: [0, 1, 10, 50, 100, 250, 500, 1000]
        case .storeCommitBatchSize: [1, 2, 4, 8, 16, 32, 64, 128, 256]
        default: []
        }
    }
}
