@_spi(Generated) import WireRuntime
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
    /// The checks of single frames, against the spec this validation was made with.
    public var validator: FrameValidator { checks.validator }
    /// The validator, held by reference: it holds the whole spec, and a value that large in this
    /// struct was copied for each frame checked (its methods are called while `self` is mutated).
    private let checks: Checks
    public private(set) var summary: ValidationSummary
    private let engine: SessionEngine
    /// `engine`, unretained: a new session's machine takes its own reference from it, and copying
    /// it counts none (a copy of `engine` was retained and released for every new session, and
    /// that release waited for the stores of the session just made).
    private let unretainedEngine: Unmanaged<SessionEngine>
    /// Per plan message id: the engine's number for the message.
    private let sessionIDs: [SessionEngine.MessageID]
    /// Sessions by file, then by session id.
    private var sessions: [String: SessionTable] = [:]
    /// The sessions of the file of the last frame, looked up once per file change.
    private var lastFile: String?
    private var lastFileSessions = SessionTable()
    /// The session of the last frame, in the file of the last frame. Unretained: the file's
    /// table holds the state, and no state leaves a table while these two point at it (both are
    /// cleared when the file changes and when the captures end), so finding the session of the
    /// next frame here counts no reference.
    private var lastState: Unmanaged<SessionState>?
    /// The session before the last frame's (in the same file): the one whose frames most often
    /// take turns with the last one's. Unretained, as `lastState` is.
    private var previousState: Unmanaged<SessionState>?

    private final class Checks: Sendable {
        let validator: FrameValidator
        init(_ validator: FrameValidator) { self.validator = validator }

        /// The checks of `frame`; called here, where the validator is used in place (reading it
        /// out of the class to call it would copy it, counting references to all it holds).
        func result(of frame: CapturedFrame) -> (CheckedFrame.Result, message: Int?) { validator.result(of: frame) }
    }

    /// One session's frame count and rule state; a class so it is updated in place.
    final class SessionState {
        /// The session's id, and its position among the sessions in the order they were first seen.
        let id: String
        let ordinal: Int
        // Unchecked: only the validation that owns a state reaches it, one access at a time (it
        // is not Sendable), so the run-time check of each access for overlap would find none.
        @exclusivity(unchecked) var frames = 0
        @exclusivity(unchecked) var machine: SessionMachine
        init(id: String, ordinal: Int, machine: SessionMachine) {
            self.id = id
            self.ordinal = ordinal
            self.machine = machine
        }

        /// What the session still owes (``SessionMachine/finish()``). Most sessions owe nothing,
        /// and that is read from one field of the machine in place: calling a method of the
        /// stored machine copied it (129 bytes, and a reference count for all it holds) for
        /// every session of the capture.
        func finish() -> [SessionViolation] { machine.owesFrames ? machine.finish() : [] }
    }

    /// The machines' clock, never read: a captured frame is checked at its own timestamp (or
    /// counts no rate limit without one). One closure for every session, so a new session reads
    /// no clock and allocates no closure context.
    private static let noClock: @Sendable () -> Duration = { .zero }

    public init(spec: ProtocolSpec) {
        let validator = FrameValidator(spec: spec)
        checks = Checks(validator)
        engine = SessionEngine(rules: spec.sessionRuleSet, rateLimits: spec.rateLimitRules)
        unretainedEngine = .passUnretained(engine)
        sessionIDs = validator.plan.messages.map { [engine] in engine.messageID(for: $0.ref) }
        summary = ValidationSummary(plan: validator.plan)
    }

    /// The direction of a bare frame from its tag, when exactly one direction has the tag.
    public func direction(ofTag tag: String) -> Direction? { validator.direction(ofTag: tag) }

    /// The state of `session` in `file`, made when the session is new; borrowed (the sessions
    /// table keeps it, and nothing is removed from the table while a frame is processed), so
    /// that finding it counts no reference for every frame.
    private mutating func state(file: String, session: String) -> Unmanaged<SessionState> {
        if file != lastFile {
            if let lastFile { sessions[lastFile] = lastFileSessions }
            lastFileSessions = sessions.removeValue(forKey: file) ?? SessionTable()
            lastFile = file
            lastState = nil
            previousState = nil
        }
        // A session's frames mostly follow one another: comparing the id with the last frame's
        // costs less than hashing it.
        if let lastState, lastState._withUnsafeGuaranteedRef({ $0.id == session }) { return lastState }
        // Two sessions taking turns (a device's connection and the next one, say) swap the two.
        if let previousState, previousState._withUnsafeGuaranteedRef({ $0.id == session }) {
            swap(&self.previousState, &self.lastState)
            return previousState
        }
        // One hash of the id, one lookup, and a new session inserted where the lookup ended.
        let (engine, ordinal) = (unretainedEngine, summary.sessions)
        let (state, created) = lastFileSessions.state(for: session) {
            SessionState(id: session, ordinal: ordinal, machine: SessionMachine(engine: engine.takeUnretainedValue(), now: Self.noClock))
        }
        if created { summary.sessions += 1 }
        previousState = lastState
        lastState = state
        return state
    }

    /// The phase the session machine of `session` (in `file`) is in after the frames checked so far.
    public func phase(file: String, session: String) -> String? {
        (file == lastFile ? lastFileSessions.state(for: session) : sessions[file]?.state(for: session))?
            ._withUnsafeGuaranteedRef { $0.machine.phase }
    }

    /// Checks one frame; returns its findings in order (frame issues, then session rules).
    public mutating func process(_ frame: CapturedFrame) -> [LocatedFinding] {
        // Checked in place: a `CheckedFrame` would hold a copy of the frame, counting references
        // to its tape and strings.
        let (result, message) = checks.result(of: frame)
        return process(frame, result, message: message)
    }

    /// Takes a frame whose own checks are done (``FrameValidator/check(_:)``, on any thread):
    /// applies its session's rules and counts it; returns its findings in order (frame issues,
    /// then session rules). Frames must come in capture order.
    public mutating func process(_ checked: CheckedFrame) -> [LocatedFinding] {
        process(checked.frame, checked.result, message: checked.message)
    }

    /// Applies the session's rules to a frame whose own checks found `result`, and counts it.
    private mutating func process(_ frame: CapturedFrame, _ result: CheckedFrame.Result, message: Int?) -> [LocatedFinding] {
        // The frame is read in place: a copy of it would count references to its tape and strings.
        state(file: frame.file, session: frame.session)._withUnsafeGuaranteedRef { state in
            process(frame, result, message: message, session: state)
        }
    }

    /// ``process(_:_:message:)`` for the frame of `state`'s session.
    private mutating func process(
        _ frame: CapturedFrame, _ result: CheckedFrame.Result, message: Int?, session state: SessionState
    ) -> [LocatedFinding] {
        state.frames += 1
        summary.frames += 1
        var evaluation = Evaluation(message: message)
        switch result {
        case .noDirection:
            evaluation.findings.append(
                (
                    Finding(
                        code: validator.notAFrameAnswer.code ?? "not_a_frame", rule: "direction",
                        message: "cannot tell who sent this frame; use an envelope with \"dir\" or --direction"), nil
                ))
        case .outcome(let outcome, let direction):
            evaluate(outcome, from: direction, of: frame, message: message, session: state, into: &evaluation)
        }
        if let message = evaluation.message { summary.countsByMessage[message] += 1 }
        if let unknown = evaluation.unknownType { summary.unknownTypes[unknown, default: 0] += 1 }
        guard !evaluation.findings.isEmpty else { return [] }
        return evaluation.findings.map { finding, type in
            count(finding)
            return LocatedFinding(
                file: frame.file, line: frame.line, session: frame.session, frame: state.frames, direction: frame.direction, type: type,
                finding: finding)
        }
    }

    /// What checking one frame found.
    private struct Evaluation {
        /// The plan's id of the frame's message, when its tag is known.
        var message: Int?
        /// `direction tag` of a frame whose tag the spec does not have.
        var unknownType: String?
        /// Findings and the message type they concern.
        var findings: [(Finding, String?)] = []
    }

    /// (`mutating`, though it changes nothing of `self`: a non-mutating call from the mutating
    /// `process` would copy `self` for it.)
    private mutating func evaluate(
        _ outcome: FrameCheckOutcome, from direction: Direction, of frame: CapturedFrame, message: Int?, session: SessionState,
        into evaluation: inout Evaluation
    ) {
        switch outcome {
        case .notJSON(let error):
            evaluation.findings.append((Self.notJSON(error, validator: validator), nil))
        case .notAFrame(let reason):
            evaluation.findings.append((Finding(code: validator.notAFrameAnswer.code ?? "not_a_frame", rule: "frame", message: reason), nil))
        case .unknownType(let tag):
            evaluation.unknownType = "\(direction.rawValue) \(tag)"
            evaluation.findings.append(
                (
                    Finding(
                        code: validator.defaultAnswer.code ?? "unknown_type", rule: "unknownType",
                        message: "unknown \(direction.rawValue) message type '\(tag)'"), tag
                ))
        case .checked(let tag, let issues):
            guard let message, case .parsed = frame.payload else { break }
            var errorCodes: [String] = []
            // Most frames have no issue and break no rule: their empty lists are not walked.
            if !issues.isEmpty {
                for issue in issues {
                    evaluation.findings.append((Finding(issue), tag))
                    if issue.severity == .error { errorCodes.append(issue.code) }
                }
            }
            let sessionFrame = sessionIDs[message]
            let violations =
                frame.payload.withParsedView { view, root in
                    session.machine.observe(
                        SessionFrame(message: sessionFrame, tape: view, object: root), answeredCodes: errorCodes,
                        atMilliseconds: frame.timestamp)
                } ?? []
            if !violations.isEmpty {
                for violation in violations { evaluation.findings.append((Finding(violation), tag)) }
            }
        }
    }

    /// The finding for bytes that are not JSON, under the spec's `notJSON` answer.
    private static func notJSON(_ error: JSONSyntaxError, validator: FrameValidator) -> Finding {
        Finding(code: validator.notJSONAnswer.code ?? "not_json", rule: "json", message: "the frame is not JSON: \(error)")
    }

    /// Adds a finding to the summary's counts by severity and code.
    private mutating func count(_ finding: Finding) {
        if finding.severity == .error {
            summary.errorsByCode[finding.code, default: 0] += 1
        } else {
            summary.warningsByCode[finding.code, default: 0] += 1
        }
    }

    /// Reports what each session still owed when the captures ended (a run cut short), in the
    /// order the sessions began. Call it once, after the last frame.
    public mutating func finish() -> [LocatedFinding] {
        if let lastFile { sessions[lastFile] = lastFileSessions }
        lastFile = nil
        lastFileSessions = SessionTable()
        lastState = nil
        previousState = nil
        // Most sessions owe nothing: ask each, and sort only the ones that do.
        var owing: [(file: String, state: SessionState, violations: [SessionViolation])] = []
        for (file, table) in sessions {
            for state in table.states {
                let violations = state.finish()
                if !violations.isEmpty { owing.append((file, state, violations)) }
            }
        }
        return owing.sorted { $0.state.ordinal < $1.state.ordinal }.flatMap { file, state, violations in
            violations.map { violation in
                let finding = Finding(violation)
                count(finding)
                return LocatedFinding(file: file, line: nil, session: state.id, frame: state.frames, direction: nil, type: nil, finding: finding)
            }
        }
    }

    /// Records a capture line or entry that holds no readable frame.
    public mutating func process(_ problem: CaptureProblem) -> LocatedFinding {
        summary.errorsByCode["capture", default: 0] += 1
        return LocatedFinding(
            file: problem.file, line: problem.line, session: problem.session ?? "", frame: nil, direction: nil, type: nil,
            finding: Finding(code: "capture", rule: "capture", message: problem.message))
    }
}
