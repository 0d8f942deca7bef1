/// Which socket each device uses on this node, by account: it owns registration (a new socket of
/// a device takes over the earlier one), fan-out to an account's sockets, and forgetting a socket.
/// The hub owns one and changes it only on its actor.
struct SocketRegistry {
    /// The authenticated socket of each device.
    private var sockets: [String: ServerConnection] = [:]
    /// The devices with a socket, by account (fan-out reads this, not every socket). An account has
    /// a few devices, so a list: one device's account holds one small array, not a hash table.
    private var devicesByAccount: [String: [String]] = [:]
    /// The devices registered since the maintenance last took them (see ``takeRecentlyRegistered()``).
    private var recentlyRegistered: Set<String> = []

    /// Makes `connection` the socket of `device`; returns the socket it replaces, if any.
    mutating func register(_ connection: ServerConnection, as device: AuthenticatedDevice) -> ServerConnection? {
        let previous = sockets.updateValue(connection, forKey: device.deviceID)
        if devicesByAccount[device.userID]?.contains(device.deviceID) != true {
            devicesByAccount[device.userID, default: []].append(device.deviceID)
        }
        recentlyRegistered.insert(device.deviceID)
        return previous === connection ? nil : previous
    }

    /// Forgets the socket of `deviceID` when it is `connection` (any socket when `nil`); returns
    /// the socket forgotten.
    @discardableResult
    mutating func forget(_ deviceID: String, ifItIs connection: ServerConnection? = nil) -> ServerConnection? {
        guard let socket = sockets[deviceID], connection == nil || socket === connection else { return nil }
        sockets[deviceID] = nil
        if let userID = socket.device?.userID {
            devicesByAccount[userID]?.removeAll { $0 == deviceID }
            if devicesByAccount[userID]?.isEmpty == true { devicesByAccount[userID] = nil }
        }
        return socket
    }

    /// Sends a live frame to every socket of an account on this node.
    func deliver(_ frame: OutboundFrame, to userID: String) {
        for deviceID in devicesByAccount[userID] ?? [] {
            sockets[deviceID]?.send(frame, live: true)
        }
    }

    /// The socket of a device, if it is connected here.
    func socket(of deviceID: String) -> ServerConnection? { sockets[deviceID] }

    /// Every socket, by device.
    var all: [String: ServerConnection] { sockets }

    /// The sockets of the devices registered since the last call (those still registered), and
    /// forgets them: what the maintenance has not looked up yet.
    mutating func takeRecentlyRegistered() -> [String: ServerConnection] {
        defer { recentlyRegistered.removeAll(keepingCapacity: true) }
        var taken: [String: ServerConnection] = [:]
        for deviceID in recentlyRegistered { taken[deviceID] = sockets[deviceID] }
        return taken
    }

    /// The sockets of admin devices.
    var admins: [ServerConnection] { sockets.values.filter { $0.device?.isAdmin == true } }

    /// How many sockets are registered.
    var count: Int { sockets.count }
}
