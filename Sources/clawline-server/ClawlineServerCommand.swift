import ArgumentParser
import ClawlineServer
import Foundation
import Logging
import ServiceLifecycle

/// `clawline-server`: runs the reference Clawline provider and manages its devices.
@main
struct ClawlineServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clawline-server", abstract: "The reference Clawline provider.", subcommands: [Serve.self, Devices.self],
        defaultSubcommand: Serve.self)
}

/// The options every command shares.
struct DataOptions: ParsableArguments {
    @Option(help: "The directory of the database, the signing key and uploads.")
    var dataDir = "./clawline-data"

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL database (postgres://USER@HOST[:PORT]/DATABASE[?sslmode=require]) instead of SQLite in --data-dir; "
                + "the signing key then lives in the database too. Pass a URL with a password in CLAWLINE_DATABASE_URL instead: "
                + "a flag shows in the process list. sslmode is require unless the host is this machine."))
    var database: String?

    @Flag(help: "Sync every commit to disk, so acknowledged messages survive power failure, not only a crash (slower; SQLite only).")
    var syncEveryCommit = false

    @Option(
        help: ArgumentHelp(
            "Microseconds the first write of a busy store waits for others to share its commit; 0 commits every batch at once "
                + "(SQLite only). A write after a quiet window commits at once."))
    var commitWindowUs = Int(SQLiteProviderStore.defaultCommitWindow / .microseconds(1))

    func validate() throws {
        guard commitWindowUs >= 0 else { throw ValidationError("--commit-window-us must be 0 or more") }
    }

    var databasePath: String { (dataDir as NSString).appendingPathComponent("clawline.sqlite") }
    var keyPath: String { (dataDir as NSString).appendingPathComponent("signing-key") }
    var uploadsPath: String { (dataDir as NSString).appendingPathComponent("uploads") }

    /// The PostgreSQL URL: `--database`, else `CLAWLINE_DATABASE_URL`; `nil` for SQLite.
    var databaseURL: String? {
        database ?? ProcessInfo.processInfo.environment["CLAWLINE_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Warns on standard error: what an operator should fix, though the server can go on.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
    }

    /// Opens the store, its signing key and its bus to other nodes (SQLite: creating the
    /// directory, mode 0700, and no other node), runs `body` and closes the store, whether `body`
    /// succeeds or throws.
    func withStore<T>(
        _ body: (any ProviderStore, _ signingKey: () async throws -> [UInt8], _ cluster: () -> (any ClusterBus)?) async throws -> T
    ) async throws -> T {
        if let url = databaseURL {
            if let database, URLComponents(string: database)?.password != nil {
                Self.warn(
                    "--database carries a password, which every user of this machine can read in the process list; "
                        + "pass the URL in CLAWLINE_DATABASE_URL"
                )
            }
            let store = try await PostgresProviderStore.open(url: url)
            return try await closing({ try await store.close() }) {
                try await body(store, { try await store.signingKey() }, { store.clusterBus() })
            }
        }
        try FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try await SQLiteProviderStore.open(
            path: databasePath, durability: syncEveryCommit ? .powerFailure : .processCrash, commitWindow: .microseconds(commitWindowUs))
        return try await closing({ try await store.close() }) {
            try await body(store, { try TokenAuthority.loadOrCreateKey(at: keyPath) }, { nil })
        }
    }

    /// Opens the store, runs `body` on it and closes it.
    func withStore<T>(_ body: (any ProviderStore) async throws -> T) async throws -> T {
        try await withStore { store, _, _ in try await body(store) }
    }

    private func closing<T>(_ close: () async throws -> Void, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            try await close()
            return value
        } catch {
            try? await close()
            throw error
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the provider until SIGINT or SIGTERM.")

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on; 0 picks a free one.") var port = 8080
    @Flag(help: "Allow an address other than loopback without TLS (behind a TLS proxy or VPN).") var allowInsecurePublic = false
    @OptionGroup(title: "TLS") var tls: TLSOptions
    @OptionGroup(title: "Operations (metrics, logs, shutdown)") var operations: OperationsOptions
    @OptionGroup var data: DataOptions
    @OptionGroup(title: "Limits (what any one peer may spend)") var limits: LimitOptions
    @Option(
        help: """
            Milliseconds the built-in echo assistant waits between the snapshots of an answer (0: it streams at once). \
            A demo or a conformance run sets one, so a stream can be watched, moved by a takeover, or cut by a close.
            """)
    var assistantPaceMs = 0

    func validate() throws {
        guard assistantPaceMs >= 0 else { throw ValidationError("--assistant-pace-ms must not be negative") }
    }

    func run() async throws {
        let configuration = ClawlineServerConfiguration(
            host: host, port: port, allowInsecurePublic: allowInsecurePublic, tls: try tls.files, metricsEndpoint: operations.metricsEndpoint,
            drainTimeout: .seconds(operations.drainTimeout), logsContent: operations.logContent, uploadsDirectory: data.uploadsPath,
            limits: limits.limits)
        do {
            try configuration.validate()
        } catch {
            throw ValidationError(error.description)
        }
        operations.bootstrapLogging()
        let logger = Logger(label: "clawline.server")
        let host = host
        let scheme = configuration.tls == nil ? "http" : "https"
        let metricsHost = operations.metricsHost
        try await data.withStore { store, signingKey, cluster in
            let key = try await signingKey()
            let server = try await ClawlineServer.service(
                configuration: configuration, store: store, signingKey: key, assistant: EchoAssistant(pace: .milliseconds(assistantPaceMs)),
                logger: logger, cluster: cluster(),
                onListening: { port in
                    // One line, written at once, so a script waiting for it never sees half of it.
                    FileHandle.standardOutput.write(Data("listening on \(scheme)://\(host):\(port)\n".utf8))
                },
                onMetricsListening: { port in
                    FileHandle.standardOutput.write(Data("metrics on http://\(metricsHost):\(port)/metrics\n".utf8))
                })
            try await ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger).run()
        }
    }
}

