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
        Dictionary(counts.map { ("\($0.key.direction.rawValue) \($0.key.tag)", $0.value) }, uniquingKeysWith: +)
    }
    var counts: [MessageRef: Int] = [:]
    public var errorsByCode: [String: Int] = [:]
    public var warningsByCode: [String: Int] = [:]

    public var errorCount: Int { errorsByCode.values.reduce(0, +) }
    public var warningCount: Int { warningsByCode.values.reduce(0, +) }
}

/// Checks captured frames frame by frame and across each session, and keeps the summary.
public struct CaptureValidation {
    public let validator: FrameValidator
    public private(set) var summary = ValidationSummary()
    private let rules: SessionChecker.Rules
    private var sessions: [SessionKey: SessionState] = [:]

    private struct SessionKey: Hashable {
        var file: String
        var session: String
    }

    /// One session's frame count and rule state; a class so it is updated in place.
    private final class SessionState {
        var frames = 0
        var checker: SessionChecker
        init(checker: SessionChecker) { self.checker = checker }
    }

    public init(spec: ProtocolSpec) {
        validator = FrameValidator(spec: spec)
        rules = SessionChecker.Rules(spec: spec)
    }

    /// The direction of a bare frame from its tag, when exactly one direction has the tag.
    public func direction(ofTag tag: String) -> Direction? { validator.direction(ofTag: tag) }

    /// Checks one frame; returns its findings in order (frame issues, then session rules).
    public mutating func process(_ frame: CapturedFrame) -> [LocatedFinding] {
        let key = SessionKey(file: frame.file, session: frame.session)
        let state: SessionState
        if let existing = sessions[key] {
            state = existing
        } else {
            state = SessionState(checker: SessionChecker(rules: rules))
            sessions[key] = state
            summary.sessions += 1
        }
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
        let outcome: FrameValidator.Outcome
        switch frame.payload {
        case .json(let json): outcome = validator.check(json: json, direction: direction)
        case .text(let text): outcome = validator.check(Array(text.utf8), direction: direction)
        }
        switch outcome {
        case .notJSON(let error):
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "json", message: "the frame is not JSON: \(error)"), type: nil)
        case .notAFrame(let reason):
            add(Finding(code: validator.malformedFrameAnswer.code, rule: "frame", message: reason), type: nil)
        case .unknownType(let tag, _):
            summary.counts[MessageRef(direction: direction, tag: tag), default: 0] += 1
            add(Finding(code: validator.defaultAnswer.code, rule: "unknownType", message: "unknown \(direction.rawValue) message type '\(tag)'"), type: tag)
        case .checked(let tag, let object, let issues):
            summary.counts[MessageRef(direction: direction, tag: tag), default: 0] += 1
            for issue in issues { add(Finding(issue), type: tag) }
            let errors = issues.errors
            let sessionFindings = state.checker.observe(
                direction: direction, tag: tag, object: object, valid: errors.isEmpty,
                answeredCodes: errors.map(\.code), timestamp: frame.timestamp
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
