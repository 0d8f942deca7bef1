import WireRuntime

/// Rules across the frames of one connection, which tools can check on a captured session.
public struct SessionRules: Sendable, Hashable, Encodable {
    public var phases: [Phase]
    public var transitions: [Transition]
    public var flags: [Flag]
    public var guards: [Guard]
    public var correlations: [Correlation]
    public var uniqueness: [Uniqueness]
    public var runs: [Run]

    public init(
        phases: [Phase] = [], transitions: [Transition] = [], flags: [Flag] = [], guards: [Guard] = [], correlations: [Correlation] = [],
        uniqueness: [Uniqueness] = [], runs: [Run] = []
    ) {
        self.phases = phases
        self.transitions = transitions
        self.flags = flags
        self.guards = guards
        self.correlations = correlations
        self.uniqueness = uniqueness
        self.runs = runs
    }

    /// The phase a connection starts in.
    public var initialPhase: Phase? { phases.first { $0.initial } }

    /// The phase with a name.
    public func phase(named name: String) -> Phase? { phases.first { $0.name == name } }

    /// A connection phase and the frames each direction may send in it.
    public struct Phase: Sendable, Hashable, Encodable {
        public var name: String
        public var description: String?
        /// Whether connections start here (exactly one phase is initial).
        public var initial: Bool
        /// The tags each direction may send; a direction not listed may send nothing.
        public var allowedClient: [String]
        public var allowedServer: [String]
        /// How the server answers a client frame that is not allowed in this phase.
        public var otherwise: Answer?
        /// Client frames not allowed in this phase that get their own answer instead of `otherwise`, in the spec's order.
        public var otherwiseFor: [FrameAnswer]
        public var location: SourceLocation

        public init(
            name: String, description: String? = nil, initial: Bool = false, allowedClient: [String], allowedServer: [String],
            otherwise: Answer? = nil, otherwiseFor: [FrameAnswer] = [], location: SourceLocation
        ) {
            self.name = name
            self.description = description
            self.initial = initial
            self.allowedClient = allowedClient
            self.allowedServer = allowedServer
            self.otherwise = otherwise
            self.otherwiseFor = otherwiseFor
            self.location = location
        }

        /// How the server answers the client frame `tag` when this phase does not allow it.
        public func answer(toClient tag: String) -> Answer? {
            otherwiseFor.first { $0.tag == tag }?.answer ?? otherwise
        }

        /// A client frame with an answer of its own when the phase does not allow it.
        public struct FrameAnswer: Sendable, Hashable, Encodable {
            public var tag: String
            public var answer: Answer
            public var location: SourceLocation

            public init(tag: String, answer: Answer, location: SourceLocation) {
                self.tag = tag
                self.answer = answer
                self.location = location
            }
        }

        /// The tags `direction` may send in this phase.
        public func allowed(_ direction: Direction) -> [String] {
            direction == .client ? allowedClient : allowedServer
        }
    }

    /// A move to another phase after a frame, optionally setting flags from its fields.
    public struct Transition: Sendable, Hashable, Encodable {
        public var on: MessageRef
        /// The phases the transition applies in; empty means every phase.
        public var from: [String]
        public var when: [Condition]
        /// The phase the connection moves to.
        public var to: String
        /// Flags set from the frame: flag name → the field whose boolean value it takes.
        public var set: [FlagAssignment]
        /// When the move ends the connection, the WebSocket close code the sender of the frame closes with.
        public var closeCode: Int?
        public var description: String?
        public var location: SourceLocation

        public init(
            on: MessageRef, from: [String] = [], when: [Condition] = [], to: String, set: [FlagAssignment] = [], closeCode: Int? = nil,
            description: String? = nil, location: SourceLocation
        ) {
            self.on = on
            self.from = from
            self.when = when
            self.to = to
            self.set = set
            self.closeCode = closeCode
            self.description = description
            self.location = location
        }
    }

    /// Sets a flag from a boolean field of the frame that causes a transition. When the frame
    /// does not carry the field, the flag stays as it was (unknown until some frame sets it).
    public struct FlagAssignment: Sendable, Hashable, Encodable {
        public var flag: String
        public var field: String
        public init(flag: String, field: String) {
            self.flag = flag
            self.field = field
        }
    }

    /// A fact about a connection that is true, false or unknown; unknown until a transition sets it.
    public struct Flag: Sendable, Hashable, Encodable {
        public var name: String
        public var description: String?
        public var location: SourceLocation
        public init(name: String, description: String? = nil, location: SourceLocation) {
            self.name = name
            self.description = description
            self.location = location
        }
    }

