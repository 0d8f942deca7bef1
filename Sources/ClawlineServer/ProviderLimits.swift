import ClawlineProtocol

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What any one peer may spend of the provider: connections, time, uploads, pairing requests and
/// the frames an answer may send. Every limit has a default that suits a small public server;
/// `clawline-server serve` sets each with a flag of the same name.
public struct ProviderLimits: Sendable, Hashable {
    /// The most connections open at once, over every address. When it is reached, new connections
    /// wait in the kernel's backlog until one closes. The default leaves 64 of the process's file
    /// descriptors for the store, uploads and logs.
    public var maxConnections: Int
    /// The most connections open at once from one IP address; a connection past it is closed at
    /// once. `Int.max` for none.
    public var maxConnectionsPerAddress: Int
    /// How long an HTTP connection may wait for the head of its next request (a connection sending
    /// its headers slowly is closed when it runs out).
    public var headerTimeout: Duration
    /// How long an HTTP connection may stay idle, without a byte either way, before it is closed
    /// (WebSockets keep themselves alive with pings instead).
    public var idleTimeout: Duration
    /// How long a WebSocket may stay open before it sends a successful `auth` or a `pair_request`
    /// (counted on the server's clock); it is then closed with 1008. The spec's `connectTimeout`.
    public var authenticationTimeout: Duration
    /// The most pairing requests waiting for an admin from one IP address (the spec caps them all
    /// at `pendingPairingCapacity`, 100). The default, 32, lets a household or an office behind
    /// one NAT pair many devices at once, while one stranger's address holds at most a third of
    /// the queue. Memory is bounded by the queue, not by this: a waiting request keeps its frame
    /// (at most about 1 KiB: a 64-byte name and four 64-byte device-info strings), its expiry
    /// timer and a weak reference to its socket.
    public var maxPendingPairingsPerAddress: Int
    /// How long a pairing request waits for an admin's decision before it ends with
    /// `pair_timeout` (the spec's `pendingPairingTTL`, 5 minutes). It runs from the first
    /// `pair_request`; a device asking again on a new socket does not restart it.
    public var pairingRequestLifetime: Duration
    /// How long an upload no message references is kept before the maintenance deletes it (the
    /// spec's `uploadRetention`, 1 hour).
    public var uploadRetention: Duration
    /// The most uploads one account may send at once; one more is `rate_limited`.
    public var maxConcurrentUploadsPerAccount: Int
    /// The most bytes of uploads an account may keep (referenced or not, and those on their way);
    /// an upload that would pass it is `payload_too_large`.
    public var uploadQuotaBytes: Int
    /// How many snapshots of an answer go out as the assistant yields them; after these, at most
    /// one per ``snapshotInterval`` (the latest, so each still carries the whole text so far).
    public var snapshotBurst: Int
    /// The least time between two snapshots of an answer once its burst is spent.
    public var snapshotInterval: Duration
    /// The most bytes of frames one socket may owe its client and not yet have handed to its
    /// connection. Besides these, a socket holds at most the one batch it last handed over that
    /// the connection has not sent yet: its next batch waits until the connection can take more.
    /// A socket that falls further behind, a client that stops reading, is closed with 1013 (try
    /// again later): it reconnects with its cursor and replays. The default fits several of the
    /// largest frames (an answer with inline attachments).
    public var maxUnsentBytesPerSocket: Int
    /// How long a socket closed for falling behind has to take its close frame before its
    /// connection is closed under it (real time).
    public var slowReaderGrace: Duration
    /// The most device ids one IP address may name in unauthenticated frames (`auth`,
    /// `pair_request`) within a rate window, each counted on its own; frames naming more share
    /// one window (and soon hit the limit). Bounds what a stranger making up ids can cost.
    public var maxDeviceIDsPerAddress: Int
    /// The longest a socket waits for the store to take a message (real time, on the
    /// environment's keepalive clock). A message the store has not taken by then is answered
    /// `server_error` naming it, and the client sends it again under the same id: a database that
    /// restarts or cannot be reached is refused clearly instead of holding the socket silent. A
    /// store call that ends later still counts: if it committed, the message is echoed and
    /// answered, and the client's retry gets its `ack`. Under the spec's
    /// `ackTimeout` (5 s), so the client hears the refusal before it resends on its own.
    public var storeCallLimit: Duration
    /// How long a socket lets an account's event wait for an earlier one that has not reached the
    /// node (counted on the environment's keepalive clock) before the node reads the missing ones
    /// from the store: another node's event still on the bus, or one whose node stopped before
    /// telling the others. Events reach a socket in the order the store committed them.
    public var missingEventWait: Duration

