import WireRuntime
import WireSpec

/// One check `wire probe` makes: frames sent in a phase, and the answer the spec states for them.
public struct ProbeCase: Sendable, Hashable {
    /// What a case checks.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A frame that breaks exactly one rule: the provider must give the rule's answer.
        case negative
        /// A valid frame generated from the spec: no error answer, and no close.
        case positive
        /// A rate limit: the frame past the limit gets the limit's answer.
        case rateLimit = "rate-limit"
    }

    /// A stable name: the message, the field or rule, and what was broken (`message.content maxBytes`).
    public var name: String
    /// What kind of check this is.
    public var kind: Kind
    /// The rule in words, as a report shows it.
    public var rule: String
    /// Where the spec states the rule.
    public var location: SourceLocation
    /// The phase the frames are sent in.
    public var phase: String
    /// The frames sent, in order (UTF-8 text; a not-JSON case sends bytes that are not JSON).
    public var frames: [String]
    /// The spec's answer to the last frame (`nil`: none, the frames are valid).
    public var expected: ViolationAnswer?
    /// The value the provider's error must name in the correlated field, when the spec correlates
    /// its error frame with the sent message (`error.messageId` naming `message.id`).
    public var correlatedID: String?
    /// Whether the rule is a limit of the provider that wrote the spec, not of the contract (a
    /// constant marked `providerLimit: true`): a provider without it gets a warning, not a failure.
    public var providerLimit: Bool

    /// A case.
    public init(
        name: String, kind: Kind, rule: String, location: SourceLocation, phase: String, frames: [String], expected: ViolationAnswer?,
        correlatedID: String? = nil, providerLimit: Bool = false
    ) {
        self.providerLimit = providerLimit
        self.name = name
        self.kind = kind
        self.rule = rule
        self.location = location
        self.phase = phase
        self.frames = frames
        self.expected = expected
        self.correlatedID = correlatedID
    }
}

/// A rule the probe found in the spec but cannot turn into a case, and why.
public struct ProbeGap: Sendable, Hashable {
    /// The rule (`message.messageBytes budget`).
    public var name: String
    /// Where the spec states it.
    public var location: SourceLocation
    /// Why no case checks it.
    public var reason: String

    /// A gap.
    public init(name: String, location: SourceLocation, reason: String) {
        self.name = name
        self.location = location
        self.reason = reason
    }
}

extension ViolationAnswer {
    /// The answer in words: `invalid_message`, `invalid_message, then close 1008`, `close 1002 silently`.
    var summary: String {
        switch (code, closesConnection) {
        case (let code?, false): return code
        case (let code?, true): return "\(code), then close \(closeCode.map(String.init) ?? "(any code)")"
        case (nil, _): return "close \(closeCode.map(String.init) ?? "(any code)") with no error"
        }
    }
}
