import ClawlineProtocol
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import WireRuntime

/// Where and how a Clawline provider listens.
public struct ClawlineServerConfiguration: Sendable {
    /// The address to bind (loopback by default).
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// Whether binding an address other than loopback without ``tls`` is allowed.
    public var allowInsecurePublic: Bool
    /// The certificate and key the server speaks TLS with (`wss://`, `https://`); `nil` for plain text.
    public var tls: ServerTLSFiles?
    /// Where `GET /metrics` is served, if anywhere. Without it the provider's metrics go to the
    /// process's swift-metrics backend (`MetricsSystem.bootstrap`), if one was bootstrapped.
    public var metricsEndpoint: MetricsEndpoint?
    /// How long a graceful shutdown may take to close the sockets and publish what the other
    /// nodes have yet to hear; sockets still open then are closed under their peers.
    public var drainTimeout: Duration
    /// Whether the text of `message` and `typing` frames is logged (at trace level). Off by
    /// default: logs carry frame types and sizes, never content. Tokens are never logged.
    public var logsContent: Bool
    /// Where uploaded files are kept.
    public var uploadsDirectory: String
    /// How often the server looks for devices revoked, removed or re-paired meanwhile, for
    /// sockets past their authentication deadline and for expired uploads.
    public var maintenanceInterval: Duration
    /// What any one peer may spend of the provider.
    public var limits: ProviderLimits
    /// Deliberate breaches of the contract, for tests of the conformance kit and the probe
    /// (internal: an embedder cannot set them).
    var faults: ProviderFaults = []

    /// A configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, allowInsecurePublic: Bool = false, tls: ServerTLSFiles? = nil,
        metricsEndpoint: MetricsEndpoint? = nil, drainTimeout: Duration = .seconds(10), logsContent: Bool = false, uploadsDirectory: String,
        maintenanceInterval: Duration = .milliseconds(500), limits: ProviderLimits = ProviderLimits()
    ) {
        self.host = host
        self.port = port
        self.allowInsecurePublic = allowInsecurePublic
        self.tls = tls
        self.metricsEndpoint = metricsEndpoint
        self.drainTimeout = drainTimeout
        self.logsContent = logsContent
        self.uploadsDirectory = uploadsDirectory
        self.maintenanceInterval = maintenanceInterval
        self.limits = limits
    }

    /// Refuses a public address without TLS unless it was allowed explicitly, and limits that
    /// are not positive.
    public func validate() throws(ServerSetupError) {
        try limits.validate()
        guard drainTimeout > .zero else { throw ServerSetupError("the drain timeout must be positive") }
        guard Self.isLoopback(host) || tls != nil || allowInsecurePublic else {
            throw ServerSetupError(
                "refusing to listen on \(host) without TLS: tokens and messages would cross the network in clear. "
                    + "Pass --tls-cert and --tls-key, or put the server behind a TLS proxy or VPN and pass --allow-insecure-public.")
        }
    }

    /// Whether `host` is this machine only.
    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }
}

