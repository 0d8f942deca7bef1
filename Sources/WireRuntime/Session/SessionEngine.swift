/// A protocol's session rules and windowed rate limits, indexed once for fast checking and shared
/// by the ``SessionMachine`` of every connection.
///
/// Build one from the generated tables (`SessionEngine(rules: Clawline.sessionRules, rateLimits:
/// Clawline.RateLimits.all)`) or, in tools, from a spec loaded at run time; the checks are the same.
public final class SessionEngine: Sendable {
    /// A message of one direction, numbered by the engine; see ``messageID(for:)``.
    public struct MessageID: Sendable, Hashable {
        let index: Int
    }

    /// The rules the engine checks.
    public let rules: SessionRuleSet
    /// The windowed rate limits the engine counts, with error codes as text.
    public let rateLimits: [RateLimitRule<String>]

    let ids: [FrameKey: Int]
    let keys: [FrameKey]
    /// Per phase (by index), per message id: whether the message may be sent.
    let allowed: [[Bool]]
    let initialPhase: Int?
    /// Per message id: the rules that concern it (indexes into the arrays below).
    let guards: [[GuardPlan]]
    let correlations: [[Int]]
    let uniqueness: [[Int]]
    let transitions: [[TransitionPlan]]
    let runsAfter: [[Int]]
    let windowedByFrame: [[Int]]
    /// Windowed rate limits that count answers with error codes.
    let windowedByViolation: [Int]
    let correlationPlans: [CorrelationPlan]
    let uniquenessPlans: [UniquenessPlan]
    let runPlans: [RunPlan]
    let windowed: [WindowPlan]

    /// An engine for `rules` and the windowed limits among `rateLimits`, whose error codes are the
    /// protocol's generated enum.
    public convenience init<Code: RawRepresentable<String>>(rules: SessionRuleSet, rateLimits: [RateLimitRule<Code>]) {
        self.init(rules: rules, rateLimits: rateLimits.map { $0.mapCodes(\.rawValue) })
    }

    /// An engine for `rules` and the windowed limits among `rateLimits`.
    public init(rules: SessionRuleSet, rateLimits: [RateLimitRule<String>] = []) {
        self.rules = rules
        self.rateLimits = rateLimits.filter { $0.window != nil }
        var keys: [FrameKey] = []
        var ids: [FrameKey: Int] = [:]
        func register(_ key: FrameKey) {
            guard ids[key] == nil else { return }
            ids[key] = keys.count
            keys.append(key)
        }
        for phase in rules.phases {
            phase.allowedClient.forEach { register(FrameKey(.client, $0)) }
            phase.allowedServer.forEach { register(FrameKey(.server, $0)) }
        }
        rules.transitions.forEach { register($0.on) }
        rules.guards.forEach { register($0.frame) }
        rules.correlations.forEach {
            register($0.frame)
            register($0.answers)
        }
        rules.uniqueness.forEach { register($0.frame) }
        rules.runs.forEach {
            register($0.after)
            register($0.frame)
        }
        for limit in self.rateLimits { if case .frames(let counted) = limit.counts { counted.forEach(register) } }
        self.ids = ids
        self.keys = keys
        // One more id for every message no rule names.
        let count = keys.count + 1
        func perMessage<T>(_ pairs: [(FrameKey, T)]) -> [[T]] {
            var table = Array(repeating: [T](), count: count)
            for (key, item) in pairs { table[ids[key]!].append(item) }
            return table
        }
        let phaseIndexes = Dictionary(rules.phases.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let flagIndexes = Dictionary(rules.flags.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        allowed = rules.phases.map { phase in keys.map(phase.allows) + [false] }
        initialPhase = rules.initialPhase.flatMap { phaseIndexes[$0] }
        guards = perMessage(rules.guards.map { ($0.frame, GuardPlan($0, flags: flagIndexes)) })
        correlations = perMessage(
            rules.correlations.enumerated().flatMap { index, rule in
                rule.frame == rule.answers ? [(rule.frame, index)] : [(rule.frame, index), (rule.answers, index)]
            })
        uniqueness = perMessage(rules.uniqueness.enumerated().map { ($1.frame, $0) })
        transitions = perMessage(
            rules.transitions.map { transition in
                let from = transition.from.isEmpty ? nil : Set(transition.from.compactMap { phaseIndexes[$0] })
                return (transition.on, TransitionPlan(transition, to: phaseIndexes[transition.to], from: from, flags: flagIndexes))
            })
        runsAfter = perMessage(rules.runs.enumerated().map { ($1.after, $0) })
        correlationPlans = rules.correlations.map { CorrelationPlan($0, ids: ids) }
        uniquenessPlans = rules.uniqueness.map(UniquenessPlan.init)
        runPlans = rules.runs.map { RunPlan($0, ids: ids) }
        windowed = self.rateLimits.map(WindowPlan.init)
        var byFrame: [(FrameKey, Int)] = []
        var byViolation: [Int] = []
        for (index, window) in windowed.enumerated() {
            switch window.limit.counts {
            case .frames(let counted): byFrame += Set(counted).map { ($0, index) }
            case .violations: byViolation.append(index)
            }
        }
        windowedByFrame = perMessage(byFrame.sorted { $0.1 < $1.1 })
        windowedByViolation = byViolation
    }

    /// The engine's number for a message; every message no rule names shares one number.
    public func messageID(for key: FrameKey) -> MessageID {
        MessageID(index: ids[key] ?? keys.count)
    }

    /// The message a number stands for (`nil` for the number shared by messages no rule names).
    public func key(for id: MessageID) -> FrameKey? {
        id.index < keys.count ? keys[id.index] : nil
    }
}

extension RateLimitRule {
    /// The same limit with its error codes mapped.
    public func mapCodes<Other>(_ transform: (ErrorCode) -> Other) -> RateLimitRule<Other> {
        let counted: RateLimitRule<Other>.Counted =
            switch counts {
            case .frames(let keys): .frames(keys)
            case .violations(let codes): .violations(codes.map(transform))
            }
        return RateLimitRule<Other>(
            name: name, counts: counted, limit: limit, window: window, scope: scope, answer: answer, clientAction: clientAction)
    }
}
