import WireRuntime

/// An error code of the protocol.
public struct ErrorCode: Sendable, Hashable, Encodable {
    /// The code on the wire, e.g. `invalid_message`.
    public var code: String
    public var description: String?
    /// The HTTP status that carries this code on HTTP endpoints.
    public var httpStatus: Int?
    /// Whether the connection closes.
    public var closes: CloseBehavior
    /// The WebSocket close code used when the connection closes for this error.
    public var closeCode: Int?
    /// What a client should do when it receives this code.
    public var clientAction: String?
    public var location: SourceLocation

    public init(
        code: String, description: String? = nil, httpStatus: Int? = nil, closes: CloseBehavior = .never, closeCode: Int? = nil,
        clientAction: String? = nil, location: SourceLocation
    ) {
        self.code = code
        self.description = description
        self.httpStatus = httpStatus
        self.closes = closes
        self.closeCode = closeCode
        self.clientAction = clientAction
        self.location = location
    }
}

/// A rate limit: at most `limit` events per `window` (a sliding window) per `scope`, or, without
/// a window, at most `limit` outstanding at once.
public struct RateLimit: Sendable, Hashable, Encodable {
    /// What is counted.
    public enum Counted: Sendable, Hashable, Encodable {
        /// Frames of these messages.
        case frames([MessageRef])
        /// Violations answered with these error codes.
        case violations([String])
    }

    public var name: String
    public var description: String?
    public var counts: Counted
    public var limit: Int
    /// The sliding window in milliseconds; `nil` for a capacity limit.
    public var windowMilliseconds: Int?
    /// Who the limit applies to, e.g. `device`.
    public var scope: RateLimitScope
    /// What the server answers to the frame that breaks the limit; `nil` for a limit that counts
    /// only server frames (the server must not send more; nobody answers it).
    public var answer: Answer?
    /// What a client should do.
    public var clientAction: String?
    public var location: SourceLocation

    public init(
        name: String, description: String? = nil, counts: Counted, limit: Int, windowMilliseconds: Int?, scope: RateLimitScope, answer: Answer?,
        clientAction: String? = nil, location: SourceLocation
    ) {
        self.name = name
        self.description = description
        self.counts = counts
        self.limit = limit
        self.windowMilliseconds = windowMilliseconds
        self.scope = scope
        self.answer = answer
        self.clientAction = clientAction
        self.location = location
    }
}

/// A named protocol constant shared by clients and servers.
public struct Constant: Sendable, Hashable, Encodable {
    /// What kind of quantity a constant is.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// A duration, stored in milliseconds.
        case duration
        /// A size in bytes.
        case bytes
        /// A count of things.
        case count
        /// A plain number.
        case number
        /// A string.
        case string
    }

    public var name: String
    public var description: String?
    public var kind: Kind
    /// The value: milliseconds for durations, bytes for sizes, the number or string otherwise.
    public var value: SpecValue
    /// The value as written in the spec (e.g. `30s`, `100MiB`).
    public var written: String
    /// Whether the constant is a limit of the provider that wrote the spec rather than a rule of
    /// the contract (`providerLimit: true`): checkers report a provider without it as a warning.
    public var providerLimit: Bool
    public var location: SourceLocation

    public init(
        name: String, description: String? = nil, kind: Kind, value: SpecValue, written: String, providerLimit: Bool = false,
        location: SourceLocation
    ) {
        self.name = name
        self.providerLimit = providerLimit
        self.description = description
        self.kind = kind
        self.value = value
        self.written = written
        self.location = location
    }
}
