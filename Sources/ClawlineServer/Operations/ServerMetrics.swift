import CoreMetrics
import Foundation
import NIOConcurrencyHelpers

/// The provider's metrics (``ProviderMetric``), made through swift-metrics from one factory: the
/// server's own Prometheus registry when it serves `/metrics`, otherwise the process's
/// `MetricsSystem` (whatever backend an embedder bootstrapped; none by default).
///
/// Recording costs an atomic add, plus a lock for the labelled counters' cache.
final class ServerMetrics: Sendable {
    private let factory: any MetricsFactory
    private let framesReceived: LabelledCounters
    private let framesSent: LabelledCounters
    private let errorAnswers: LabelledCounters
    private let ackLatency: CoreMetrics.Timer
    private let replayEvents: Recorder
    private let storeCommit: CoreMetrics.Timer
    private let storeCommitBatchSize: Recorder
    private let clusterDeliveryLag: CoreMetrics.Timer
    private let unauthenticatedSockets: Recorder
    private let authenticatedSockets: Recorder
    private let answerQueueDepth: Recorder
    private let pairingRequestsPending: Recorder

    /// Metrics made by `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        framesReceived = LabelledCounters(.framesReceived, factory: factory)
        framesSent = LabelledCounters(.framesSent, factory: factory)
        errorAnswers = LabelledCounters(.errorAnswers, factory: factory)
        ackLatency = CoreMetrics.Timer(label: ProviderMetric.ackLatency.name, factory: factory)
        replayEvents = Recorder(label: ProviderMetric.replayEvents.name, aggregate: true, factory: factory)
        storeCommit = CoreMetrics.Timer(label: ProviderMetric.storeCommit.name, factory: factory)
        storeCommitBatchSize = Recorder(label: ProviderMetric.storeCommitBatchSize.name, aggregate: true, factory: factory)
        clusterDeliveryLag = CoreMetrics.Timer(label: ProviderMetric.clusterDeliveryLag.name, factory: factory)
        unauthenticatedSockets = Recorder(
            label: ProviderMetric.sockets.name, dimensions: [("phase", "unauthenticated")], aggregate: false, factory: factory)
        authenticatedSockets = Recorder(
            label: ProviderMetric.sockets.name, dimensions: [("phase", "authenticated")], aggregate: false, factory: factory)
        answerQueueDepth = Recorder(label: ProviderMetric.answerQueueDepth.name, aggregate: false, factory: factory)
        pairingRequestsPending = Recorder(label: ProviderMetric.pairingRequestsPending.name, aggregate: false, factory: factory)
    }

    /// Metrics that record nothing (tests of parts that need some).
    static let none = ServerMetrics(factory: NOOPMetricsHandler.instance)

    func received(type: String) { framesReceived.increment(type) }
    func sent(type: String) { framesSent.increment(type) }
    func answeredError(code: String) { errorAnswers.increment(code) }
    func acknowledged(after duration: Duration) { ackLatency.recordInterval(duration) }
    func replayed(_ count: Int) { replayEvents.record(count) }
    func committed(after duration: Duration) { storeCommit.recordInterval(duration) }
    func committedBatch(of writes: Int) { storeCommitBatchSize.record(writes) }
    func clusterMessageArrived(after lag: Duration) { clusterDeliveryLag.recordInterval(max(.zero, lag)) }

    /// The gauges, sampled from the hub's state.
    func sample(openSockets: Int, authenticatedSockets authenticated: Int, answerQueueDepth depth: Int, pairingRequestsPending pending: Int) {
        unauthenticatedSockets.record(max(0, openSockets - authenticated))
        authenticatedSockets.record(authenticated)
        answerQueueDepth.record(depth)
        pairingRequestsPending.record(pending)
    }
}

extension CoreMetrics.Timer {
    /// Records a `Duration` in nanoseconds.
    func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The counters of one metric by the value of its one label, made when a value is first seen.
/// The values are the spec's message types and error codes, so the set stays small.
final class LabelledCounters: Sendable {
    private let metric: ProviderMetric
    private let factory: any MetricsFactory
    private let counters = NIOLockedValueBox<[String: Counter]>([:])

    init(_ metric: ProviderMetric, factory: any MetricsFactory) {
        self.metric = metric
        self.factory = factory
    }

    func increment(_ value: String) {
        counters.withLockedValue { counters in
            if let counter = counters[value] { return counter }
            let counter = Counter(label: metric.name, dimensions: [(metric.label ?? "label", value)], factory: factory)
            counters[value] = counter
            return counter
        }.increment()
    }
}

/// A store that groups writes into transactions and reports each transaction's size.
protocol ReportsCommitBatches {
    func reportCommitBatches(to metrics: ServerMetrics)
}

/// A cluster bus that knows when each message was published and reports how late it arrived.
protocol ReportsDeliveryLag {
    func reportDeliveryLag(to metrics: ServerMetrics)
}

extension ProviderHub {
    /// Sets the gauges from the hub's state (before each scrape, and at each maintenance tick).
    func sampleMetrics() {
        metrics.sample(
            openSockets: connections.count, authenticatedSockets: registry.count,
            answerQueueDepth: answers.outstandingCount, pairingRequestsPending: pairing.count)
    }
}
