/// A frame that breaks a rule across the frames of a session, as ``SessionMachine`` reports it.
public struct SessionViolation: Sendable, Hashable, CustomStringConvertible {
    /// The kind of rule that was broken.
    public enum Rule: String, Sendable, Hashable {
        /// The frame is not allowed in the session's phase.
        case phase
        /// The frame needs a flag that is false.
        case `guard`
        /// The frame answers nothing the other side sent.
        case correlation
        /// The frame repeats a key it may not repeat, or repeats it differently.
        case uniqueness
        /// The frame breaks a run of frames that must follow another, or the run ended short.
        case run
        /// The frame takes its sender over a rate limit, or the limit cannot be judged.
        case rateLimit
    }

    public var severity: ValidationIssue.Severity
    public var rule: Rule
    /// The name of the broken rule in the spec (`admin_decides`, `message`, ...); the phase's name for a phase rule.
    public var ruleName: String
    /// The spec's error code where the rule names one, else the rule's name.
    public var code: String
    /// What the receiver answers, when the rule says; `nil` for a rule on frames nobody answers.
    public var answer: ViolationAnswer?
    /// Where in the frame, when it concerns one field.
    public var path: JSONPath?
    /// What is wrong, in words.
    public var message: String

    public init(
        severity: ValidationIssue.Severity = .error, rule: Rule, ruleName: String, code: String, answer: ViolationAnswer?, path: JSONPath? = nil,
        message: String
    ) {
        self.severity = severity
        self.rule = rule
        self.ruleName = ruleName
        self.code = code
        self.answer = answer
        self.path = path
        self.message = message
    }

    /// `error rateLimit: breaks the rate limit 'message': ... [rate_limited]`.
    public var description: String { "\(severity.rawValue) \(rule.rawValue): \(message) [\(code)]" }
}