    /// A frame that is only allowed while a flag is set (e.g. `pair_decision` only from an admin).
    /// A guard on a flag that is still unknown does not fire.
    public struct Guard: Sendable, Hashable, Encodable {
        public var name: String
        public var frame: MessageRef
        public var requires: String
        public var otherwise: Answer?
        public var description: String?
        public var location: SourceLocation
        public init(name: String, frame: MessageRef, requires: String, otherwise: Answer? = nil, description: String? = nil, location: SourceLocation)
        {
            self.name = name
            self.frame = frame
            self.requires = requires
            self.otherwise = otherwise
            self.description = description
            self.location = location
        }
    }

    /// A field whose value must equal a field of an earlier frame from the other (or same) side,
    /// e.g. `ack.id` answers an earlier client `message.id`.
    public struct Correlation: Sendable, Hashable, Encodable {
        public var name: String
        public var frame: MessageRef
        public var field: String
        public var answers: MessageRef
        public var answersField: String
        public var otherwise: Answer?
        /// Where the answered frame may have been sent: on this connection (the default), or by the
        /// same peer on a connection this one replaced.
        public var scope: Scope
        public var description: String?
        public var location: SourceLocation
        public init(
            name: String, frame: MessageRef, field: String, answers: MessageRef, answersField: String, otherwise: Answer? = nil,
            scope: Scope = .connection, description: String? = nil, location: SourceLocation
        ) {
            self.name = name
            self.frame = frame
            self.field = field
            self.answers = answers
            self.answersField = answersField
            self.otherwise = otherwise
            self.scope = scope
            self.description = description
            self.location = location
        }
    }

    /// Where a correlation's answered frame may have been sent: the runtime's scope.
    public typealias Scope = SessionRuleSet.CorrelationScope

    /// How a uniqueness rule compares the fields a repeated key must repeat: the runtime's comparison.
    public typealias Comparison = SessionRuleSet.Comparison

    /// A key that identifies a frame across a session.
    ///
    /// With `sameFields`, a repeated key must carry the same values in those fields (an idempotent
    /// retry), compared as `comparison` says. With `grows`, a repeat's value of each of those
    /// string fields must start with the previous frame's. With `final` conditions, once a frame
    /// matching them carried the key, no later frame may carry it again.
    public struct Uniqueness: Sendable, Hashable, Encodable {
        public var name: String
        public var frame: MessageRef
        public var key: String
        /// Fields a repeated key must repeat unchanged.
        public var sameFields: [String]
        /// How `sameFields` are compared.
        public var comparison: Comparison
        /// String fields whose value in a repeat extends the previous value.
        public var grows: [String]
        /// Conditions that mark a frame as final for its key.
        public var final: [Condition]
        public var otherwise: Answer?
        public var description: String?
        public var location: SourceLocation
        public init(
            name: String, frame: MessageRef, key: String, sameFields: [String] = [], comparison: Comparison = .exact, grows: [String] = [],
            final: [Condition] = [], otherwise: Answer? = nil, description: String? = nil, location: SourceLocation
        ) {
            self.name = name
            self.frame = frame
            self.key = key
            self.sameFields = sameFields
            self.comparison = comparison
            self.grows = grows
            self.final = final
            self.otherwise = otherwise
            self.description = description
            self.location = location
        }
    }

    /// A run of frames that must follow a frame: after `after` (when `when` holds), the next
    /// `count` frames from the sender of `frame` (the integer in `after`'s field `count`) are
    /// `frame` frames for which `each` holds, and no other frame of that sender comes between.
    /// Clawline's replay: `replayCount` `message` frames follow a successful `auth_result`.
    public struct Run: Sendable, Hashable, Encodable {
        public var name: String
        public var after: MessageRef
        public var when: [Condition]
        /// The integer field of `after` that says how many frames the run has.
        public var count: String
        public var frame: MessageRef
        public var each: [Condition]
        public var otherwise: Answer?
        public var description: String?
        public var location: SourceLocation
        public init(
            name: String, after: MessageRef, when: [Condition] = [], count: String, frame: MessageRef, each: [Condition] = [],
            otherwise: Answer? = nil, description: String? = nil, location: SourceLocation
        ) {
            self.name = name
            self.after = after
            self.when = when
            self.count = count
            self.frame = frame
            self.each = each
            self.otherwise = otherwise
            self.description = description
            self.location = location
        }
    }
}
