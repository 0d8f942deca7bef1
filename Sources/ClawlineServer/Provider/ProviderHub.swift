import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// The provider's live state on one node, in three parts that each own theirs: the sockets
/// (``SocketRegistry``), the pairing requests (``PairingDesk``) and the assistant's work
/// (``AnswerScheduler``). The hub is the one actor that changes them, so a step that touches
/// several (a takeover cancels answers, an approval asks admins) is one step. Storage is the store's.
actor ProviderHub {
    let store: any ProviderStore
    let tokens: TokenAuthority
    let assistant: any Assistant
    let environment: ServerEnvironment
    let logger: Logger
    /// The other nodes sharing the store; `nil` for a single node, which publishes nothing.
    let cluster: (any ClusterBus)?
    /// What this node tells the others, published in order, in batches, by one task.
    let outbox = ClusterOutbox()
    /// The tasks that publish this node's messages and receive the others'.
    var clusterTasks: [Task<Void, Never>] = []

    /// The authenticated sockets on this node.
    var registry = SocketRegistry()
    /// Pairing requests waiting for an admin.
    var pairing = PairingDesk()
    /// The assistant's answers in progress and waiting.
    var answers = AnswerScheduler()
    /// Whether a device already became the first admin (loaded from the store at start).
    var hasAdmin: Bool
    /// Whether the node is shutting down: `/readyz` answers 503 and no new socket is accepted.
    nonisolated let draining = DrainFlag()
    /// What any one peer may spend.
    let limits: ProviderLimits
    /// The contract breaches a test asked for (none in production).
    nonisolated let faults: ProviderFaults
    /// Whether message and typing frames are logged with their text at trace level.
    let logsContent: Bool
    /// Where the provider's metrics go.
    nonisolated let metrics: ServerMetrics
    /// Every socket open on this node, in any phase.
    var connections: [ObjectIdentifier: ServerConnection] = [:]
    /// The rate-limit windows of every device and stranger (the maintenance prunes them).
    nonisolated let rateLimits: DeviceRateLimits
    /// Sockets that have sent neither a successful `auth` nor a `pair_request` yet; the
    /// maintenance closes those older than `limits.authenticationTimeout`.
    var unidentified: [ObjectIdentifier: ServerConnection] = [:]
    /// The bound on the store calls a socket waits for (``ProviderLimits/storeCallLimit``).
    nonisolated let storeCalls: BoundedStoreCall
    /// Every store call's bound, on one task (a ``DeadlineWatchService`` runs it).
    nonisolated let storeCallWatch: StoreCallWatch
    /// Every socket's keepalive, on one task (a ``DeadlineWatchService`` runs it).
    nonisolated let keepalives: KeepaliveWatch
    /// Every answer's inactivity, on one task (a ``DeadlineWatchService`` runs it).
    nonisolated let answerWatch: AnswerWatch
    /// Per device, how many of its messages' store calls outlived the bound and have not ended.
    var lateMessages: [String: Int] = [:]
    /// The store's ``ProviderStore/devicesRevision()`` when the maintenance last looked up every
    /// connected device; `nil` before that, after a failed look, and for a store that cannot tell.
    var devicesRevisionLookedUp: Int?

    init(
        store: any ProviderStore, tokens: TokenAuthority, assistant: any Assistant, environment: ServerEnvironment, logger: Logger,
        cluster: (any ClusterBus)? = nil, limits: ProviderLimits = ProviderLimits(), metrics: ServerMetrics = .none,
        logsContent: Bool = false, faults: ProviderFaults = []
    ) async throws {
        self.logsContent = logsContent
        self.faults = faults
        self.limits = limits
        storeCallWatch = StoreCallWatch(now: environment.keepaliveElapsed, limit: limits.storeCallLimit)
        storeCalls = BoundedStoreCall(watch: storeCallWatch)
        keepalives = KeepaliveWatch(now: environment.keepaliveElapsed)
        answerWatch = AnswerWatch(now: environment.elapsed)
        self.metrics = metrics
        (store as? any ReportsCommitBatches)?.reportCommitBatches(to: metrics)
        (cluster as? any ReportsDeliveryLag)?.reportDeliveryLag(to: metrics)
        rateLimits = DeviceRateLimits(maxDeviceIDsPerAddress: limits.maxDeviceIDsPerAddress)
        self.store = store
        self.tokens = tokens
        self.assistant = assistant
        self.environment = environment
        self.logger = logger
        self.cluster = cluster
        hasAdmin = try await store.devices().contains { $0.isAdmin && $0.status == .approved }
    }

    /// Starts publishing to and receiving from the other nodes.
    func startCluster() {
        guard clusterTasks.isEmpty, let cluster else { return }
        let outbox = outbox
        clusterTasks = [
            Task { await outbox.drain(into: cluster) },
            Task { [weak self] in for await message in cluster.messages { await self?.receive(message) } },
        ]
    }

    /// Stops talking to the other nodes: what is queued is published first (until `deadline`,
    /// and for at least a second), then nothing more is received.
    func stopCluster(before deadline: ContinuousClock.Instant = .now) async {
        outbox.finish()
        clusterTasks.last?.cancel()
        guard let publisher = clusterTasks.first else { return }
        let limit = max(deadline, ContinuousClock.now.advanced(by: .seconds(1)))
        let deadline = Task {
            try? await Task.sleep(until: limit)
            publisher.cancel()
        }
        await publisher.value
        deadline.cancel()
    }

    // MARK: Sockets

    /// Sends a frame to every connected device of an account, on every node: encoded and parsed
    /// once, whatever the number of sockets. `number` is a stored event's number in its account:
    /// sockets send events in that order.
    func broadcast(_ frame: ServerFrame, to userID: String, number: Int? = nil) {
        broadcast(OutboundFrame(frame), to: userID, number: number)
    }

    /// Sends a frame encoded and parsed beforehand to every connected device of an account, on
    /// every node, as the stored event numbered `number` when it is one. A task that has the frame
    /// builds it before it calls the hub: every socket's task waits for the hub, none for the
    /// encoding.
    func broadcast(_ frame: OutboundFrame, to userID: String, number: Int? = nil) {
        // Under the fault that echoes to the sender only, events go unnumbered: the account's
        // other sockets would otherwise notice the missing echo and read it from the store.
        let outbound = frame.numbered(faults.has(.echoOnlyToSender) ? nil : number)
        registry.deliver(outbound, to: userID)
        publish(.accountFrame(userID: userID, frame: outbound.text, number: outbound.number))
    }

    /// Tells the other nodes, if there are any (the message is not even built otherwise).
    func publish(_ message: @autoclosure () -> ClusterMessage) {
        guard cluster != nil else { return }
        outbox.yield(message())
    }

    /// Counts a new socket as unidentified until it authenticates or asks to pair.
    func opened(_ connection: ServerConnection) {
        connections[ObjectIdentifier(connection)] = connection
        unidentified[ObjectIdentifier(connection)] = connection
    }

    /// The socket authenticated or asked to pair: its authentication deadline no longer applies.
    func identified(_ connection: ServerConnection) {
        unidentified[ObjectIdentifier(connection)] = nil
    }

    /// Ends a device's socket here: it hears `code` and closes, it is forgotten, and its answers
    /// are cancelled (a takeover on another node, a revoked token).
    func evict(_ deviceID: String, _ code: ErrorCode, _ message: String) {
        guard let socket = registry.forget(deviceID) else { return }
        socket.fail(code, message)
        answers.cancel(deviceID)
    }

    /// The socket of a device, if it is connected.
    func socket(of deviceID: String) -> ServerConnection? { registry.socket(of: deviceID) }

    /// A new event id: `s_` and a version-7 UUID (milliseconds since 1970 first, then random
    /// bits), so ids stored one after another sit side by side in the store's index instead of
    /// each landing on a page of its own (a commit writes every page it touches).
    static func newEventID(at date: Date = Date()) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        return "s_" + RandomUUID.version7(unixMilliseconds: milliseconds).lowercased
    }
}

extension PairRequest {
    /// What admins are asked about this request.
    var approvalRequest: ServerFrame {
        .pairApprovalRequest(PairApprovalRequest(deviceId: deviceId, claimedName: claimedName, deviceInfo: deviceInfo))
    }

    /// The device's record once the request is decided: `userID` when approved, `nil` when denied.
    func record(userID: String?, isAdmin: Bool = false, pairedAt: Date) -> DeviceRecord {
        DeviceRecord(
            deviceID: deviceId.rawValue, userID: userID, claimedName: claimedName, deviceInfo: deviceInfo.encodedText(), isAdmin: isAdmin,
            status: userID == nil ? .denied : .approved, pairedAt: pairedAt)
    }
}
