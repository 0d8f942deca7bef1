/// The rules across the frames of one connection, as data, for validators and peers to enforce.
public struct SessionRuleSet: Sendable, Hashable {
    /// A condition on a frame's field: the field equals one of `values`.
    public struct Condition: Sendable, Hashable {
        public var field: String
        public var values: [JSONValue]
        public init(_ field: String, _ values: [JSONValue]) {
            self.field = field
            self.values = values
        }

        /// Whether the condition holds for a frame's JSON object.
        public func holds(in object: [String: JSONValue]) -> Bool {
            guard let value = object[field] else { return false }
            return values.contains(value)
        }
    }

    /// A phase and the tags each direction may send in it.
    public struct Phase: Sendable, Hashable {
        public var name: String
        /// The tags the client may send, in the spec's order.
        public var allowedClient: [String]
        /// The tags the server may send, in the spec's order.
        public var allowedServer: [String]
        /// The answer to a client frame not allowed here.
        public var otherwise: ViolationAnswer?
        /// Client tags not allowed here whose answer is their own rather than `otherwise`.
        public var otherwiseFor: [String: ViolationAnswer]
        public init(
            name: String, allowedClient: [String], allowedServer: [String], otherwise: ViolationAnswer?,
            otherwiseFor: [String: ViolationAnswer] = [:]
        ) {
            self.name = name
            self.allowedClient = allowedClient
            self.allowedServer = allowedServer
            self.otherwise = otherwise
            self.otherwiseFor = otherwiseFor
        }

        /// The answer to the client frame `tag` when this phase does not allow it.
        public func answer(toClient tag: String) -> ViolationAnswer? {
            otherwiseFor[tag] ?? otherwise
        }

        /// Whether a direction may send a tag in this phase.
        public func allows(_ key: FrameKey) -> Bool {
            (key.direction == .client ? allowedClient : allowedServer).contains(key.tag)
        }
    }

    /// A move to another phase after a frame.
    public struct Transition: Sendable, Hashable {
        public var on: FrameKey
        /// The phases the transition applies in; empty means every phase.
        public var from: [String]
        public var when: [Condition]
        public var to: String
        /// Flags set from boolean fields: flag → field.
        public var setFlags: [String: String]
        public var closeCode: Int?
        public init(on: FrameKey, from: [String] = [], when: [Condition], to: String, setFlags: [String: String], closeCode: Int?) {
            self.on = on
            self.from = from
            self.when = when
            self.to = to
            self.setFlags = setFlags
            self.closeCode = closeCode
        }
    }

    /// A frame only allowed while a flag is set. Flags are unknown until a transition sets them,
    /// and a guard on an unknown flag does not fire.
    public struct Guard: Sendable, Hashable {
        public var name: String
        public var frame: FrameKey
        public var requiredFlag: String
        public var otherwise: ViolationAnswer?
        public init(name: String, frame: FrameKey, requiredFlag: String, otherwise: ViolationAnswer?) {
            self.name = name
            self.frame = frame
            self.requiredFlag = requiredFlag
            self.otherwise = otherwise
        }
    }

    /// A field that must equal a field of an earlier frame.
    public struct Correlation: Sendable, Hashable {
        public var name: String
        public var frame: FrameKey
        public var field: String
        public var answers: FrameKey
        public var answersField: String
        public var otherwise: ViolationAnswer?
        /// Where the answered frame may have been sent.
        public var scope: CorrelationScope
        public init(
            name: String, frame: FrameKey, field: String, answers: FrameKey, answersField: String, otherwise: ViolationAnswer?,
            scope: CorrelationScope = .connection
        ) {
            self.name = name
            self.frame = frame
            self.field = field
            self.answers = answers
            self.answersField = answersField
            self.otherwise = otherwise
            self.scope = scope
        }
    }

    /// Where the frame a correlation answers may have been sent.
    public enum CorrelationScope: String, Sendable, Hashable, Codable {
        /// Earlier on the same connection: a value that answers nothing seen is an error.
        case connection
        /// Earlier by the same peer, on this connection or on one it replaced. A checker sees one
        /// connection, so a value that answers nothing seen there is a warning it cannot confirm.
        case peer
    }

    /// How a uniqueness rule compares the fields a repeated key must repeat.
    public enum Comparison: String, Sendable, Hashable, Codable {
        /// As JSON values: member order and number spelling aside, the same value.
        case exact
        /// As JSON values, and also: absent, `null`, `[]` and `{}` are equal, and `base64` strings
        /// compare by their decoded bytes.
        case normalized
    }

    /// A key identifying frames across a session: retries must repeat `sameFields` (compared as
    /// `comparison` says), each repeat's `grows` fields extend the previous value, and nothing
    /// repeats a key after a `final` frame.
    public struct Uniqueness: Sendable, Hashable {
        public var name: String
        public var frame: FrameKey
        public var key: String
        public var sameFields: [String]
        public var comparison: Comparison
        /// String fields whose value in a repeat must start with the value of the previous frame with the key.
        public var grows: [String]
        public var final: [Condition]
        public var otherwise: ViolationAnswer?
        /// For `normalized` comparison: where the compared fields hold `base64` strings, which
        /// compare by their decoded bytes. Fields not listed compare as JSON.
        public var shapes: [String: ValueShape]
        public init(
            name: String, frame: FrameKey, key: String, sameFields: [String], comparison: Comparison = .exact, grows: [String] = [],
            final: [Condition], otherwise: ViolationAnswer?, shapes: [String: ValueShape] = [:]
        ) {
            self.shapes = shapes
            self.name = name
            self.frame = frame
            self.key = key
            self.sameFields = sameFields
            self.comparison = comparison
            self.grows = grows
            self.final = final
            self.otherwise = otherwise
        }
    }

    /// A run of frames that must follow a frame: after `after` (when `when` holds), the next
    /// `count` frames its sender sends (the integer in `after`'s field `countField`) are `frame`
    /// frames matching `each` (Clawline's replay after `auth_result`).
    public struct Run: Sendable, Hashable {
        public var name: String
        public var after: FrameKey
        public var when: [Condition]
        public var countField: String
        public var frame: FrameKey
        public var each: [Condition]
        public var otherwise: ViolationAnswer?
        public init(
            name: String, after: FrameKey, when: [Condition], countField: String, frame: FrameKey, each: [Condition], otherwise: ViolationAnswer?
        ) {
            self.name = name
            self.after = after
            self.when = when
            self.countField = countField
            self.frame = frame
            self.each = each
            self.otherwise = otherwise
        }
    }

    public var initialPhase: String?
    public var phases: [Phase]
    public var transitions: [Transition]
    public var flags: [String]
    public var guards: [Guard]
    public var correlations: [Correlation]
    public var uniqueness: [Uniqueness]
    public var runs: [Run]

    public init(
        initialPhase: String?, phases: [Phase], transitions: [Transition], flags: [String], guards: [Guard], correlations: [Correlation],
        uniqueness: [Uniqueness], runs: [Run] = []
    ) {
        self.initialPhase = initialPhase
        self.phases = phases
        self.transitions = transitions
        self.flags = flags
        self.guards = guards
        self.correlations = correlations
        self.uniqueness = uniqueness
        self.runs = runs
    }

    /// The phase with a name.
    public func phase(named name: String) -> Phase? { phases.first { $0.name == name } }
}
