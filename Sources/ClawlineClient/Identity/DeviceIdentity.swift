import ClawlineProtocol
import Foundation

/// The stable identity of this device: a version 4 UUID created once and kept.
public protocol DeviceIdentifying: Sendable {
    /// The device's id, the same on every launch.
    var deviceId: DeviceId { get }
}

/// A device id given as is (tests, or an app that keeps it itself).
public struct FixedDeviceIdentity: DeviceIdentifying {
    public let deviceId: DeviceId

    /// An identity with `deviceId`.
    public init(deviceId: DeviceId) {
        self.deviceId = deviceId
    }
}

/// A device id created on first use and kept in a ``SecretStore`` (the keychain on Apple
/// platforms, a 0600 file elsewhere), so later launches reuse it.
public struct StoredDeviceIdentity: DeviceIdentifying {
    /// The name the id is stored under.
    public static let secretName = "device-id"

    public let deviceId: DeviceId

    /// Reads the id from `store`, creating and storing a new lowercase UUIDv4 when there is none
    /// (or when what is stored is not a UUID).
    public init(store: any SecretStore) throws {
        if let data = try store.read(Self.secretName), let text = String(data: data, encoding: .utf8),
            let uuid = UUID(uuidString: text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            deviceId = DeviceId(uuid.uuidString.lowercased())
            return
        }
        let id = UUID().uuidString.lowercased()
        try store.write(Data(id.utf8), as: Self.secretName)
        deviceId = DeviceId(id)
    }
}
