import WireRuntime
import WireSpec

/// Checks the rules across the frames of one session, driven only by the spec's session rules and
/// rate limits: phases, transitions, guards, correlations, uniqueness and sliding-window limits.
public struct SessionChecker: Sendable {
    /// The spec's session rules and limits, indexed once and shared by every session.
    final class Rules: Sendable {
        let session: SessionRules
        /// Rate limits with a window (capacity limits cannot be judged from one session), by the frames they count.
        let windowedByFrame: [MessageRef: [RateLimit]]
        /// Rate limits with a window that count answers with error codes.
        let windowedByViolation: [RateLimit]
        let hasWindowedLimits: Bool
        let phases: [String: SessionRules.Phase]
        let guards: [MessageRef: [SessionRules.Guard]]
        let uniqueness: [MessageRef: [SessionRules.Uniqueness]]
        let transitions: [MessageRef: [SessionRules.Transition]]

        init(spec: ProtocolSpec) {
            session = spec.session ?? SessionRules()
            let windowed = spec.rateLimits.filter { $0.windowMilliseconds != nil }
            hasWindowedLimits = !windowed.isEmpty
            var byFrame: [MessageRef: [RateLimit]] = [:]
            var byViolation: [RateLimit] = []
            for limit in windowed {
                switch limit.counts {
                case .frames(let refs): for ref in Set(refs) { byFrame[ref, default: []].append(limit) }
                case .violations: byViolation.append(limit)
                }
            }
            windowedByFrame = byFrame
            windowedByViolation = byViolation
            phases = Dictionary(session.phases.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            guards = Dictionary(grouping: session.guards, by: \.frame)
            uniqueness = Dictionary(grouping: session.uniqueness, by: \.frame)
            transitions = Dictionary(grouping: session.transitions, by: \.on)
        }
    }

    private let rules: Rules
    private var phase: SessionRules.Phase?
    private var flags: Set<String> = []
    /// Per correlation, hashes of the values earlier frames carried.
    private var seenValues: [String: Set<Int>] = [:]
    /// Per uniqueness rule with `sameFields`, key hash → fingerprint of the fields.
    private var fingerprints: [String: [Int: Int]] = [:]
    /// Per uniqueness rule with `final`, hashes of keys that had their final frame.
    private var finalized: [String: Set<Int>] = [:]
    /// Per rate limit, the timestamps (ms) still inside its window.
    private var windows: [String: SlidingWindow] = [:]
    private var saidNoTimestamps = false

    public init(spec: ProtocolSpec) {
        self.init(rules: Rules(spec: spec))
    }

    init(rules: Rules) {
        self.rules = rules
        self.phase = rules.session.initialPhase
    }

    /// The current phase's name.
    public var phaseName: String? { phase?.name }

    /// Checks one frame of the session. `object` is the frame when it parsed as an object with a
    /// known tag; `valid` says whether it passed its own checks; `answeredCodes` are the error codes
    /// of its issues (counted by violation-based rate limits); `timestamp` is in milliseconds.
    public mutating func observe(direction: Direction, tag: String, object: [String: JSONValue], valid: Bool, answeredCodes: [String], timestamp: Double?) -> [Finding] {
        var findings: [Finding] = []
        let ref = MessageRef(direction: direction, tag: tag)
        checkPhase(ref, into: &findings)
        checkGuards(ref, into: &findings)
        if valid {
            checkCorrelations(ref, object, into: &findings)
            checkUniqueness(ref, object, into: &findings)
        }
        checkRateLimits(ref, answeredCodes: answeredCodes, timestamp: timestamp, into: &findings)
        if valid { applyTransition(ref, object) }
        return findings
    }

    // MARK: Phases and guards

    private func checkPhase(_ ref: MessageRef, into findings: inout [Finding]) {
        guard let phase, !phase.allowed(ref.direction).contains(ref.tag) else { return }
        let allowed = phase.allowed(ref.direction)
        let list = allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")
        let code = ref.direction == .client ? phase.otherwise?.errorCode ?? "phase" : "phase"
        findings.append(Finding(code: code, rule: "phase", message: "not allowed in phase '\(phase.name)', where the \(ref.direction.rawValue) may send \(list)"))
    }

    private func checkGuards(_ ref: MessageRef, into findings: inout [Finding]) {
        for rule in rules.guards[ref] ?? [] where !flags.contains(rule.requires) {
            findings.append(Finding(code: rule.otherwise?.errorCode ?? rule.name, rule: "guard", message: "only allowed while '\(rule.requires)' is set (\(rule.name))"))
        }
    }

