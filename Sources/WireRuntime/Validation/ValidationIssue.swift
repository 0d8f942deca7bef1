/// What a peer answers when a frame breaks a rule: the spec's error code (or nothing) and whether
/// the connection closes.
public struct ViolationAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The error code sent in an `error` frame, e.g. `invalid_message`; `nil` when nothing is sent
    /// and the connection just closes (Clawline's answer to a frame that is not JSON).
    public var code: String?
    /// Whether the connection closes after the answer.
    public var closesConnection: Bool
    /// The WebSocket close code when it closes.
    public var closeCode: Int?

    /// An answer that sends an `error` frame with `code`, then closes the connection or not.
    public init(code: String, closesConnection: Bool = false, closeCode: Int? = nil) {
        self.code = code
        self.closesConnection = closesConnection
        self.closeCode = closeCode
    }

    /// An answer that sends nothing and closes the connection with `closeCode`.
    public static func closeSilently(closeCode: Int?) -> ViolationAnswer {
        var answer = ViolationAnswer(code: "", closesConnection: true, closeCode: closeCode)
        answer.code = nil
        return answer
    }

    /// Whether the answer sends an `error` frame.
    public var sendsError: Bool { code != nil }

    /// `invalid_message`, `invalid_message, close 1008`, or `no error, close 1002`.
    public var description: String {
        let sent = code ?? "no error"
        return closesConnection ? "\(sent), close \(closeCode.map(String.init) ?? "")" : sent
    }
}

/// One problem found in a frame.
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible {
    /// How serious an issue is.
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The frame breaks the protocol; it must be rejected.
        case error
        /// The frame is accepted, but something is worth knowing (for example an unknown value of an open enum).
        case warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .error && rhs == .warning }
    }

    public var severity: Severity
    /// Where in the frame the problem is.
    public var path: JSONPath
    /// The rule that was broken: `required`, `type`, `const`, `maxBytes`, `format`, `enum`, `conditional`, ...
    public var rule: String
    /// What the receiver answers.
    public var answer: ViolationAnswer
    /// What is wrong, in words.
    public var message: String

    public init(severity: Severity = .error, path: JSONPath, rule: String, answer: ViolationAnswer, message: String) {
        self.severity = severity
        self.path = path
        self.rule = rule
        self.answer = answer
        self.message = message
    }

    /// The spec's error code for this issue; the rule's name when its answer sends no error (a
    /// spec only lets frame-level answers, never a field's, close without one).
    public var code: String { answer.code ?? rule }

    /// `error $.content: ... [payload_too_large]`.
    public var description: String { "\(severity.rawValue) \(path): \(message) [\(code)]" }
}

extension Array where Element == ValidationIssue {
    /// The issues that make a frame invalid.
    public var errors: [ValidationIssue] { filter { $0.severity == .error } }

    /// The issues that do not.
    public var warnings: [ValidationIssue] { filter { $0.severity == .warning } }

    /// What to answer a frame with these issues: the first error's code, closing the connection when
    /// any error's rule closes it (with that error's close code). `nil` when there is no error.
    public var answer: ViolationAnswer? {
        let errors = self.errors
        guard var answer = errors.first?.answer else { return nil }
        if !answer.closesConnection, let closing = errors.first(where: { $0.answer.closesConnection }) {
            answer.closesConnection = true
            answer.closeCode = closing.answer.closeCode
        }
        return answer
    }
}
