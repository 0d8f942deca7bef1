@_spi(Generated) import WireRuntime
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
        /// Every run; `runsAfter` indexes them by the message that starts them.
        let runPlans: [RunPlan]
        let runsAfter: [[Int]]
        /// The plan, for normalized comparison of field values.
        let plan: ValidationPlan
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
            correlations = perMessage(
                session.correlations.enumerated().flatMap { index, rule in
                    rule.frame == rule.answers ? [(rule.frame, index)] : [(rule.frame, index), (rule.answers, index)]
                })
            uniqueness = perMessage(session.uniqueness.enumerated().map { ($1.frame, $0) })
            transitions = perMessage(session.transitions.map { ($0.on, TransitionPlan($0, to: phaseIndexes[$0.to], flags: flagIndexes)) })
            correlationPlans = session.correlations.map { CorrelationPlan($0, ids: ids) }
            uniquenessPlans = session.uniqueness.map { UniquenessPlan($0, message: ids[$0.frame].map { plan.messages[$0] }, plan: plan) }
            runPlans = session.runs.map { RunPlan($0, ids: ids) }
            runsAfter = perMessage(session.runs.enumerated().map { ($1.after, $0) })
            self.plan = plan
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
    private static let seenTable = 0, fingerprintTable = 1, finalizedTable = 2, grownLengthTable = 3, grownHashTable = 4
    /// The run in progress: its index and how many of its frames are still to come.
    private var run: (index: Int, remaining: Int)?
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
    ///
    /// A frame with errors still moves the session on (its transition applies and the values it
    /// answers are remembered), so one bad frame does not make every later frame a finding.
    mutating func observe(_ frame: Frame, valid: Bool, answeredCodes: [String], timestamp: Double?) -> [Finding] {
        var findings: [Finding] = []
        let id = frame.message.id
        checkPhase(frame.message, into: &findings)
        for rule in rules.guards[id] where flags.value(rule.flagIndex) == false {
            findings.append(Finding(code: rule.code, rule: "guard", message: "only allowed while '\(rule.flag)' is set (\(rule.name))"))
        }
        checkRun(frame, into: &findings)
        checkCorrelations(frame, valid: valid, into: &findings)
        if valid { checkUniqueness(frame, into: &findings) }
        checkRateLimits(id, answeredCodes: answeredCodes, timestamp: timestamp, into: &findings)
        applyTransition(frame)
        startRun(after: frame)
        return findings
    }

    /// What the session still owes when it ends: a run that did not get all its frames.
    func finish() -> [Finding] {
        guard let run, run.remaining > 0 else { return [] }
        let plan = rules.runPlans[run.index]
        return [
            Finding(
                severity: .warning, code: plan.code, rule: "run",
                message: "the session ended \(run.remaining) \(plan.framesText) short of run '\(plan.rule.name)'"
            )
        ]
    }

    // MARK: Phases

    private func checkPhase(_ message: ValidationPlan.MessagePlan, into findings: inout [Finding]) {
        guard let phase, !rules.allowed[phase][message.id] else { return }
        let rule = rules.session.phases[phase]
        let direction = message.ref.direction
        let allowed = rule.allowed(direction)
        let list = allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")
        let code = direction == .client ? rule.otherwise?.errorCode ?? "phase" : "phase"
        findings.append(
            Finding(code: code, rule: "phase", message: "not allowed in phase '\(rule.name)', where the \(direction.rawValue) may send \(list)"))
    }

    private mutating func applyTransition(_ frame: Frame) {
        guard let match = rules.transitions[frame.message.id].first(where: { FieldCondition.allHold($0.when, in: frame.tape, at: frame.index) })
        else { return }
        for assignment in match.set {
            // A flag takes a boolean field's value; without the field it stays as it was (unknown until set).
            switch frame.value(assignment.field) {
            case .bool(let value)?: flags.set(assignment.flag, value)
            default: break
            }
        }
        phase = match.to
    }

    // MARK: Runs

    /// Starts the run a frame opens (a run it cuts short was reported by ``checkRun(_:into:)``).
    private mutating func startRun(after frame: Frame) {
        for index in rules.runsAfter[frame.message.id] {
            let plan = rules.runPlans[index]
            guard FieldCondition.allHold(plan.when, in: frame.tape, at: frame.index),
                case .integer(let count)? = frame.value(plan.count), count > 0
            else { continue }
            run = (index, count)
            return
        }
    }

    /// Checks that a frame of the run's sender is the next frame of the run in progress.
    private mutating func checkRun(_ frame: Frame, into findings: inout [Finding]) {
        guard let current = run else { return }
        let plan = rules.runPlans[current.index]
        guard frame.message.ref.direction == plan.rule.frame.direction else { return }
        if frame.message.id == plan.frame, FieldCondition.allHold(plan.each, in: frame.tape, at: frame.index) {
            run = current.remaining > 1 ? (current.index, current.remaining - 1) : nil
            return
        }
        findings.append(
            Finding(
                code: plan.code, rule: "run",
                message:
                    "comes while \(current.remaining) more \(plan.framesText) of run '\(plan.rule.name)' are due (\(plan.rule.count) in the "
                    + "\(plan.rule.after))"
            ))
        run = nil
    }

    // MARK: Correlations and uniqueness

    /// Checks the values a frame must answer (only when it is valid) and remembers the values it
    /// can be answered by (even when it has errors: a receiver may answer a rejected frame).
    private mutating func checkCorrelations(_ frame: Frame, valid: Bool, into findings: inout [Finding]) {
        for index in rules.correlations[frame.message.id] {
            let plan = rules.correlationPlans[index]
            let rule = plan.rule
            if valid, plan.frame == frame.message.id, let hash = frame.hash(plan.field),
                !memory.contains(SessionMemory.key(table: Self.seenTable, rule: index, hash: hash))
            {
                findings.append(
                    Finding(
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
            guard let keyHash = frame.hash(plan.key) else { continue }
            // Only findings need the rule's text; reading it lazily keeps the common path free of copies.
            let key = { frame.value(plan.key) ?? .null }
            func report(_ message: String, path: String? = nil) {
                let rule = plan.rule
                findings.append(
                    Finding(
                        code: rule.otherwise?.errorCode ?? rule.name, rule: "uniqueness", path: JSONPath.root.appending(path ?? rule.key),
                        message: message + " (\(rule.name))"))
            }
            if !plan.sameFields.isEmpty {
                let fingerprint = UInt64(bitPattern: Int64(fingerprint(frame, plan)))
                let slot = SessionMemory.key(table: Self.fingerprintTable, rule: index, hash: keyHash)
                if let earlier = memory.value(for: slot), earlier != fingerprint {
                    report("reuses '\(plan.rule.key)' \(key()) with a different \(plan.rule.sameFields.joined(separator: " or "))")
                } else {
                    memory.set(slot, fingerprint)
                }
            }
            for (position, field) in plan.grows.enumerated() {
                checkGrowth(frame, field: field, rule: index &* 64 &+ position, keyHash: keyHash) {
                    report("'\(field.text)' of \(plan.rule.key) \(key()) \($0)", path: field.text)
                }
            }
            if !plan.final.isEmpty {
                let slot = SessionMemory.key(table: Self.finalizedTable, rule: index, hash: keyHash)
                if memory.contains(slot) {
                    report("repeats '\(plan.rule.key)' \(key()) after its final frame")
                } else if FieldCondition.allHold(plan.final, in: frame.tape, at: frame.index) {
                    memory.set(slot)
                }
            }
        }
    }

    /// The hash a repeated key's `sameFields` must reproduce, exact or normalized.
    private func fingerprint(_ frame: Frame, _ plan: UniquenessPlan) -> Int {
        var hash = JSONTape.ValueHash()
        for (position, field) in plan.sameFields.enumerated() {
            let member = frame.tape.member(of: frame.index, key: field.bytes)
            if plan.normalized {
                rules.plan.normalizedHash(member, in: frame.tape, node: plan.sameFieldNodes[position], into: &hash)
            } else if let member {
                hash.combine(1)
                frame.tape.hash(member, into: &hash)
            } else {
                hash.combine(0)
            }
        }
        return hash.value
    }

    /// Checks that a string field starts with its value in the previous frame with the same key
    /// (remembered as its length and the hash of its bytes), then remembers the new value.
    private mutating func checkGrowth(_ frame: Frame, field: UTF8Key, rule: Int, keyHash: Int, report: (String) -> Void) {
        guard let member = frame.tape.member(of: frame.index, key: field.bytes), frame.tape.kind(member) == .string else { return }
        let lengthSlot = SessionMemory.key(table: Self.grownLengthTable, rule: rule, hash: keyHash)
        let hashSlot = SessionMemory.key(table: Self.grownHashTable, rule: rule, hash: keyHash)
        let earlierLength = memory.value(for: lengthSlot).map { Int($0) }
        let earlierHash = memory.value(for: hashSlot)
        let (length, fullHash, prefixHash) = frame.tape.withStringBytes(member) { bytes -> (Int, UInt64, UInt64?) in
            func hash(_ part: UnsafeBufferPointer<UInt8>) -> UInt64 {
                var hash = JSONTape.ValueHash()
                hash.combine(bytes: part)
                return UInt64(bitPattern: Int64(hash.value))
            }
            let prefix = earlierLength.flatMap { $0 <= bytes.count ? hash(UnsafeBufferPointer(rebasing: bytes[0..<$0])) : nil }
            return (bytes.count, hash(bytes), prefix)
        }
        if let earlierLength, let earlierHash {
            if length < earlierLength {
                report("is \(length) bytes, shorter than the \(earlierLength) of the frame before; each frame must extend the previous one")
            } else if prefixHash != earlierHash {
                report("does not start with the text of the frame before; each frame must extend the previous one")
            }
        }
        memory.set(lengthSlot, UInt64(length))
        memory.set(hashSlot, fullHash)
    }

    private mutating func checkRateLimits(_ id: Int, answeredCodes: [String], timestamp: Double?, into findings: inout [Finding]) {
        guard !rules.windowed.isEmpty else { return }
        guard let timestamp else {
            if !saidNoTimestamps {
                saidNoTimestamps = true
                findings.append(
                    Finding(
                        severity: .warning, code: "no_timestamps", rule: "rateLimit",
                        message: "this session's frames carry no timestamps, so its rate limits are not checked"))
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
            findings.append(
                Finding(
                    code: limit.answer?.errorCode ?? limit.name, rule: "rateLimit",
                    message:
                        "breaks the rate limit '\(limit.name)': more than \(limit.limit) \(Self.counted(limit)) within "
                        + "\(DurationText.from(milliseconds: limit.windowMilliseconds ?? 0))"
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
