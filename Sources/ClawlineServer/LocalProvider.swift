import Foundation
import Logging
import ServiceLifecycle

/// A provider running inside this process on 127.0.0.1 (a free port): for demos, client tests and
/// apps that embed their own server. It runs until ``shutdown()``.
public final class LocalProvider: Sendable {
    /// The provider's base URL, `http://127.0.0.1:PORT`.
    public let baseURL: URL
    /// The store it keeps devices and events in.
    public let store: SQLiteProviderStore
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(baseURL: URL, store: SQLiteProviderStore, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.store = store
        self.group = group
        self.task = task
    }

    /// Starts a provider whose database, signing key and uploads live in `dataDirectory`
    /// (created when missing); returns once it accepts connections.
    public static func start(
        dataDirectory: URL, assistant: any Assistant = EchoAssistant(), environment: ServerEnvironment = ServerEnvironment(),
        maintenanceInterval: Duration = .seconds(1), logger: Logger = LocalProvider.quietLogger
    ) async throws -> LocalProvider {
        try await start(
            dataDirectory: dataDirectory, assistant: assistant, environment: environment, maintenanceInterval: maintenanceInterval,
            logger: logger, faults: [])
    }

    /// Starts a provider as ``start(dataDirectory:assistant:environment:maintenanceInterval:logger:)``
    /// does, breaching the contract in the ways `faults` name (for tests only).
    static func start(
        dataDirectory: URL, assistant: any Assistant = EchoAssistant(), environment: ServerEnvironment = ServerEnvironment(),
        maintenanceInterval: Duration = .seconds(1), logger: Logger = LocalProvider.quietLogger, faults: ProviderFaults
    ) async throws -> LocalProvider {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try await SQLiteProviderStore.open(path: dataDirectory.appendingPathComponent("clawline.sqlite").path)
        do {
            let key = try TokenAuthority.loadOrCreateKey(at: dataDirectory.appendingPathComponent("signing-key").path)
            var configuration = ClawlineServerConfiguration(
                port: 0, uploadsDirectory: dataDirectory.appendingPathComponent("uploads").path, maintenanceInterval: maintenanceInterval)
            configuration.faults = faults
            let (ports, portSink) = AsyncStream<Int>.makeStream()
            let service = try await ClawlineServer.service(
                configuration: configuration, store: store, signingKey: key, assistant: assistant, environment: environment, logger: logger
            ) { port in
                portSink.yield(port)
                portSink.finish()
            }
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: logger))
            let task = Task {
                defer { portSink.finish() }
                try await group.run()
            }
            for await port in ports {
                return LocalProvider(baseURL: URL(string: "http://127.0.0.1:\(port)")!, store: store, group: group, task: task)
            }
            try await task.value
            throw ServerSetupError("the provider stopped before it accepted connections")
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// Shuts the provider down gracefully (open sockets are closed with 1001) and closes its store.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
        try? await store.close()
    }

    /// A logger that reports warnings and errors only.
    public static var quietLogger: Logger {
        var logger = Logger(label: "clawline.server")
        logger.logLevel = .warning
        return logger
    }
}
