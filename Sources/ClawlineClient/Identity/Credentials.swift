import ClawlineProtocol
import Foundation

/// What pairing gave this device: the provider it paired with, its token and account.
public struct Credentials: Sendable, Hashable, Codable {
    /// The provider's base URL (`http://host:port`).
    public var serverURL: URL
    /// The device id the token was issued for.
    public var deviceId: DeviceId
    /// The JWT to authenticate with.
    public var token: String
    /// The account the device belongs to.
    public var userId: UserId

    /// Credentials as pairing returned them.
    public init(serverURL: URL, deviceId: DeviceId, token: String, userId: UserId) {
        self.serverURL = serverURL
        self.deviceId = deviceId
        self.token = token
        self.userId = userId
    }

    /// The claims the token carries (`nil` when it is not a readable JWT).
    public var claims: TokenClaims? { TokenClaims(token: token) }
}

/// Keeps the device's credentials in a ``SecretStore``.
public struct CredentialStore: Sendable {
    /// The name the credentials are stored under.
    public static let secretName = "credentials.json"
    private let store: any SecretStore

    /// Credentials kept in `store`.
    public init(store: any SecretStore) {
        self.store = store
    }

    /// The stored credentials, or `nil` when the device has not paired (or they were cleared).
    public func load() throws -> Credentials? {
        guard let data = try store.read(Self.secretName) else { return nil }
        do {
            return try JSONDecoder().decode(Credentials.self, from: data)
        } catch {
            throw ClawlineClientError.storage("the stored credentials are unreadable (\(error)); pair the device again")
        }
    }

    /// Stores `credentials`.
    public func save(_ credentials: Credentials) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try store.write(try encoder.encode(credentials), as: Self.secretName)
    }

    /// Removes the stored credentials.
    public func clear() throws {
        try store.remove(Self.secretName)
    }
}

/// The claims of a Clawline token, read without checking the signature (only the server can):
/// for the UI (whether the device is an admin), never for trust.
public struct TokenClaims: Sendable, Hashable {
    /// The account (`sub`).
    public var userId: UserId
    /// The device the token was issued for.
    public var deviceId: DeviceId
    /// Whether the device is an admin.
    public var isAdmin: Bool
    /// When the token was issued and when it expires.
    public var issuedAt: Date?
    public var expiresAt: Date?

    /// Reads the claims of a JWT; `nil` when it is not three base64url parts with a JSON payload
    /// carrying `sub` and `deviceId`.
    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Data(base64URL: String(parts[1])),
            let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let subject = object["sub"] as? String, let deviceId = object["deviceId"] as? String
        else { return nil }
        userId = UserId(subject)
        self.deviceId = DeviceId(deviceId)
        isAdmin = object["isAdmin"] as? Bool ?? false
        issuedAt = (object["iat"] as? Double).map(Date.init(timeIntervalSince1970:))
        expiresAt = (object["exp"] as? Double).map(Date.init(timeIntervalSince1970:))
    }
}

extension Data {
    /// Decodes base64url without padding (as JWTs carry it).
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