/// The certificate and key of native TLS.
struct TLSOptions: ParsableArguments {
    @Option(help: "A PEM file of the server's certificate chain (leaf first); with --tls-key, the server speaks wss:// and https://.")
    var tlsCert: String?
    @Option(help: "The PEM file of the certificate's private key (unencrypted).")
    var tlsKey: String?

    /// The files, when both are given.
    var files: ServerTLSFiles? {
        get throws {
            switch (tlsCert, tlsKey) {
            case (let cert?, let key?): return ServerTLSFiles(certificateChainPath: cert, privateKeyPath: key)
            case (nil, nil): return nil
            default: throw ValidationError("--tls-cert and --tls-key go together: pass both, or neither")
            }
        }
    }
}

/// Metrics, logs and shutdown.
struct OperationsOptions: ParsableArguments {
    @Option(help: "Serve GET /metrics (Prometheus text) on this port of --metrics-host; 0 picks a free one.")
    var metricsPort: Int?
    @Option(help: "The address of the metrics listener.")
    var metricsHost = "127.0.0.1"
    @Flag(help: "Serve GET /metrics on the provider's own listener instead (anyone who reaches the provider reads it).")
    var metricsOnPublicListener = false
    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info
    @Option(help: "text, or json: one JSON object per line, with the session, device and account where known.")
    var logFormat: LogFormat = .text
    @Flag(help: "Log the text of message and typing frames at trace level (never tokens). Off: logs carry types and sizes only.")
    var logContent = false
    @Option(help: "Seconds a graceful shutdown (SIGTERM) may take to close sockets (1001) and publish to the other nodes.")
    var drainTimeout = 10

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    var metricsEndpoint: MetricsEndpoint? {
        if metricsOnPublicListener { return .publicListener }
        return metricsPort.map { .separate(host: metricsHost, port: $0) }
    }

    func validate() throws {
        if metricsOnPublicListener, metricsPort != nil {
            throw ValidationError("--metrics-port and --metrics-on-public-listener exclude each other: choose where /metrics is served")
        }
        guard drainTimeout > 0 else { throw ValidationError("--drain-timeout must be at least 1 second") }
    }

    /// Sends every logger of the process to standard error, in the chosen format, at the chosen level.
    func bootstrapLogging() {
        let level = logLevel
        switch logFormat {
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, logLevel: level) }
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// The flags of ``ProviderLimits``, with its defaults.
struct LimitOptions: ParsableArguments {
    private static let defaults = ProviderLimits()

