import ClawlineProtocol
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import WireRuntime

/// Where and how a Clawline provider listens.
public struct ClawlineServerConfiguration: Sendable {
    /// The address to bind (loopback by default).
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// Whether binding an address other than loopback is allowed (the protocol has no TLS of its own).
    public var allowInsecurePublic: Bool
    /// Where uploaded files are kept.
    public var uploadsDirectory: String
    /// How often the server looks for devices revoked, removed or re-paired meanwhile, for
    /// sockets past their authentication deadline and for expired uploads.
    public var maintenanceInterval: Duration
    /// What any one peer may spend of the provider.
    public var limits: ProviderLimits

    /// A configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, allowInsecurePublic: Bool = false, uploadsDirectory: String,
        maintenanceInterval: Duration = .milliseconds(500), limits: ProviderLimits = ProviderLimits()
    ) {
        self.host = host
        self.port = port
        self.allowInsecurePublic = allowInsecurePublic
        self.uploadsDirectory = uploadsDirectory
        self.maintenanceInterval = maintenanceInterval
        self.limits = limits
    }

    /// Refuses a public address unless it was allowed explicitly, and limits that are not positive.
    public func validate() throws(ServerSetupError) {
        try limits.validate()
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
        guard loopback || allowInsecurePublic else {
            throw ServerSetupError(
                "refusing to listen on \(host): Clawline has no TLS of its own, so tokens and messages would cross the network in clear. "
                    + "Put the server behind a TLS proxy or VPN and pass --allow-insecure-public to bind it anyway.")
        }
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
    public static func service(
        configuration: ClawlineServerConfiguration, store: any ProviderStore, signingKey: [UInt8], assistant: any Assistant = EchoAssistant(),
        environment: ServerEnvironment = ServerEnvironment(), logger: Logger = Logger(label: "clawline.server"),
        cluster: (any ClusterBus)? = nil, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some Service {
        try await hubAndService(
            configuration: configuration, store: store, signingKey: signingKey, assistant: assistant, environment: environment, logger: logger,
            cluster: cluster, onListening: onListening
        ).service
    }

    /// The service and the hub inside it (tests reach the hub; an embedder has only the service).
    static func hubAndService(
        configuration: ClawlineServerConfiguration, store: any ProviderStore, signingKey: [UInt8], assistant: any Assistant,
        environment: ServerEnvironment, logger: Logger, cluster: (any ClusterBus)?, onListening: @escaping @Sendable (Int) async -> Void
    ) async throws -> (hub: ProviderHub, service: some Service) {
        try configuration.validate()
        let tokens = try await TokenAuthority(key: signingKey)
        let limits = configuration.limits
        let hub = try await ProviderHub(
            store: store, tokens: tokens, assistant: assistant, environment: environment, logger: logger, cluster: cluster, limits: limits)
        await hub.startCluster()

        let router = Router()
        router.get("/version") { _, _ in HTTPResponses.json(VersionInfo(protocolVersion: Clawline.Constants.protocolVersion).encoded()) }
        let quota = UploadQuota(maxConcurrent: limits.maxConcurrentUploadsPerAccount, maxBytes: limits.uploadQuotaBytes)
        AssetRoutes(hub: hub, directory: configuration.uploadsDirectory, quota: quota).register(on: router)
        HealthRoutes(hub: hub).register(on: router)
        router.get(RouterPath(Clawline.transportPath)) { _, _ in
            HTTPResponses.json(
                HttpError(code: .invalidMessage, message: "this path speaks WebSocket only; send an Upgrade request").encoded(),
                status: .init(code: Clawline.Constants.upgradeRequiredStatus))
        }
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: ConnectionHandler.hardFrameLimit, autoPing: .disabled)
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(http1: .init(idleTimeout: TimeAmount(limits.idleTimeout)), ws: webSocket)
        let addresses = AddressConnectionCounter(limit: limits.maxConnectionsPerAddress)
        let server = HTTPServerBuilder { responder in
            let upgrade = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channel) { request, channel, _ in
                guard request.path == Clawline.transportPath else { return .dontUpgrade }
                let address = channel.remoteAddress?.ipAddress
                return .upgrade([:]) { inbound, outbound, context in
                    await ConnectionHandler.serve(
                        inbound: inbound, outbound: outbound, hub: hub, remoteAddress: address,
                        channel: channel, logger: context.logger)
                }
            }
            return GuardedChildChannel(base: upgrade, counter: addresses, headerTimeout: TimeAmount(limits.headerTimeout))
        }
        let application = Application(
            router: router,
            server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "clawline",
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections)),
            services: [
                MaintenanceService(hub: hub, interval: configuration.maintenanceInterval, uploadsDirectory: configuration.uploadsDirectory)
            ],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        // Services stop in reverse order: the sockets are closed (1001) before the server stops.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: application),
                    .init(service: SocketDrain(hub: hub), successTerminationBehavior: .ignore),
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

/// Closes every open socket with 1001 (going away) when the server shuts down gracefully, and
/// waits briefly for the close handshakes, so clients know to reconnect.
struct SocketDrain: Service {
    let hub: ProviderHub

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        await hub.beginDrain()
        await hub.closeAll(code: 1001, reason: "the server is shutting down")
        let deadline = ContinuousClock.now.advanced(by: .seconds(3))
        while await hub.openSocketCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        await hub.stopCluster()
    }
}
