/// A device the suite paired (or was given): its id, its token and its account.
public struct PairedDevice: Sendable, Hashable, Codable {
    /// The device's id (a version 4 UUID).
    public var deviceID: String
    /// Its token, from `pair_result`.
    public var token: String
    /// Its account, from `pair_result` (empty when it is not known yet).
    public var userID: String

    /// A device.
    public init(deviceID: String, token: String, userID: String = "") {
        self.deviceID = deviceID
        self.token = token
        self.userID = userID
    }

    /// The first 8 characters of the id, for reports.
    public var shortID: String { String(deviceID.prefix(8)) }
}