    /// The defaults, or the values given.
    public init(
        maxConnections: Int = ProviderLimits.defaultMaxConnections, maxConnectionsPerAddress: Int = 256, headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60), authenticationTimeout: Duration = Clawline.Constants.connectTimeout,
        maxPendingPairingsPerAddress: Int = 32, pairingRequestLifetime: Duration = Clawline.Constants.pendingPairingTTL,
        uploadRetention: Duration = Clawline.Constants.uploadRetention, maxConcurrentUploadsPerAccount: Int = 2,
        uploadQuotaBytes: Int = 1 << 30, snapshotBurst: Int = 16, snapshotInterval: Duration = .milliseconds(100),
        maxUnsentBytesPerSocket: Int = 4 << 20, slowReaderGrace: Duration = .seconds(5), maxDeviceIDsPerAddress: Int = 256,
        storeCallLimit: Duration = .seconds(4), missingEventWait: Duration = .milliseconds(500)
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.authenticationTimeout = authenticationTimeout
        self.maxPendingPairingsPerAddress = maxPendingPairingsPerAddress
        self.pairingRequestLifetime = pairingRequestLifetime
        self.uploadRetention = uploadRetention
        self.maxConcurrentUploadsPerAccount = maxConcurrentUploadsPerAccount
        self.uploadQuotaBytes = uploadQuotaBytes
        self.snapshotBurst = snapshotBurst
        self.snapshotInterval = snapshotInterval
        self.maxUnsentBytesPerSocket = maxUnsentBytesPerSocket
        self.slowReaderGrace = slowReaderGrace
        self.maxDeviceIDsPerAddress = maxDeviceIDsPerAddress
        self.storeCallLimit = storeCallLimit
        self.missingEventWait = missingEventWait
    }

    /// The process's limit of open files less 64, at least 64 (`RLIMIT_NOFILE`).
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        #if canImport(Glibc) || canImport(Musl)
            let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 65_536 }
        // An unlimited limit reads as the largest value.
        return max(64, min(Int(clamping: limit.rlim_cur), 1 << 20) - 64)
    }

    /// Checks every limit is positive.
    public func validate() throws(ServerSetupError) {
        let counts = [
            ("max-connections", maxConnections), ("max-connections-per-address", maxConnectionsPerAddress),
            ("max-pending-pairings-per-address", maxPendingPairingsPerAddress),
            ("max-concurrent-uploads-per-account", maxConcurrentUploadsPerAccount), ("upload-quota-bytes", uploadQuotaBytes),
            ("snapshot-burst", snapshotBurst), ("max-unsent-bytes-per-socket", maxUnsentBytesPerSocket),
            ("max-device-ids-per-address", maxDeviceIDsPerAddress),
        ]
        for (name, value) in counts where value < 1 { throw ServerSetupError("--\(name) must be at least 1, not \(value)") }
        let durations = [
            ("header-timeout", headerTimeout), ("idle-timeout", idleTimeout), ("authentication-timeout", authenticationTimeout),
            ("slow-reader-grace", slowReaderGrace), ("pairing-request-lifetime", pairingRequestLifetime),
            ("upload-retention", uploadRetention), ("store-call-limit-ms", storeCallLimit),
        ]
        for (name, value) in durations where value <= .zero { throw ServerSetupError("--\(name) must be longer than zero") }
        guard snapshotInterval >= .zero else { throw ServerSetupError("--snapshot-interval must not be negative") }
    }
}
