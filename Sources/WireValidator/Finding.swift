@_spi(Generated) import WireRuntime
import WireSpec

/// One thing `wire validate` reports about a captured frame or session.
public struct Finding: Sendable, Hashable {
    public var severity: ValidationIssue.Severity
    /// The spec's error code where one applies, else the rule's name.
    public var code: String
    /// The rule: `required`, `maxBytes`, `phase`, `correlation`, `rateLimit`, `json`, ...
    public var rule: String
    /// Where in the frame, when it concerns one value.
    public var path: JSONPath?
    public var message: String

    public init(severity: ValidationIssue.Severity = .error, code: String, rule: String, path: JSONPath? = nil, message: String) {
        self.severity = severity
        self.code = code
        self.rule = rule
        self.path = path
        self.message = message
    }

    /// A finding from a frame issue. Messages that name their key already keep the path out.
    init(_ issue: ValidationIssue) {
        let namesItsKey =
            ["required", "conditional", "rejectedField", "unknownField"].contains(issue.rule)
            || (issue.rule == "type" && issue.message.hasPrefix("'"))
        let text = issue.path.components.isEmpty || namesItsKey ? issue.message : "\(issue.path): \(issue.message)"
        self.init(severity: issue.severity, code: issue.code, rule: issue.rule, path: issue.path, message: text)
    }

    /// A finding from a session rule's violation.
    init(_ violation: SessionViolation) {
        self.init(severity: violation.severity, code: violation.code, rule: violation.rule.rawValue, path: violation.path, message: violation.message)
    }
}
