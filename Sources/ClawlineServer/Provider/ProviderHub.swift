import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// The provider's live state on one node: which socket each device uses, pending pairings, the
/// assistant streams, and fan-out of events to an account's devices. Storage is the store's.
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
    /// Pairing requests waiting on other nodes: their `pair_approval_request`, by device.
    var remotePendings: [String: ServerFrame] = [:]
    /// The tasks that publish this node's messages and receive the others'.
    var clusterTasks: [Task<Void, Never>] = []

    /// The authenticated socket of each device.
    var sockets: [String: ServerConnection] = [:]
    /// The devices with a socket, by account (fan-out reads this, not every socket).
    var connectedDevices: [String: Set<String>] = [:]
    /// Pairing requests waiting for an admin, by device.
    var pendingPairings: [String: PendingPairing] = [:]
    /// Whether a device already became the first admin (loaded from the store at start).
    var hasAdmin: Bool
    /// Each device's assistant queue.
    var answerQueues: [String: AnswerQueue] = [:]
    /// When each account's devices were last sent assistant typing, on the server's clock.
    var typingSent: [String: [Duration]] = [:]
    /// Devices denied while their pairing socket was closed: their next request hears the denial.
    var undeliveredDenials: Set<String> = []
    /// Approved devices whose token could not be delivered (the pairing socket had closed).
    var undeliveredTokens: Set<String> = []
    /// Devices whose token was issued a second time by a repeated `pair_request`.
    var reissuedTokens: Set<String> = []
    /// The latest snapshot of each stream in progress, by the device whose message it answers.
    var streamSnapshots: [String: (userID: String, message: ServerMessage)] = [:]
    /// What any one peer may spend.
    let limits: ProviderLimits
    /// Sockets that have sent neither a successful `auth` nor a `pair_request` yet; the
    /// maintenance closes those older than `limits.authenticationTimeout`.
    var unidentified: [ObjectIdentifier: ServerConnection] = [:]

    struct PendingPairing {
        var request: PairRequest
        var connection: ServerConnection
        var expiry: Task<Void, Never>
    }

    init(
        store: any ProviderStore, tokens: TokenAuthority, assistant: any Assistant, environment: ServerEnvironment, logger: Logger,
        cluster: (any ClusterBus)? = nil, limits: ProviderLimits = ProviderLimits()
    ) async throws {
        self.limits = limits
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

    /// Stops talking to the other nodes: what is queued is published first (for at most two
    /// seconds), then nothing more is received.
    func stopCluster() async {
        outbox.finish()
        clusterTasks.last?.cancel()
        guard let publisher = clusterTasks.first else { return }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(2))
            publisher.cancel()
        }
        await publisher.value
        deadline.cancel()
    }

    // MARK: Sockets

    /// Sends a frame to every connected device of an account, on every node.
    func broadcast(_ frame: ServerFrame, to userID: String) {
        deliver(frame, to: userID)
        publish(.accountFrame(userID: userID, frame: frame.encodedText()))
    }

    /// Tells the other nodes, if there are any (the message is not even built otherwise).
    func publish(_ message: @autoclosure () -> ClusterMessage) {
        guard cluster != nil else { return }
        outbox.yield(message())
    }

    /// Sends a frame to the account's devices connected to this node.
    func deliver(_ frame: ServerFrame, to userID: String) {
        for deviceID in connectedDevices[userID] ?? [] {
            sockets[deviceID]?.send(frame, live: true)
        }
    }

    /// Counts a new socket as unidentified until it authenticates or asks to pair.
    func opened(_ connection: ServerConnection) {
        unidentified[ObjectIdentifier(connection)] = connection
    }

    /// The socket authenticated or asked to pair: its authentication deadline no longer applies.
    func identified(_ connection: ServerConnection) {
        unidentified[ObjectIdentifier(connection)] = nil
    }

    func forgetSocket(of deviceID: String, in userID: String?) {
        sockets[deviceID] = nil
        guard let userID else { return }
        connectedDevices[userID]?.remove(deviceID)
        if connectedDevices[userID]?.isEmpty == true { connectedDevices[userID] = nil }
    }

    /// The socket of a device, if it is connected.
    func socket(of deviceID: String) -> ServerConnection? { sockets[deviceID] }

    /// A new event id: `s_` and a version-7 UUID (milliseconds since 1970 first, then random
    /// bits), so ids stored one after another sit side by side in the store's index instead of
    /// each landing on a page of its own (a commit writes every page it touches).
    static func newEventID(at date: Date = Date()) -> String {
        var bytes = UUID().uuid
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            raw[6] = 0x70 | (raw[6] & 0x0F)  // version 7; the variant bits stay those of the random UUID
        }
        return "s_" + UUID(uuid: bytes).uuidString.lowercased()
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
