import ClawlineProtocol
import Foundation

/// What went wrong in the client, with a message a person can act on.
public enum ClawlineClientError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The server speaks another protocol version: the app (or the server) must be updated.
    case updateRequired(serverVersion: Int)
    /// The server could not be reached or the socket failed before it opened.
    case connectionFailed(String)
    /// Nothing answered within the time the protocol allows.
    case timedOut(String)
    /// The server refused the token (`auth_failed`, `token_revoked`, `token_expired`): pair again.
    case authRejected(AuthFailureReason)
    /// The device is known but no admin has approved it yet.
    case deviceNotApproved
    /// Another connection of this device took over; reconnect only when the user asks.
    case sessionReplaced
    /// The server answered with a protocol error.
    case server(code: ErrorCode, message: String)
    /// An HTTP request failed: its status and the server's error, when it sent one.
    case http(status: Int, code: ErrorCode?, message: String)
    /// What the client was asked to send breaks the protocol's rules; nothing was sent.
    case invalidMessage(String)
    /// The client is not connected (or was stopped).
    case notConnected
    /// A stored file could not be read or written.
    case storage(String)
    /// No WebSocket transport is built for this platform (Linux without the trait `NIOTransport`).
    case transportUnavailable(String)

    public var description: String {
        switch self {
        case .updateRequired(let version):
            "The server speaks protocol version \(version) and this client speaks \(Clawline.Constants.protocolVersion): update the app."
        case .connectionFailed(let detail): "Could not connect: \(detail)."
        case .timedOut(let detail): "Timed out: \(detail)."
        case .authRejected(let reason): "The server refused this device's token (\(reason.rawValue)): pair the device again."
        case .deviceNotApproved: "This device is waiting for an admin to approve it."
        case .sessionReplaced: "This device connected elsewhere; reconnect here to take over again."
        case .server(let code, let message): "The server said \(code.rawValue): \(message)"
        case .http(let status, let code, let message): "HTTP \(status)\(code.map { " (\($0.rawValue))" } ?? ""): \(message)"
        case .invalidMessage(let detail): "Not sent: \(detail)"
        case .notConnected: "Not connected to the server."
        case .storage(let detail): "Storage failed: \(detail)"
        case .transportUnavailable(let detail): "Cannot connect: \(detail)."
        }
    }

    public var errorDescription: String? { description }

    /// Whether the stored token is no good and the device must pair again.
    public var requiresPairing: Bool {
        switch self {
        case .authRejected: true
        case .http(let status, _, _): status == 401 || status == 403
        default: false
        }
    }
}