/// The Clawline provider as an embeddable Hummingbird application: `GET /version`, the `/ws`
/// WebSocket (426 for a plain request), the provider's behaviour on top of the generated
/// `ClawlineProtocol` and WireRuntime's session machine.
public enum ClawlineServer {
    /// Builds the provider: the Hummingbird application, and before it, on graceful shutdown
    /// (SIGTERM, SIGINT, or the service group's), the closing of every open socket with 1001.
    /// Run it in a `ServiceGroup`, or alone with `runService()`.
    ///
    /// - Parameters:
    ///   - configuration: Where to listen, the public-address guard and the limits (``ProviderLimits``).
    ///   - store: Where devices and events are kept.
    ///   - signingKey: The HS256 key of device tokens (at least 32 bytes).
    ///   - assistant: What answers user messages (the echo assistant by default).
    ///   - environment: The clocks.
    ///   - logger: Where the provider logs.
    ///   - cluster: How this node reaches the other nodes sharing `store` (`PostgresProviderStore.clusterBus()`);
    ///     `nil` (the default) for a single node.
    ///   - onListening: Called with the bound port once the server accepts connections.
    ///   - onMetricsListening: Called with the metrics listener's port once it accepts
    ///     connections, when ``ClawlineServerConfiguration/metricsEndpoint`` is a separate address.
    public static func service(
        configuration: ClawlineServerConfiguration, store: any ProviderStore, signingKey: [UInt8], assistant: any Assistant = EchoAssistant(),
        environment: ServerEnvironment = ServerEnvironment(), logger: Logger = Logger(label: "clawline.server"),
        cluster: (any ClusterBus)? = nil, onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some Service {
        try await hubAndService(
            configuration: configuration, store: store, signingKey: signingKey, assistant: assistant, environment: environment, logger: logger,
            cluster: cluster, onListening: onListening, onMetricsListening: onMetricsListening
        ).service
    }

    /// The service and the hub inside it (tests reach the hub; an embedder has only the service).
    static func hubAndService(
        configuration: ClawlineServerConfiguration, store: any ProviderStore, signingKey: [UInt8], assistant: any Assistant,
        environment: ServerEnvironment, logger: Logger, cluster: (any ClusterBus)?, onListening: @escaping @Sendable (Int) async -> Void,
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> (hub: ProviderHub, service: some Service) {
        try configuration.validate()
        let tls = try configuration.tls?.configuration()
        let tokens = try await TokenAuthority(key: signingKey)
        let limits = configuration.limits
        let registry = configuration.metricsEndpoint.map { _ in PrometheusCollectorRegistry() }
        let metrics = ServerMetrics(factory: registry.map { ProviderPrometheusFactory(registry: $0) } ?? MetricsSystem.factory)
        let hub = try await ProviderHub(
            store: store, tokens: tokens, assistant: assistant, environment: environment, logger: logger, cluster: cluster, limits: limits,
            metrics: metrics, logsContent: configuration.logsContent, faults: configuration.faults)
        await hub.startCluster()

        let router = Router()
        router.get("/version") { _, _ in HTTPResponses.json(VersionInfo(protocolVersion: Clawline.Constants.protocolVersion).encoded()) }
        let quota = UploadQuota(maxConcurrent: limits.maxConcurrentUploadsPerAccount, maxBytes: limits.uploadQuotaBytes)
        AssetRoutes(hub: hub, directory: configuration.uploadsDirectory, quota: quota).register(on: router)
        HealthRoutes(hub: hub).register(on: router)
        var services: [any Service] = [
            MaintenanceService(hub: hub, interval: configuration.maintenanceInterval, uploadsDirectory: configuration.uploadsDirectory),
            DeadlineWatchService(watch: hub.keepalives.deadlines, clock: environment.keepaliveClock),
            DeadlineWatchService(watch: hub.answerWatch.deadlines, clock: environment.clock),
            DeadlineWatchService(watch: hub.storeCallWatch.deadlines, clock: environment.keepaliveClock),
        ]
        switch (configuration.metricsEndpoint, registry) {
        case (.publicListener?, let registry?):
            MetricsRoute(hub: hub, registry: registry).register(on: router)
        case (.separate(let host, let port)?, let registry?):
            services.append(
                MetricsRoute(hub: hub, registry: registry).listener(host: host, port: port, logger: logger, onListening: onMetricsListening))
        default:
            break
        }
        router.get(RouterPath(Clawline.transportPath)) { _, _ in
            if hub.draining.isSet {
                return HTTPResponses.json(
                    HttpError(code: .serverError, message: "this node is shutting down; connect again (to another node)").encoded(),
                    status: .serviceUnavailable)
            }
            return HTTPResponses.json(
                HttpError(code: .invalidMessage, message: "this path speaks WebSocket only; send an Upgrade request").encoded(),
                status: .init(code: Clawline.Constants.upgradeRequiredStatus))
        }
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: ConnectionHandler.hardFrameLimit, autoPing: .disabled)
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)), ws: webSocket)
        let addresses = AddressConnectionCounter(limit: limits.maxConnectionsPerAddress)
        let server = HTTPServerBuilder { responder in
            let upgrade = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channel) { request, channel, _ in
                guard request.path == Clawline.transportPath, !hub.draining.isSet else { return .dontUpgrade }
                let address = channel.remoteAddress?.ipAddress
                return .upgrade([:]) { inbound, outbound, context in
                    await ConnectionHandler.serve(
                        inbound: inbound, outbound: outbound, hub: hub, remoteAddress: address,
                        channel: channel, logger: context.logger)
                }
            }
            let guarded = GuardedChildChannel(base: upgrade, counter: addresses, headerTimeout: TimeAmount(limits.headerTimeout))
            // TLS first, then the guard: it reads the request head in clear.
            guard let tls else { return guarded }
            return try TLSChannel(guarded, tlsConfiguration: tls)
        }
        let application = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "clawline",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections)),
            services: services,
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        // Services stop in reverse order: the sockets are closed (1001) before the server stops.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: application),
                    .init(service: SocketDrain(hub: hub, timeout: configuration.drainTimeout), successTerminationBehavior: .ignore),
                ],
                logger: logger))
        return (hub, group)
    }
}

/// Runs the hub's maintenance every `interval` (real time) until the server shuts down.
struct MaintenanceService: Service {
    let hub: ProviderHub
    let interval: Duration
    let uploadsDirectory: String

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await hub.maintain(uploadsDirectory: uploadsDirectory)
            }
        }
    }
}
