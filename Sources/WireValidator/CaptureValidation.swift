import WireRuntime
import WireSpec

/// A finding with where it was found.
public struct LocatedFinding: Sendable {
    public var file: String
    public var line: Int?
    public var session: String
    /// The 1-based index of the frame within its session.
    public var frame: Int?
    public var direction: Direction?
    public var type: String?
    public var finding: Finding
}

/// Counts for the summary of a run.
public struct ValidationSummary: Sendable {
    public var sessions = 0
    public var frames = 0
    /// `client message` → count.
    public var framesByType: [String: Int] {
        var table = unknownTypes
        for (id, count) in countsByMessage.enumerated() where count > 0 {
            table[messageNames[id], default: 0] += count
        }
        return table
    }
    /// Frames per message id of the plan, and the names they print as.
    var countsByMessage: [Int]
    let messageNames: [String]
    /// Frames with tags the spec does not have, by `direction tag`.
    var unknownTypes: [String: Int] = [:]
    public var errorsByCode: [String: Int] = [:]
    public var warningsByCode: [String: Int] = [:]

    public var errorCount: Int { errorsByCode.values.reduce(0, +) }
    public var warningCount: Int { warningsByCode.values.reduce(0, +) }

    init(plan: ValidationPlan) {
        messageNames = plan.messages.map(\.ref.description)
        countsByMessage = Array(repeating: 0, count: plan.messages.count)
    }
}

/// Checks captured frames frame by frame and across each session, and keeps the summary.
public struct CaptureValidation {
    public let validator: FrameValidator
    public private(set) var summary: ValidationSummary
    private let rules: SessionChecker.Rules
    /// Sessions by file, then by session id.
    private var sessions: [String: [String: SessionState]] = [:]
    /// The sessions of the file of the last frame, looked up once per file change.
    private var lastFile: String?
    private var lastFileSessions: [String: SessionState] = [:]

    /// One session's frame count and rule state; a class so it is updated in place.
    private final class SessionState {
        var frames = 0
        var checker: SessionChecker
        init(checker: SessionChecker) { self.checker = checker }
    }

    public init(spec: ProtocolSpec) {
        validator = FrameValidator(spec: spec)
        rules = SessionChecker.Rules(spec: spec, plan: validator.plan)
        summary = ValidationSummary(plan: validator.plan)
    }

    /// The direction of a bare frame from its tag, when exactly one direction has the tag.
    public func direction(ofTag tag: String) -> Direction? { validator.direction(ofTag: tag) }

    private mutating func state(file: String, session: String) -> SessionState {
        if file != lastFile {
            if let lastFile { sessions[lastFile] = lastFileSessions }
            lastFileSessions = sessions.removeValue(forKey: file) ?? [:]
            lastFile = file
        }
        if let existing = lastFileSessions[session] { return existing }
        let created = SessionState(checker: SessionChecker(rules: rules))
        lastFileSessions[session] = created
        summary.sessions += 1
        return created
    }

    /// Checks one frame; returns its findings in order (frame issues, then session rules).
    public mutating func process(_ frame: CapturedFrame) -> [LocatedFinding] {
        let state = state(file: frame.file, session: frame.session)
        state.frames += 1
        summary.frames += 1
        let index = state.frames
        var located: [LocatedFinding] = []
        func add(_ finding: Finding, type: String?) {
            located.append(LocatedFinding(file: frame.file, line: frame.line, session: frame.session, frame: index, direction: frame.direction, type: type, finding: finding))
            if finding.severity == .error {
                summary.errorsByCode[finding.code, default: 0] += 1
            } else {
                summary.warningsByCode[finding.code, default: 0] += 1
            }
        }
        guard let direction = frame.direction else {
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "direction", message: "cannot tell who sent this frame; use an envelope with \"dir\" or --direction"), type: nil)
            return located
        }
        let tape: JSONTape, root: Int
        switch frame.payload {
        case .notJSON(let error):
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "json", message: "the frame is not JSON: \(error)"), type: nil)
            return located
        case .parsed(let document, let index):
            tape = document
            root = index
        }
        let (outcome, message) = validator.check(tape, at: root, direction: direction)
        switch outcome {
        case .notJSON(let error):
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "json", message: "the frame is not JSON: \(error)"), type: nil)
        case .notAFrame(let reason):
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "frame", message: reason), type: nil)
        case .unknownType(let tag):
            summary.unknownTypes["\(direction.rawValue) \(tag)", default: 0] += 1
            add(Finding(code: validator.defaultAnswer.code, rule: "unknownType", message: "unknown \(direction.rawValue) message type '\(tag)'"), type: tag)
        case .checked(let tag, let issues):
            guard let message else { break }
            summary.countsByMessage[message] += 1
            var errorCodes: [String] = []
            for issue in issues {
                add(Finding(issue), type: tag)
                if issue.severity == .error { errorCodes.append(issue.code) }
            }
            let sessionFindings = state.checker.observe(
                SessionChecker.Frame(message: validator.plan.messages[message], tape: tape, index: root),
                valid: errorCodes.isEmpty, answeredCodes: errorCodes, timestamp: frame.timestamp
            )
            for finding in sessionFindings { add(finding, type: tag) }
        }
        return located
    }

    /// Records a capture line or entry that holds no readable frame.
    public mutating func process(_ problem: CaptureProblem) -> LocatedFinding {
        summary.errorsByCode["capture", default: 0] += 1
        return LocatedFinding(file: problem.file, line: problem.line, session: problem.session ?? "", frame: nil, direction: nil, type: nil, finding: Finding(code: "capture", rule: "capture", message: problem.message))
    }
}
