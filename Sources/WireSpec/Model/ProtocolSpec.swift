/// The JSON key convention of a protocol's wire format.
public enum KeyStyle: String, Sendable, Hashable, Encodable {
    /// `deviceId`, `lastMessageId`.
    case camelCase
    /// `device_id`, `last_seen_sequence`.
    case snakeCase = "snake_case"
    /// Each field as its wire names it, camelCase and snake_case side by side (`socket_sequence`
    /// beside `eventId`): letters, digits and `_`, not starting with a digit. Protocols described
    /// elsewhere (an imported AsyncAPI document) often mix the two.
    case mixed

    /// Whether a field name follows the style: camelCase is `[a-z][a-zA-Z0-9]*`, snake_case
    /// `[a-z][a-z0-9]*(_[a-z0-9]+)*`, mixed `[A-Za-z_][A-Za-z0-9_]*`. Checked byte by byte (a
    /// regular expression per field cost spec loading 13 million instructions).
    public func admits(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return false }
        func isLower(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        func isUpper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        let underscore = UInt8(ascii: "_")
        switch self {
        case .camelCase:
            return isLower(first) && bytes.dropFirst().allSatisfy { isLower($0) || isUpper($0) || $0.isASCIIDigit }
        case .snakeCase:
            // Words of lower-case letters and digits joined by single underscores, the first
            // starting with a letter.
            guard isLower(first), bytes.last != underscore else { return false }
            return zip(bytes, bytes.dropFirst()).allSatisfy { previous, byte in
                isLower(byte) || byte.isASCIIDigit || (byte == underscore && previous != underscore)
            }
        case .mixed:
            return (isLower(first) || isUpper(first) || first == underscore)
                && bytes.dropFirst().allSatisfy { isLower($0) || isUpper($0) || $0.isASCIIDigit || $0 == underscore }
        }
    }
}

/// How frames travel.
public struct Transport: Sendable, Hashable, Encodable {
    /// The transport kinds.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// Frames are WebSocket text messages.
        case websocket
        /// Server frames are Server-Sent Events; client frames are HTTP request bodies.
        case sse
        /// Frames are HTTP request and response bodies.
        case http
    }

    public var kind: Kind
    /// The endpoint path, e.g. `/ws`.
    public var path: String
    /// The HTTP method that opens the stream (for `sse` and `http`).
    public var method: String?
    /// The default port, if the protocol has one.
    public var defaultPort: Int?
    public var description: String?

    public init(kind: Kind, path: String, method: String? = nil, defaultPort: Int? = nil, description: String? = nil) {
        self.kind = kind
        self.path = path
        self.method = method
        self.defaultPort = defaultPort
        self.description = description
    }
}

/// The checked, immutable model of a protocol spec.
public struct ProtocolSpec: Sendable, Hashable, Encodable {
    /// A short machine name, e.g. `clawline`; generated module and type names derive from it.
    public var name: String
    /// A human title, e.g. `Clawline`.
    public var title: String
    /// The protocol version.
    public var version: Int
    public var description: String?
    public var keyStyle: KeyStyle
    /// The field every frame carries to say what message it is (default `type`).
    public var tagField: String
    public var transport: Transport
    /// The error code for a broken rule when nothing more specific is said.
    public var defaultErrorCode: String
    /// The error code for a broken size limit (`maxBytes`, `maxDecodedBytes`, `maxItems`, byte budgets).
    public var sizeErrorCode: String
    /// How a receiver answers bytes that are not JSON; `nil`: the default error code.
    public var notJSON: Answer?
    /// How a receiver answers JSON that is not an object with a string tag; `nil`: the default error code.
    public var notAFrame: Answer?
    /// What a client does with a server frame of a type it does not know.
    public var unknownServerFrames: UnknownFrames
    public var types: [NamedType]
    /// Messages of both directions in declaration order (client block, server block, then `both`).
    public var messages: [Message]
    public var errorCodes: [ErrorCode]
    public var rateLimits: [RateLimit]
    public var endpoints: [Endpoint]
    public var constants: [Constant]
    public var session: SessionRules?
    /// Sequences of frames drawn as diagrams in the docs.
    public var flows: [Flow]
    /// The file the spec was loaded from.
    public var sourceFile: String

    public init(
        name: String, title: String, version: Int, description: String? = nil, keyStyle: KeyStyle = .camelCase,
        tagField: String = "type", transport: Transport, defaultErrorCode: String, sizeErrorCode: String,
        notJSON: Answer? = nil, notAFrame: Answer? = nil, unknownServerFrames: UnknownFrames = .reject,
        types: [NamedType] = [], messages: [Message] = [], errorCodes: [ErrorCode] = [],
        rateLimits: [RateLimit] = [], endpoints: [Endpoint] = [], constants: [Constant] = [], session: SessionRules? = nil,
        flows: [Flow] = [], sourceFile: String
    ) {
        self.name = name
        self.title = title
        self.version = version
        self.description = description
        self.keyStyle = keyStyle
        self.tagField = tagField
        self.transport = transport
        self.defaultErrorCode = defaultErrorCode
        self.sizeErrorCode = sizeErrorCode
        self.notJSON = notJSON
        self.notAFrame = notAFrame
        self.unknownServerFrames = unknownServerFrames
        self.types = types
        self.messages = messages
        self.errorCodes = errorCodes
        self.rateLimits = rateLimits
        self.endpoints = endpoints
        self.constants = constants
        self.session = session
        self.flows = flows
        self.sourceFile = sourceFile
    }

    /// The messages one direction sends, in declaration order.
    public func messages(_ direction: Direction) -> [Message] { messages.filter { $0.direction == direction } }

    /// The message with a tag in a direction.
    public func message(_ ref: MessageRef) -> Message? {
        messages.first { $0.direction == ref.direction && $0.tag == ref.tag }
    }

    /// The named type with a name.
    public func type(named name: String) -> NamedType? { types.first { $0.name == name } }

    /// The error code entry for a code.
    public func errorCode(_ code: String) -> ErrorCode? { errorCodes.first { $0.code == code } }

    /// The name of the type a field uses to carry one of the spec's error codes: an open enum of
    /// the codes under `errors:`, which the loader adds to `types`.
    public static let errorCodeTypeName = "ErrorCode"

    /// The named types that are JSON bodies of HTTP endpoints (requests, responses, error bodies),
    /// in the order the endpoints name them.
    public var httpBodyTypeNames: [String] {
        var names: [String] = []
        for endpoint in endpoints {
            for body in [endpoint.request, endpoint.response.body] {
                if case .json(.named(let name))? = body, !names.contains(name) { names.append(name) }
            }
            if case .named(let name)? = endpoint.errorBody, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The answer to bytes that are not JSON, with the default filled in.
    public var notJSONAnswer: Answer { notJSON ?? Answer(errorCode: defaultErrorCode) }

    /// The answer to JSON that is not an object with a string tag, with the default filled in.
    public var notAFrameAnswer: Answer { notAFrame ?? Answer(errorCode: defaultErrorCode) }

    /// Whether an answer closes the connection, resolving "as the error code says".
    public func closes(_ answer: Answer) -> Bool {
        if let close = answer.close { return close }
        guard let code = answer.errorCode else { return true }
        return errorCode(code)?.closes == .always
    }
}

/// What a peer does with a frame whose type it does not know.
public enum UnknownFrames: String, Sendable, Hashable, Encodable, CaseIterable {
    /// It is a protocol error (the default): a server answers it with the default error code.
    case reject
    /// The peer drops it and goes on, so a newer peer may add frames of new types.
    case ignore
}
