import WireRuntime
import WireSpec

/// Checks the rules across the frames of one session, driven only by the spec's session rules and
/// rate limits: phases, transitions, guards, correlations, uniqueness and sliding-window limits.
struct SessionChecker {
    /// The spec's session rules and limits, indexed once by message id and shared by every session.
    final class Rules: Sendable {
        let session: SessionRules
        /// Per phase (by index), per message id: whether the message may be sent.
        let allowed: [[Bool]]
        let initialPhase: Int?
        /// Per message id: the rules that concern it.
        let guards: [[GuardPlan]]
        let correlations: [[Int]]
        let uniqueness: [[Int]]
        let transitions: [[TransitionPlan]]
        /// Every correlation and uniqueness rule; indexes above point here.
        let correlationPlans: [CorrelationPlan]
        let uniquenessPlans: [UniquenessPlan]
        /// Per message id: the windowed rate limits counting it (capacity limits cannot be judged from one session).
        let windowedByFrame: [[Int]]
        /// Windowed rate limits that count answers with error codes.
        let windowedByViolation: [Int]
        /// Every rate limit with a window; indexes above point here.
        let windowed: [WindowPlan]

        init(spec: ProtocolSpec, plan: ValidationPlan) {
            session = spec.session ?? SessionRules()
            let ids = Dictionary(plan.messages.map { ($0.ref, $0.id) }, uniquingKeysWith: { first, _ in first })
            let count = plan.messages.count
            func perMessage<T>(_ pairs: [(MessageRef, T)]) -> [[T]] {
                var table = Array(repeating: [T](), count: count)
                for (ref, item) in pairs { if let id = ids[ref] { table[id].append(item) } }
                return table
            }
            let phaseIndexes = Dictionary(session.phases.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            allowed = session.phases.map { phase in
                plan.messages.map { phase.allowed($0.ref.direction).contains($0.tag) }
            }
            initialPhase = session.phases.firstIndex { $0.initial }
            let flagIndexes = Dictionary(session.flags.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            guards = perMessage(session.guards.map { ($0.frame, GuardPlan($0, flags: flagIndexes)) })
            correlations = perMessage(session.correlations.enumerated().flatMap { index, rule in
                rule.frame == rule.answers ? [(rule.frame, index)] : [(rule.frame, index), (rule.answers, index)]
            })
            uniqueness = perMessage(session.uniqueness.enumerated().map { ($1.frame, $0) })
            transitions = perMessage(session.transitions.map { ($0.on, TransitionPlan($0, to: phaseIndexes[$0.to], flags: flagIndexes)) })
            correlationPlans = session.correlations.map { CorrelationPlan($0, ids: ids) }
            uniquenessPlans = session.uniqueness.map(UniquenessPlan.init)
            windowed = spec.rateLimits.filter { $0.windowMilliseconds != nil }.map(WindowPlan.init)
            var byFrame: [(MessageRef, Int)] = []
            var byViolation: [Int] = []
            for (index, window) in windowed.enumerated() {
                switch window.limit.counts {
                case .frames(let refs): byFrame += Set(refs).map { ($0, index) }
                case .violations: byViolation.append(index)
                }
            }
            windowedByFrame = perMessage(byFrame.sorted { $0.1 < $1.1 })
            windowedByViolation = byViolation
        }
    }

    private let rules: Rules
    private var phase: Int?
    private var flags = FlagSet()
    /// Hashes of values earlier frames carried, for correlations and uniqueness rules.
    private var memory = SessionMemory()
    private static let seenTable = 0, fingerprintTable = 1, finalizedTable = 2
    /// Per windowed rate limit, the timestamps (ms) still inside its window.
    private var windows: [SlidingWindow] = []
    private var saidNoTimestamps = false

    init(rules: Rules) {
        self.rules = rules
        phase = rules.initialPhase
    }

    /// Makes `table` long enough to hold `index`.
    private static func reserve<T>(_ table: inout [T], _ index: Int, empty: T) {
        if table.count <= index { table.append(contentsOf: repeatElement(empty, count: index + 1 - table.count)) }
    }

    /// A parsed frame of a known message, as the session rules read it.
    struct Frame {
        var message: ValidationPlan.MessagePlan
        var tape: JSONTape.View
        var index: Int

        /// The value of a top-level field.
        func value(_ key: UTF8Key) -> JSONValue? {
            tape.member(of: index, key: key.bytes).map { tape.value($0) }
        }

        /// A hash of a top-level field's value (see `JSONTape.View.valueHash`), or `nil` when it is absent.
        func hash(_ key: UTF8Key) -> Int? {
            tape.member(of: index, key: key.bytes).map { tape.valueHash($0) }
        }
    }

    /// Checks one frame of the session. `valid` says whether it passed its own checks;
    /// `answeredCodes` are the error codes of its issues (counted by violation-based rate limits);
    /// `timestamp` is in milliseconds.
    mutating func observe(_ frame: Frame, valid: Bool, answeredCodes: [String], timestamp: Double?) -> [Finding] {
        var findings: [Finding] = []
        let id = frame.message.id
        checkPhase(frame.message, into: &findings)
        for rule in rules.guards[id] where !flags.contains(rule.flagIndex) {
            findings.append(Finding(code: rule.code, rule: "guard", message: "only allowed while '\(rule.flag)' is set (\(rule.name))"))
        }
        if valid {
            checkCorrelations(frame, into: &findings)
            checkUniqueness(frame, into: &findings)
        }
        checkRateLimits(id, answeredCodes: answeredCodes, timestamp: timestamp, into: &findings)
        if valid { applyTransition(frame) }
        return findings
    }

    // MARK: Phases

    private func checkPhase(_ message: ValidationPlan.MessagePlan, into findings: inout [Finding]) {
        guard let phase, !rules.allowed[phase][message.id] else { return }
        let rule = rules.session.phases[phase]
        let direction = message.ref.direction
        let allowed = rule.allowed(direction)
        let list = allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")
        let code = direction == .client ? rule.otherwise?.errorCode ?? "phase" : "phase"
        findings.append(Finding(code: code, rule: "phase", message: "not allowed in phase '\(rule.name)', where the \(direction.rawValue) may send \(list)"))
    }

    private mutating func applyTransition(_ frame: Frame) {
        guard let match = rules.transitions[frame.message.id].first(where: { FieldCondition.allHold($0.when, in: frame.tape, at: frame.index) }) else { return }
        for assignment in match.set {
            if frame.value(assignment.field) == .bool(true) { flags.insert(assignment.flag) } else { flags.remove(assignment.flag) }
        }
        phase = match.to
    }

    // MARK: Correlations and uniqueness

    private mutating func checkCorrelations(_ frame: Frame, into findings: inout [Finding]) {
        for index in rules.correlations[frame.message.id] {
            let plan = rules.correlationPlans[index]
            let rule = plan.rule
            if plan.frame == frame.message.id, let hash = frame.hash(plan.field), !memory.contains(SessionMemory.key(table: Self.seenTable, rule: index, hash: hash)) {
                findings.append(Finding(
                    code: rule.otherwise?.errorCode ?? rule.name, rule: "correlation", path: JSONPath.root.appending(rule.field),
                    message: "'\(rule.field)' \(frame.value(plan.field) ?? .null) answers no earlier \(rule.answers) (\(rule.name))"
                ))
            }
            if plan.answers == frame.message.id, let hash = frame.hash(plan.answersField) {
                memory.set(SessionMemory.key(table: Self.seenTable, rule: index, hash: hash))
            }
        }
    }

    private mutating func checkUniqueness(_ frame: Frame, into findings: inout [Finding]) {
        for index in rules.uniqueness[frame.message.id] {
            let plan = rules.uniquenessPlans[index]
            let rule = plan.rule
            guard let keyHash = frame.hash(plan.key) else { continue }
            let key = { frame.value(plan.key) ?? .null }
            if !plan.sameFields.isEmpty {
                var hash = JSONTape.ValueHash()
                for field in plan.sameFields {
                    if let member = frame.tape.member(of: frame.index, key: field.bytes) {
                        hash.combine(1)
                        frame.tape.hash(member, into: &hash)
                    } else {
                        hash.combine(0)
                    }
                }
                let fingerprint = UInt64(bitPattern: Int64(hash.value))
                let slot = SessionMemory.key(table: Self.fingerprintTable, rule: index, hash: keyHash)
                if let earlier = memory.value(for: slot), earlier != fingerprint {
                    findings.append(Finding(
                        code: rule.otherwise?.errorCode ?? rule.name, rule: "uniqueness", path: JSONPath.root.appending(rule.key),
                        message: "reuses '\(rule.key)' \(key()) with a different \(rule.sameFields.joined(separator: " or ")) (\(rule.name))"
                    ))
                } else {
                    memory.set(slot, fingerprint)
                }
            }
            if !plan.final.isEmpty {
                let slot = SessionMemory.key(table: Self.finalizedTable, rule: index, hash: keyHash)
                if memory.contains(slot) {
                    findings.append(Finding(
                        code: rule.otherwise?.errorCode ?? rule.name, rule: "uniqueness", path: JSONPath.root.appending(rule.key),
                        message: "repeats '\(rule.key)' \(key()) after its final frame (\(rule.name))"
                    ))
                } else if FieldCondition.allHold(plan.final, in: frame.tape, at: frame.index) {
                    memory.set(slot)
                }
            }
        }
    }

    private mutating func checkRateLimits(_ id: Int, answeredCodes: [String], timestamp: Double?, into findings: inout [Finding]) {
        guard !rules.windowed.isEmpty else { return }
        guard let timestamp else {
            if !saidNoTimestamps {
                saidNoTimestamps = true
                findings.append(Finding(severity: .warning, code: "no_timestamps", rule: "rateLimit", message: "this session's frames carry no timestamps, so its rate limits are not checked"))
            }
            return
        }
        for limit in rules.windowedByFrame[id] {
            count(limit, at: timestamp, into: &findings)
        }
        guard !answeredCodes.isEmpty else { return }
        for limit in rules.windowedByViolation {
            for _ in answeredCodes.filter(rules.windowed[limit].countedCodes.contains) {
                count(limit, at: timestamp, into: &findings)
            }
        }
    }

    /// Adds one event to a limit's window and reports the event that takes it over the limit.
    private mutating func count(_ index: Int, at timestamp: Double, into findings: inout [Finding]) {
        let plan = rules.windowed[index]
        Self.reserve(&windows, index, empty: SlidingWindow())
        if windows[index].add(timestamp, window: plan.window) > plan.limit.limit {
            let limit = plan.limit
            findings.append(Finding(
                code: limit.answer.errorCode, rule: "rateLimit",
                message: "breaks the rate limit '\(limit.name)': more than \(limit.limit) \(Self.counted(limit)) within \(DurationText.from(milliseconds: limit.windowMilliseconds ?? 0))"
            ))
        }
    }

    private static func counted(_ limit: RateLimit) -> String {
        switch limit.counts {
        case .frames(let refs): return refs.map(\.description).joined(separator: " or ") + " frames"
        case .violations(let codes): return codes.joined(separator: " or ") + " answers"
        }
    }
}

/// Timestamps inside a sliding window.
struct SlidingWindow: Sendable {
    private var times: [Double] = []
    private var start = 0

    /// Adds an event at `time` and returns how many events fall in the window ending at it.
    mutating func add(_ time: Double, window: Double) -> Int {
        while start < times.count, times[start] <= time - window { start += 1 }
        if start > 64, start * 2 > times.count {
            times.removeFirst(start)
            start = 0
        }
        times.append(time)
        return times.count - start
    }
}
