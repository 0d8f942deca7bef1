/// A message of one direction, as session rules and rate limits name it.
public struct FrameKey: Sendable, Hashable, CustomStringConvertible {
    public var direction: FrameDirection
    public var tag: String
    public init(_ direction: FrameDirection, _ tag: String) {
        self.direction = direction
        self.tag = tag
    }
    /// `client message`.
    public var description: String { "\(direction.rawValue) \(tag)" }
}

/// Whether an error code closes the connection.
public enum CloseBehavior: String, Sendable, Hashable {
    case always
    case never
    /// The broken rule decides.
    case sometimes
}

/// A rate limit of a protocol: at most `limit` counted events per `window` (sliding), or at most
/// `limit` outstanding at once when there is no window.
public struct RateLimitRule: Sendable, Hashable {
    /// What a limit counts.
    public enum Counted: Sendable, Hashable {
        /// Frames of these messages.
        case frames([FrameKey])
        /// Answers with these error codes.
        case violations([String])
    }

    public var name: String
    public var counts: Counted
    public var limit: Int
    /// The sliding window; `nil` for a capacity limit.
    public var window: Duration?
    /// Who the limit applies to, e.g. `device`.
    public var scope: String
    /// What the frame that breaks the limit is answered with; `nil` for a limit on what the
    /// server sends (nobody answers the server: it must not send more).
    public var answer: ViolationAnswer?
    /// What a client should do.
    public var clientAction: String?

    public init(name: String, counts: Counted, limit: Int, window: Duration?, scope: String, answer: ViolationAnswer?, clientAction: String? = nil) {
        self.name = name
        self.counts = counts
        self.limit = limit
        self.window = window
        self.scope = scope
        self.answer = answer
        self.clientAction = clientAction
    }
}

/// An HTTP endpoint of a protocol.
public struct HTTPEndpoint: Sendable, Hashable {
    public var name: String
    public var method: String
    /// The path template; `{name}` segments are parameters.
    public var path: String
    /// Whether requests carry `Authorization: Bearer <token>`.
    public var requiresBearerToken: Bool
    /// The error codes the endpoint answers with.
    public var errorCodes: [String]

    public init(name: String, method: String, path: String, requiresBearerToken: Bool, errorCodes: [String]) {
        self.name = name
        self.method = method
        self.path = path
        self.requiresBearerToken = requiresBearerToken
        self.errorCodes = errorCodes
    }

    /// The path with its `{name}` parameters replaced by percent-encoded values (RFC 3986 unreserved characters stay).
    public func path(_ parameters: [String: String]) -> String {
        var result = path
        for (name, value) in parameters {
            var encoded = ""
            for byte in value.utf8 {
                if Self.unreserved.contains(byte) {
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    encoded += String(format: "%%%02X", byte)
                }
            }
            result = result.replacingOccurrences(of: "{\(name)}", with: encoded)
        }
        return result
    }

    private static let unreserved = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8)
}

import Foundation
