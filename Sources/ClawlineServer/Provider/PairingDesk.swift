import ClawlineProtocol

/// The pairing requests this node knows of: those waiting here (with their socket and expiry)
/// and the `pair_approval_request` of those waiting on other nodes. What must outlive a socket
/// or a node (an undelivered token or denial, a token issued twice) is in the store. The hub
/// owns one and changes it only on its actor.
struct PairingDesk {
    /// A request waiting here for an admin.
    struct Pending {
        var request: PairRequest
        var connection: ServerConnection
        var expiry: Task<Void, Never>
    }

    /// Requests waiting here, by device.
    private(set) var local: [String: Pending] = [:]
    /// Requests waiting on other nodes: their `pair_approval_request`, by device.
    private var remote: [String: ServerFrame] = [:]

    /// How many requests wait, here and on other nodes.
    var count: Int { local.count + remote.count }

    /// The request of `deviceID` waiting here, if any.
    func pending(_ deviceID: String) -> Pending? { local[deviceID] }

    /// How many requests wait here on sockets from `address`.
    func count(from address: String) -> Int {
        local.values.count { $0.connection.remoteAddress == address }
    }

    /// Records a request waiting here (or its newer socket).
    mutating func wait(_ pending: Pending) {
        local[pending.request.deviceId.rawValue] = pending
    }

    /// Removes the request of `deviceID` waiting here and stops its expiry.
    mutating func resolve(_ deviceID: String) -> Pending? {
        guard let pending = local.removeValue(forKey: deviceID) else { return nil }
        pending.expiry.cancel()
        return pending
    }

    /// Removes every request waiting here on `connection`; returns their devices.
    mutating func drop(on connection: ServerConnection) -> [String] {
        let dropped = local.filter { $0.value.connection === connection }.map(\.key)
        for deviceID in dropped { _ = resolve(deviceID) }
        return dropped
    }

    /// Removes every request waiting here; returns them.
    mutating func resolveAll() -> [Pending] {
        defer { local.removeAll() }
        for pending in local.values { pending.expiry.cancel() }
        return Array(local.values)
    }

    /// Records a request waiting on another node.
    mutating func waitElsewhere(_ deviceID: String, approvalRequest: ServerFrame) {
        remote[deviceID] = approvalRequest
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
