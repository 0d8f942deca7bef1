/// A protocol's session rules and windowed rate limits, indexed once for fast checking and shared
/// by the ``SessionMachine`` of every connection.
///
/// Build one from the generated tables (`SessionEngine(rules: Clawline.sessionRules, rateLimits:
/// Clawline.RateLimits.all)`) or, in tools, from a spec loaded at run time; the checks are the same.
// `@unchecked Sendable`: immutable after `init`; the buffer it owns is only read.
public final class SessionEngine: @unchecked Sendable {
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
    /// Per message id: the rules that concern it, in one object (see ``MessageRules``).
    let messageRules: [MessageRules]
    /// `messageRules`, borrowed, so that checking a frame counts no reference to them.
    let borrowedMessageRules: UnsafeBufferPointer<Unmanaged<MessageRules>>
    /// Windowed rate limits that count answers with error codes.
    let windowedByViolation: [Int]
    /// The correlation, uniqueness and transition plans, owned here: `messageRules` holds them
    /// unretained.
    let correlationPlans: [CorrelationPlan]
    let uniquenessPlans: [UniquenessPlan]
    let transitionPlans: [TransitionPlan]
    let runPlans: [RunPlan]
    /// `runPlans`, borrowed, so that a machine reading the run in progress counts no reference.
    let borrowedRunPlans: UnsafeBufferPointer<Unmanaged<RunPlan>>
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
        let correlationPlans = rules.correlations.indices.map { CorrelationPlan(at: $0, of: rules.correlations, ids: ids) }
        let uniquenessPlans = rules.uniqueness.map(UniquenessPlan.init)
        self.correlationPlans = correlationPlans
        self.uniquenessPlans = uniquenessPlans
        let runPlans = rules.runs.map { RunPlan($0, ids: ids) }
        self.runPlans = runPlans
        borrowedRunPlans = ownedBuffer(runPlans.map { .passUnretained($0) })
        windowed = self.rateLimits.map(WindowPlan.init)
        var byFrame: [(FrameKey, Int)] = []
        var byViolation: [Int] = []
        for (index, window) in windowed.enumerated() {
            switch window.limit.counts {
            case .frames(let counted): byFrame += Set(counted).map { ($0, index) }
            case .violations: byViolation.append(index)
            }
        }
        windowedByViolation = byViolation
        let guards = perMessage(rules.guards.map { ($0.frame, GuardPlan($0, flags: flagIndexes)) })
        let correlations = perMessage(
            rules.correlations.enumerated().flatMap { index, rule in
                let entry = MessageRules.Indexed(index: index, plan: Unmanaged.passUnretained(correlationPlans[index]))
                // The answered message concerns only the rule that remembers its values for all.
                let answered = rule.frame != rule.answers && correlationPlans[index].remembers
                return answered ? [(rule.frame, entry), (rule.answers, entry)] : [(rule.frame, entry)]
            })
        let uniqueness = perMessage(
            rules.uniqueness.enumerated().map { index, rule in
                (rule.frame, MessageRules.Indexed(index: index, plan: Unmanaged.passUnretained(uniquenessPlans[index])))
            })
        let transitionPlans = rules.transitions.map { transition in
            let from = transition.from.isEmpty ? nil : Set(transition.from.compactMap { phaseIndexes[$0] })
            return TransitionPlan(transition, to: phaseIndexes[transition.to], from: from, flags: flagIndexes)
        }
        self.transitionPlans = transitionPlans
        let transitions = perMessage(zip(rules.transitions, transitionPlans).map { ($0.on, Unmanaged.passUnretained($1)) })
        let runsAfter = perMessage(rules.runs.enumerated().map { ($1.after, $0) })
        let windowedByFrame = perMessage(byFrame.sorted { $0.1 < $1.1 })
        messageRules = (0..<count).map {
            MessageRules(
                guards: guards[$0], correlations: correlations[$0], uniqueness: uniqueness[$0], transitions: transitions[$0],
                runsAfter: runsAfter[$0], windowedByFrame: windowedByFrame[$0])
        }
        borrowedMessageRules = ownedBuffer(messageRules.map { .passUnretained($0) })
    }

    deinit {
        borrowedMessageRules.deallocate()
        borrowedRunPlans.deallocate()
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

/// The rules that concern one message, kept together so that checking a frame borrows one object
/// of the engine's (with `_withUnsafeGuaranteedRef`) and reads its lists in place, counting no
/// reference to them or to the plans they hold.
final class MessageRules: Sendable {
    /// A rule's index in its list (memory keys name it) and its plan, held strongly by the engine.
    struct Indexed<Plan: AnyObject & Sendable>: @unchecked Sendable {
        let index: Int
        let plan: Unmanaged<Plan>
    }

    let guards: [GuardPlan]
    let correlations: [Indexed<CorrelationPlan>]
    let uniqueness: [Indexed<UniquenessPlan>]
    /// The message's transitions, in the rule set's order; the engine holds them strongly.
    let transitions: [Unmanaged<TransitionPlan>]
    /// Runs this message starts, and windowed rate limits that count it (indexes into the engine's lists).
    let runsAfter: [Int]
    let windowedByFrame: [Int]

    init(
        guards: [GuardPlan], correlations: [Indexed<CorrelationPlan>], uniqueness: [Indexed<UniquenessPlan>],
        transitions: [Unmanaged<TransitionPlan>], runsAfter: [Int], windowedByFrame: [Int]
    ) {
        self.guards = guards
        self.correlations = correlations
        self.uniqueness = uniqueness
        self.transitions = transitions
        self.runsAfter = runsAfter
        self.windowedByFrame = windowedByFrame
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