    @Option(help: "The most connections open at once (default: the open-file limit less 64).")
    var maxConnections = defaults.maxConnections
    @Option(help: "The most connections open at once from one IP address.")
    var maxConnectionsPerAddress = defaults.maxConnectionsPerAddress
    @Option(help: "Seconds a new connection has to send its first request's headers.")
    var headerTimeout = defaults.headerTimeout / .seconds(1)
    @Option(help: "Seconds an HTTP connection may stay idle.")
    var idleTimeout = defaults.idleTimeout / .seconds(1)
    @Option(help: "Seconds a WebSocket has to send a successful auth or a pair_request.")
    var authenticationTimeout = defaults.authenticationTimeout / .seconds(1)
    @Option(help: "The most pairing requests waiting for an admin from one IP address.")
    var maxPendingPairingsPerAddress = defaults.maxPendingPairingsPerAddress
    @Option(help: "Seconds a pairing request waits for an admin's decision before pair_timeout (the contract's 300).")
    var pairingRequestLifetime = defaults.pairingRequestLifetime / .seconds(1)
    @Option(help: "Seconds an upload no message references is kept before it is deleted (the contract's 3600).")
    var uploadRetention = defaults.uploadRetention / .seconds(1)
    @Option(help: "The most uploads one account sends at once.")
    var maxConcurrentUploadsPerAccount = defaults.maxConcurrentUploadsPerAccount
    @Option(help: "The most bytes of uploads one account keeps.")
    var uploadQuotaBytes = defaults.uploadQuotaBytes
    @Option(help: "How many snapshots of an answer go out as the assistant yields them.")
    var snapshotBurst = defaults.snapshotBurst
    @Option(help: "Milliseconds between two snapshots of an answer once its burst is spent.")
    var snapshotIntervalMs = Int(defaults.snapshotInterval / .milliseconds(1))
    @Option(help: "The most bytes of frames a socket may have waiting to be handed to its connection before it is closed with 1013.")
    var maxUnsentBytesPerSocket = defaults.maxUnsentBytesPerSocket
    @Option(help: "Seconds a socket closed for falling behind has to take its close frame.")
    var slowReaderGrace = defaults.slowReaderGrace / .seconds(1)
    @Option(help: "The most device ids one address may name in auth and pair_request frames within a rate window.")
    var maxDeviceIdsPerAddress = defaults.maxDeviceIDsPerAddress
    @Option(help: "Milliseconds a socket waits for the store to take a message before it answers server_error (the client sends it again).")
    var storeCallLimitMs = Int(defaults.storeCallLimit / .milliseconds(1))

    var limits: ProviderLimits {
        ProviderLimits(
            maxConnections: maxConnections, maxConnectionsPerAddress: maxConnectionsPerAddress, headerTimeout: .seconds(headerTimeout),
            idleTimeout: .seconds(idleTimeout), authenticationTimeout: .seconds(authenticationTimeout),
            maxPendingPairingsPerAddress: maxPendingPairingsPerAddress, pairingRequestLifetime: .seconds(pairingRequestLifetime),
            uploadRetention: .seconds(uploadRetention), maxConcurrentUploadsPerAccount: maxConcurrentUploadsPerAccount,
            uploadQuotaBytes: uploadQuotaBytes, snapshotBurst: snapshotBurst, snapshotInterval: .milliseconds(snapshotIntervalMs),
            maxUnsentBytesPerSocket: maxUnsentBytesPerSocket, slowReaderGrace: .seconds(slowReaderGrace),
            maxDeviceIDsPerAddress: maxDeviceIdsPerAddress, storeCallLimit: .milliseconds(storeCallLimitMs))
    }
}

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List and manage paired devices.", subcommands: [List.self, Revoke.self, Deny.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every known device.")
        @OptionGroup var data: DataOptions

        func run() async throws {
            for device in try await data.withStore({ try await $0.devices() }) {
                // What a device claimed is printed escaped: control characters in a name cannot forge a line.
                let fields = [
                    device.deviceID.escapingControls, device.status.rawValue, device.isAdmin ? "admin" : "member",
                    "user=\((device.userID ?? "-").escapingControls)", "name=\((device.claimedName ?? "-").escapingControls)",
                    "lastSeen=\(device.lastSeen.map { "\($0)" } ?? "never")",
                ]
                print(fields.joined(separator: "  "))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a device's token: it gets token_revoked when it authenticates.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The device's id.") var deviceID: String

        func run() async throws { try await setStatus(.revoked, of: deviceID, in: data) }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny a device: its pairing requests get pair_rejected.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The device's id.") var deviceID: String

        func run() async throws { try await setStatus(.denied, of: deviceID, in: data) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a device; it may pair again.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The device's id.") var deviceID: String

        func run() async throws {
            let deviceID = deviceID
            try await data.withStore { store in
                guard try await store.device(deviceID) != nil else { throw ValidationError("no device has the id '\(deviceID)'") }
                try await store.removeDevice(deviceID)
            }
            print("removed \(deviceID)")
        }
    }
}

private func setStatus(_ status: DeviceRecord.Status, of deviceID: String, in data: DataOptions) async throws {
    try await data.withStore { store in
        guard var device = try await store.device(deviceID) else { throw ValidationError("no device has the id '\(deviceID)'") }
        device.status = status
        try await store.save(device)
    }
    print("\(deviceID) is \(status.rawValue)")
}

extension String {
    /// The string with control characters (and the backslash) written as Swift escapes, `\u{1B}`.
    var escapingControls: String {
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar == "\\" {
                escaped += "\\\\"
            } else if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
            {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
