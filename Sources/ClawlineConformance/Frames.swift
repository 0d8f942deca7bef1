import WireRuntime

/// The client frames the cases send, as the contract spells them.
public enum Frames {
    /// `pair_request` for `deviceID`, claiming `name`.
    public static func pairRequest(deviceID: String, name: String = "conformance") -> JSONValue {
        [
            "type": "pair_request", "protocolVersion": 1, "deviceId": .string(deviceID), "claimedName": .string(name),
            "deviceInfo": ["platform": "clawline-conformance", "model": "suite", "appVersion": "1"],
        ]
    }

    /// `auth` for `device`, with `lastMessageId` when given.
    public static func auth(_ device: PairedDevice, lastMessageId: String? = nil) -> JSONValue {
        auth(deviceID: device.deviceID, token: device.token, lastMessageId: lastMessageId)
    }

    /// `auth` with any token and device id.
    public static func auth(deviceID: String, token: String, lastMessageId: String? = nil) -> JSONValue {
        var frame: [String: JSONValue] = ["type": "auth", "protocolVersion": 1, "token": .string(token), "deviceId": .string(deviceID)]
        if let lastMessageId { frame["lastMessageId"] = .string(lastMessageId) }
        return .object(frame)
    }

    /// `pair_decision` on `deviceID`; approving names the account `userID`.
    public static func decision(deviceID: String, approve: Bool, userID: String? = nil) -> JSONValue {
        var frame: [String: JSONValue] = ["type": "pair_decision", "deviceId": .string(deviceID), "approve": .bool(approve)]
        if let userID { frame["userId"] = .string(userID) }
        return .object(frame)
    }

    /// A chat `message` with `id` and `content`, and attachments when given.
    public static func message(id: String, content: String, attachments: [JSONValue]? = nil) -> JSONValue {
        var frame: [String: JSONValue] = ["type": "message", "id": .string(id), "content": .string(content)]
        if let attachments { frame["attachments"] = .array(attachments) }
        return .object(frame)
    }

    /// A user's `typing`.
    public static func typing(_ active: Bool) -> JSONValue { ["type": "typing", "active": .bool(active)] }

    /// A fresh client message id (`c_…`).
    public static func messageID(_ label: String) -> String { "c_\(label)-\(UInt32.random(in: 0...UInt32.max))" }
}
