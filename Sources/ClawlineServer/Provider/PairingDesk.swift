import ClawlineProtocol

/// The pairing requests this node knows of: those waiting here (with their latest socket and
/// expiry) and the `pair_approval_request` of those waiting on other nodes. What must outlive a
/// node (an undelivered token or denial, a token issued twice) is in the store. The hub owns one
/// and changes it only on its actor.
///
/// A request lives for its whole lifetime (`pendingPairingTTL`) whatever happens to its socket,
/// as the contract keys a request on its `deviceId` and the provider's pending state: a device
/// that asks again on a new socket takes the request over, and a decision made while the device
/// has no socket is the answer to its next `pair_request` (through the store's pairing note).
struct PairingDesk {
    /// A request waiting here for an admin.
    struct Pending {
        var request: PairRequest
        /// The socket that asked last. Held weakly: a request outlives its socket, and a closed
        /// socket's buffers are not kept for the request's five minutes.
        weak var connection: ServerConnection?
        /// The address the request came from (counted against the per-address cap).
        var address: String?
        var expiry: Task<Void, Never>

        init(request: PairRequest, connection: ServerConnection, expiry: Task<Void, Never>) {
            self.request = request
            self.connection = connection
            self.address = connection.remoteAddress
            self.expiry = expiry
        }

        /// The socket to answer on, when the device has one open.
        var openConnection: ServerConnection? {
            guard let connection, !connection.isClosed else { return nil }
            return connection
        }
    }

    /// Requests waiting here, by device.
    private(set) var local: [String: Pending] = [:]
    /// Requests waiting on other nodes: their `pair_approval_request`, by device.
    private var remote: [String: ServerFrame] = [:]
    /// Decisions taken here whose outcome is still being written to the store, by device, with the
    /// `pair_request`s that wait for it (their answer is in the store once it is written).
    private var deciding: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// How many requests wait, here and on other nodes (a request waits on one node only).
    var count: Int { local.count + remote.count }

    /// The request of `deviceID` waiting here, if any.
    func pending(_ deviceID: String) -> Pending? { local[deviceID] }

    /// Whether the request of `deviceID` waits on another node.
    func waitsElsewhere(_ deviceID: String) -> Bool { remote[deviceID] != nil }

    /// How many requests wait here from `address`.
    func count(from address: String) -> Int {
        local.values.count { $0.address == address }
    }

    /// Records a request waiting here, or the newer socket of one already waiting here; a request
    /// that waited on another node has moved here.
    mutating func wait(_ pending: Pending) {
        let deviceID = pending.request.deviceId.rawValue
        remote[deviceID] = nil
        local[deviceID] = pending
    }

    /// Removes the request of `deviceID` waiting here and stops its expiry.
    mutating func resolve(_ deviceID: String) -> Pending? {
        guard let pending = local.removeValue(forKey: deviceID) else { return nil }
        pending.expiry.cancel()
        return pending
    }

    /// Removes the request of `deviceID` waiting here for an admin's decision, and notes the
    /// decision as under way until ``decisionStored(_:)``.
    mutating func takeForDecision(_ deviceID: String) -> Pending? {
        guard let pending = resolve(deviceID) else { return nil }
        deciding[deviceID] = []
        return pending
    }

    /// Whether a decision on `deviceID` is under way: its outcome is not in the store yet.
    func isBeingDecided(_ deviceID: String) -> Bool { deciding[deviceID] != nil }

    /// How many `pair_request`s wait for the decision on `deviceID` to be stored.
    func waitsForDecision(_ deviceID: String) -> Int { deciding[deviceID]?.count ?? 0 }

    /// Resumes `continuation` once the decision on `deviceID` is stored (at once when none is
    /// under way).
    mutating func waitForDecision(_ deviceID: String, _ continuation: CheckedContinuation<Void, Never>) {
        guard deciding[deviceID] != nil else { return continuation.resume() }
        deciding[deviceID]?.append(continuation)
    }

    /// Ends the decision on `deviceID` (its outcome is stored, or storing it failed) and resumes
    /// the requests that waited for it.
    mutating func decisionStored(_ deviceID: String) {
        for continuation in deciding.removeValue(forKey: deviceID) ?? [] { continuation.resume() }
    }

    /// Removes every request waiting here; returns them.
    mutating func resolveAll() -> [Pending] {
        defer { local.removeAll() }
        for pending in local.values { pending.expiry.cancel() }
        return Array(local.values)
    }

    /// Records a request waiting on another node. A request that waited here has moved there
    /// (its device asked again on that node): it is forgotten here without an answer. Returns
    /// whether the request was known already, here or elsewhere (admins were asked then).
    mutating func waitElsewhere(_ deviceID: String, approvalRequest: ServerFrame) -> Bool {
        let movedAway = resolve(deviceID) != nil
        let known = remote.updateValue(approvalRequest, forKey: deviceID) != nil
        return movedAway || known
    }

    /// Forgets a request that waited on another node; returns whether there was one.
    @discardableResult
    mutating func resolvedElsewhere(_ deviceID: String) -> Bool {
        remote.removeValue(forKey: deviceID) != nil
    }

    /// The `pair_approval_request` of every waiting request, here and elsewhere, by device id.
    var approvalRequests: [ServerFrame] {
        let here = local.mapValues(\.request.approvalRequest)
        return here.merging(remote) { mine, _ in mine }.sorted { $0.key < $1.key }.map(\.value)
    }
}
