import ClawlineProtocol
import Foundation
import JWTKit

/// The claims of a Clawline token.
public struct DeviceClaims: JWTPayload {
    /// The account (`sub`).
    public var sub: SubjectClaim
    /// The device the token was issued to.
    public var deviceId: String
    /// Whether the device is an admin.
    public var isAdmin: Bool
    /// When the token was issued.
    public var iat: IssuedAtClaim
    /// When the token expires.
    public var exp: ExpirationClaim

    /// Expiry is checked against the server's clock by ``TokenAuthority``, not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The account's id.
    public var userID: String { sub.value }
}

/// Why a token was not accepted.
public enum TokenRejection: Error, Sendable, Hashable {
    /// Not a token, a wrong signature, a missing claim, or a token of another device.
    case invalid
    /// The token's lifetime is over.
    case expired
}

/// Issues and checks the HS256 tokens of paired devices, with a key kept in the data directory.
public struct TokenAuthority: Sendable {
    private let keys: JWTKeyCollection
    /// How long a token is valid (the spec's `tokenLifetime`, one year).
    public var lifetime: Duration

    /// An authority signing with `key`, which must be at least 32 bytes (HMAC-SHA256 wants as many).
    public init(key: [UInt8], lifetime: Duration = Clawline.Constants.tokenLifetime) async throws(ServerSetupError) {
        guard key.count >= 32 else { throw ServerSetupError("the signing key has \(key.count) bytes; HS256 needs at least 32") }
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: key), digestAlgorithm: .sha256)
        self.lifetime = lifetime
    }

    /// Reads the signing key at `path`, creating a random one the first time (mode 0600 from the
    /// start). A key file that is there but cannot be read is an error, never replaced: a new key
    /// would void every device's token.
    public static func loadOrCreateKey(at path: String) throws(ServerSetupError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        if try PrivateFile.create(at: path, contents: key) { return key }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerSetupError(
                "the signing key \(path) exists but cannot be read; give the server's user read access to it "
                    + "(replacing it would void every device's token)")
        }
        guard data.count >= 32 else { throw ServerSetupError("the signing key \(path) has \(data.count) bytes; it needs at least 32") }
        return [UInt8](data)
    }

    /// A token for a device, issued at `now`.
    public func issue(userID: String, deviceID: String, isAdmin: Bool, now: Date) async throws -> String {
        let claims = DeviceClaims(
            sub: SubjectClaim(value: userID), deviceId: deviceID, isAdmin: isAdmin, iat: IssuedAtClaim(value: now),
            exp: ExpirationClaim(value: now.addingTimeInterval(TimeInterval(lifetime.components.seconds))))
        return try await keys.sign(claims)
    }

    /// The claims of `token` when it is genuine, unexpired at `now` and issued to `deviceID`.
    public func verify(_ token: String, deviceID: String, now: Date) async throws(TokenRejection) -> DeviceClaims {
        let claims = try await verify(token, now: now)
        guard claims.deviceId == deviceID else { throw .invalid }
        return claims
    }

    /// The claims of `token` when it is genuine and unexpired at `now` (a bearer token names its device).
    public func verify(_ token: String, now: Date) async throws(TokenRejection) -> DeviceClaims {
        let claims: DeviceClaims
        do {
            claims = try await keys.verify(token, as: DeviceClaims.self)
        } catch {
            throw .invalid
        }
        guard !claims.sub.value.isEmpty, !claims.deviceId.isEmpty else { throw .invalid }
        guard claims.exp.value > now else { throw .expired }
        return claims
    }
}
