import CoreMetrics
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// A swift-metrics factory on a Prometheus registry that gives the provider's metrics their
/// `# HELP` line and buckets (``ProviderMetric``); any other label gets the registry's defaults.
struct ProviderPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    /// swift-prometheus's own factory on the same registry: its defaults, and unregistering.
    private let defaults: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        defaults = PrometheusMetricsFactory(registry: registry)
    }

    /// The metric's name and `# HELP` text (none for a label not of the provider's).
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: ProviderMetric(rawValue: label)?.help ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        let buckets = ProviderMetric(rawValue: label)?.valueBuckets ?? defaults.defaultValueHistogramBuckets
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets = ProviderMetric(rawValue: label)?.durationBuckets ?? defaults.defaultDurationHistogramBuckets
        return registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { defaults.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { defaults.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { defaults.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { defaults.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { defaults.destroyTimer(handler) }
}

/// `GET /metrics`: the registry in the Prometheus text format, with the hub's gauges sampled first.
struct MetricsRoute {
    let hub: ProviderHub
    let registry: PrometheusCollectorRegistry

    func register(on router: Router<some RequestContext>) {
        router.get("/metrics") { _, _ in
            await hub.sampleMetrics()
            var body: [UInt8] = []
            registry.emit(into: &body)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}

/// Where `GET /metrics` is served.
public enum MetricsEndpoint: Sendable, Hashable {
    /// On the provider's own listener, beside `/ws` (only when asked: anyone who reaches the
    /// provider reads its metrics).
    case publicListener
    /// On a listener of its own (port 0 picks a free one), typically loopback or a private network.
    case separate(host: String, port: Int)
}

extension MetricsRoute {
    /// A Hummingbird application serving `/metrics` alone on `host:port`.
    func listener(host: String, port: Int, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void) -> some Service {
        let router = Router()
        register(on: router)
        return Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "clawline-metrics"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) }, logger: logger)
    }
}
