import ClawlineProtocol
import Foundation
import Observation

/// The device's authentication state, for views and view models.
@MainActor
public protocol AuthManaging: AnyObject, Observable {
    /// Whether the device holds a token.
    var isAuthenticated: Bool { get }
    /// The account of the device, once paired.
    var currentUserId: UserId? { get }
    /// The token to authenticate with.
    var token: String? { get }
    /// Everything pairing gave the device.
    var credentials: Credentials? { get }
    /// The token's claims (`isAdmin` decides whether approvals are shown).
    var claims: TokenClaims? { get }

    /// Keeps the credentials pairing returned.
    func storeCredentials(_ credentials: Credentials)
    /// Forgets the token: the device returns to pairing.
    func clearCredentials()
}

extension AuthManaging {
    /// Whether the token says the device is an admin.
    public var isAdmin: Bool { claims?.isAdmin ?? false }

    /// Clears the credentials when `error` means the token is no good (`auth_failed`,
    /// `token_revoked`, `token_expired`, HTTP 401/403); returns whether it did.
    @discardableResult
    public func clearCredentialsIfRejected(by error: ClawlineClientError) -> Bool {
        guard error.requiresPairing else { return false }
        clearCredentials()
        return true
    }
}

/// The default ``AuthManaging``: credentials kept in a ``CredentialStore`` (the keychain on Apple
/// platforms, a 0600 file elsewhere).
@Observable
@MainActor
public final class AuthManager: AuthManaging {
    public private(set) var credentials: Credentials?
    /// The last storage failure, if any (the state in memory stays usable).
    public private(set) var storageError: ClawlineClientError?
    @ObservationIgnored private let store: CredentialStore

    /// Loads the stored credentials.
    public init(store: CredentialStore) {
        self.store = store
        do {
            credentials = try store.load()
        } catch {
            storageError = error as? ClawlineClientError ?? .storage("\(error)")
        }
    }

    public var isAuthenticated: Bool { credentials != nil }
    public var currentUserId: UserId? { credentials?.userId }
    public var token: String? { credentials?.token }
    public var claims: TokenClaims? { credentials?.claims }

    public func storeCredentials(_ credentials: Credentials) {
        self.credentials = credentials
        record { try store.save(credentials) }
    }

    public func clearCredentials() {
        credentials = nil
        record { try store.clear() }
    }

    private func record(_ body: () throws -> Void) {
        do {
            try body()
            storageError = nil
        } catch {
            storageError = error as? ClawlineClientError ?? .storage("\(error)")
        }
    }
}