    private mutating func applyTransition(_ ref: MessageRef, _ object: [String: JSONValue]) {
        guard let transition = rules.transitions[ref]?.first(where: { Self.holds($0.when, in: object) }) else { return }
        for assignment in transition.set {
            if object[assignment.field] == .bool(true) { flags.insert(assignment.flag) } else { flags.remove(assignment.flag) }
        }
        phase = rules.phases[transition.to]
    }

    static func holds(_ conditions: [Condition], in object: [String: JSONValue]) -> Bool {
        conditions.allSatisfy { condition in
            guard let value = object[condition.field] else { return false }
            return condition.values.contains { JSONValue(spec: $0) == value }
        }
    }

    // MARK: Correlations and uniqueness

    private mutating func checkCorrelations(_ ref: MessageRef, _ object: [String: JSONValue], into findings: inout [Finding]) {
        for rule in rules.session.correlations {
            if rule.frame == ref, let value = object[rule.field], !(seenValues[rule.name]?.contains(value.hashValue) ?? false) {
                findings.append(Finding(
                    code: rule.otherwise?.errorCode ?? rule.name, rule: "correlation", path: JSONPath.root.appending(rule.field),
                    message: "'\(rule.field)' \(value) answers no earlier \(rule.answers) (\(rule.name))"
                ))
            }
            if rule.answers == ref, let value = object[rule.answersField] {
                seenValues[rule.name, default: []].insert(value.hashValue)
            }
        }
    }

    private mutating func checkUniqueness(_ ref: MessageRef, _ object: [String: JSONValue], into findings: inout [Finding]) {
        for rule in rules.uniqueness[ref] ?? [] {
            guard let key = object[rule.key] else { continue }
            let keyHash = key.hashValue
            if !rule.sameFields.isEmpty {
                let fingerprint = JSONValue.object(object.filter { rule.sameFields.contains($0.key) }).hashValue
                if let earlier = fingerprints[rule.name]?[keyHash], earlier != fingerprint {
                    findings.append(Finding(
                        code: rule.otherwise?.errorCode ?? rule.name, rule: "uniqueness", path: JSONPath.root.appending(rule.key),
                        message: "reuses '\(rule.key)' \(key) with a different \(rule.sameFields.joined(separator: " or ")) (\(rule.name))"
                    ))
                } else {
                    fingerprints[rule.name, default: [:]][keyHash] = fingerprint
                }
            }
            if !rule.final.isEmpty {
                if finalized[rule.name]?.contains(keyHash) == true {
                    findings.append(Finding(
                        code: rule.otherwise?.errorCode ?? rule.name, rule: "uniqueness", path: JSONPath.root.appending(rule.key),
                        message: "repeats '\(rule.key)' \(key) after its final frame (\(rule.name))"
                    ))
                } else if Self.holds(rule.final, in: object) {
                    finalized[rule.name, default: []].insert(keyHash)
                }
            }
        }
    }

    // MARK: Rate limits

    private mutating func checkRateLimits(_ ref: MessageRef, answeredCodes: [String], timestamp: Double?, into findings: inout [Finding]) {
        guard rules.hasWindowedLimits else { return }
        guard let timestamp else {
            if !saidNoTimestamps {
                saidNoTimestamps = true
                findings.append(Finding(severity: .warning, code: "no_timestamps", rule: "rateLimit", message: "this session's frames carry no timestamps, so its rate limits are not checked"))
            }
            return
        }
        for limit in rules.windowedByFrame[ref] ?? [] {
            count(limit, at: timestamp, into: &findings)
        }
        guard !answeredCodes.isEmpty else { return }
        for limit in rules.windowedByViolation {
            guard case .violations(let codes) = limit.counts else { continue }
            for _ in answeredCodes.filter(codes.contains) {
                count(limit, at: timestamp, into: &findings)
            }
        }
    }

    /// Adds one event to a limit's window and reports the event that takes it over the limit.
    private mutating func count(_ limit: RateLimit, at timestamp: Double, into findings: inout [Finding]) {
        guard let window = limit.windowMilliseconds else { return }
        if windows[limit.name, default: SlidingWindow()].add(timestamp, window: Double(window)) > limit.limit {
            findings.append(Finding(
                code: limit.answer.errorCode, rule: "rateLimit",
                message: "breaks the rate limit '\(limit.name)': more than \(limit.limit) \(Self.counted(limit)) within \(DurationText.from(milliseconds: window))"
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
