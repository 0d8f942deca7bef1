import Foundation

/// A message of one direction, as session rules and rate limits name it.
public struct FrameKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Who sends the message.
    public var direction: FrameDirection
    /// The message's tag.
    public var tag: String
    /// The message `tag` of `direction`.
    public init(_ direction: FrameDirection, _ tag: String) {
        self.direction = direction
        self.tag = tag
    }
    /// The message `tag` of `direction`.
    public init(direction: FrameDirection, tag: String) {
        self.init(direction, tag)
    }
    /// `client message`.
    public var description: String { "\(direction.rawValue) \(tag)" }
}

/// Whether an error code closes the connection.
public enum CloseBehavior: String, Sendable, Hashable, Codable {
    /// The connection always closes after this error.
    case always
    /// The connection stays open.
    case never
    /// It depends on the rule that was broken; each answer says.
    case sometimes
}

/// Who a rate limit applies to: a word from the spec, with the common ones named.
public struct RateLimitScope: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Each connection counts on its own.
    public static let connection = RateLimitScope(rawValue: "connection")
    /// Each device counts on its own, across its connections.
    public static let device = RateLimitScope(rawValue: "device")

    public var description: String { rawValue }

    /// Decodes the scope's word.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the scope as its word.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A rate limit of a protocol: at most `limit` counted events per `window` (sliding), or at most
/// `limit` outstanding at once when there is no window. `ErrorCode` is the protocol's generated
/// error code enum.
public struct RateLimitRule<ErrorCode: Sendable & Hashable>: Sendable, Hashable {
    /// What a limit counts.
    public enum Counted: Sendable, Hashable {
        /// Frames of these messages.
        case frames([FrameKey])
        /// Answers with these error codes.
        case violations([ErrorCode])
    }

    public var name: String
    public var counts: Counted
    public var limit: Int
    /// The sliding window; `nil` for a capacity limit.
    public var window: Duration?
    /// Who the limit applies to.
    public var scope: RateLimitScope
    /// What the frame that breaks the limit is answered with; `nil` for a limit on what the
    /// server sends (nobody answers the server: it must not send more).
    public var answer: ViolationAnswer?
    /// What a client should do.
    public var clientAction: String?

    public init(
        name: String, counts: Counted, limit: Int, window: Duration?, scope: RateLimitScope, answer: ViolationAnswer?, clientAction: String? = nil
    ) {
        self.name = name
        self.counts = counts
        self.limit = limit
        self.window = window
        self.scope = scope
        self.answer = answer
        self.clientAction = clientAction
    }
}

extension RateLimitRule where ErrorCode: RawRepresentable, ErrorCode.RawValue == String {
    /// The error code the breaking frame is answered with, as the protocol's enum.
    public var answerCode: ErrorCode? { answer?.code.flatMap(ErrorCode.init(rawValue:)) }
}

/// An HTTP method.
public enum HTTPMethod: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case head = "HEAD"
    case options = "OPTIONS"

    /// `GET`.
    public var description: String { rawValue }
}

/// An HTTP endpoint of a protocol. `ErrorCode` is the protocol's generated error code enum.
public struct HTTPEndpoint<ErrorCode: Sendable & Hashable>: Sendable, Hashable {
    public var name: String
    public var method: HTTPMethod
    /// The path template; `{name}` segments are parameters.
    public var path: String
    /// Whether requests carry `Authorization: Bearer <token>`.
    public var requiresBearerToken: Bool
    /// The error codes the endpoint answers with.
    public var errorCodes: [ErrorCode]

    public init(name: String, method: HTTPMethod, path: String, requiresBearerToken: Bool, errorCodes: [ErrorCode]) {
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
            result = result.replacingOccurrences(of: "{\(name)}", with: Self.percentEncoded(value))
        }
        return result
    }

    /// The path with its parameters filled in, then the query parameters that have a value, in
    /// the order given, each name and value percent-encoded: `/api/status?sessionKey=a%3Ab`.
    public func path(_ parameters: [String: String], query: KeyValuePairs<String, String?>) -> String {
        let items = query.compactMap { name, value in value.map { Self.percentEncoded(name) + "=" + Self.percentEncoded($0) } }
        let base = path(parameters)
        return items.isEmpty ? base : base + "?" + items.joined(separator: "&")
    }

    private static func percentEncoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    private static var unreserved: Set<UInt8> { unreservedBytes }
}

/// RFC 3986's unreserved characters, which path parameters keep as they are.
private let unreservedBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~".utf8)
