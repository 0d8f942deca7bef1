/// A condition on a top-level field of a frame, with its key and values ready for a tape: its
/// values are matched in place, as a conditional rule's are (strings by their bytes, `null` and the
/// booleans by their kind), so that testing it builds no value. Immutable after `init`; its
/// matches' buffer is memory that its storage owns and nothing writes (hence `@unchecked`).
struct FieldCondition: @unchecked Sendable {
    let key: UTF8Key
    let values: [ValidationPlan.ValueMatch]
    /// `values` as plain matches, at an address `storage` keeps: read with no reference counted
    /// (reading an array through a buffer of conditions counts one).
    private let matches: UnsafeBufferPointer<ValidationPlan.QuickMatch>
    private let storage: MatchStorage

    /// Owns the memory of a condition's plain matches.
    private final class MatchStorage: @unchecked Sendable {
        let matches: UnsafeBufferPointer<ValidationPlan.QuickMatch>
        init(_ matches: [ValidationPlan.QuickMatch]) { self.matches = ownedBuffer(matches) }
        deinit { matches.deallocate() }
    }

    init(_ condition: SessionRuleSet.Condition) {
        key = UTF8Key(condition.field)
        values = condition.values.map(ValidationPlan.ValueMatch.init)
        storage = MatchStorage(values.enumerated().map { index, match in match.quick(list: 0, index: index) })
        matches = storage.matches
    }

    /// Whether the member at `member` of `tape` is one of the values of the condition at
    /// `condition`. Static, reading the condition through its address: a method called on a
    /// condition read out of a buffer copied it, counting a reference to each of its fields.
    @inline(__always)
    private static func holds(_ condition: UnsafePointer<FieldCondition>, at member: Int, in tape: JSONTape.View) -> Bool {
        condition.pointee.matches.contains { tape.matches(member, $0) { condition.pointee.values[$1] } }
    }

    /// Whether every condition holds for the object at `index`.
    /// The conditions, their keys and their matches are read where they are, not copied out.
    static func allHold(_ conditions: [FieldCondition], in tape: JSONTape.View, at index: Int) -> Bool {
        conditions.withUnsafeBufferPointer { conditions in
            for position in conditions.indices {
                guard let member = tape.member(of: index, key: conditions[position].key),
                    holds(conditions.baseAddress! + position, at: member, in: tape)
                else { return false }
            }
            return true
        }
    }
}

/// A correlation rule with its field keys and the engine's ids of its two messages.
final class CorrelationPlan: Sendable {
    let rule: SessionRuleSet.Correlation
    let field: UTF8Key
    let answersField: UTF8Key
    /// The id of the message that must answer an earlier one, and of the message it answers.
    let frame: Int
    let answers: Int
    /// The rule whose memory keys hold the values this one is answered by: the first rule that
    /// remembers the same field of the same message. Rules answered by the same values (an `ack`
    /// and an `error` both naming a client message's `id`) share one entry per value; a rule
    /// whose message answers one of its own kind keeps entries of its own.
    let memoryRule: Int
    /// Whether this rule writes the values to memory (the first of the rules sharing them).
    var remembers: Bool { memoryRule == index }
    private let index: Int

    /// The plan of the correlation at `index` of `rules`.
    init(at index: Int, of rules: [SessionRuleSet.Correlation], ids: [FrameKey: Int]) {
        let rule = rules[index]
        self.rule = rule
        self.index = index
        field = UTF8Key(rule.field)
        answersField = UTF8Key(rule.answersField)
        frame = ids[rule.frame]!
        answers = ids[rule.answers]!
        // A rule a message answers on itself checks before it remembers, so it keeps its own entries.
        func sharable(_ other: SessionRuleSet.Correlation) -> Bool {
            other.frame != other.answers && other.answers == rule.answers && other.answersField == rule.answersField
        }
        memoryRule = sharable(rule) ? rules.firstIndex(where: sharable) ?? index : index
    }
}

/// A guard: a message allowed only while a flag is set (not while it is false; an unknown flag passes).
final class GuardPlan: Sendable {
    let rule: SessionRuleSet.Guard
    /// The flag's index in the rule set's flag list (-1 for an undeclared flag, which stays unknown).
    let flagIndex: Int

    init(_ rule: SessionRuleSet.Guard, flags: [String: Int]) {
        self.rule = rule
        flagIndex = flags[rule.requiredFlag] ?? -1
    }
}

/// A rate limit with a sliding window, as a machine counts it.
final class WindowPlan: Sendable {
    let limit: RateLimitRule<String>
    /// The window in milliseconds.
    let window: Double
    /// For limits that count answers: the error codes they count.
    let countedCodes: [String]

    init(_ limit: RateLimitRule<String>) {
        self.limit = limit
        window = limit.window.map(Self.milliseconds) ?? 0
        if case .violations(let codes) = limit.counts { countedCodes = codes } else { countedCodes = [] }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// `client message frames` or `payload_too_large answers`.
    var countedText: String {
        switch limit.counts {
        case .frames(let keys): return keys.map(\.description).joined(separator: " or ") + " frames"
        case .violations(let codes): return codes.joined(separator: " or ") + " answers"
        }
    }
}

/// A uniqueness rule with its keys, the shapes of its compared fields and final-frame conditions.
final class UniquenessPlan: Sendable {
    let rule: SessionRuleSet.Uniqueness
    let key: UTF8Key
    let sameFields: [UTF8Key]
    /// For normalized comparison: where each of `sameFields` holds base64 strings.
    let sameFieldShapes: [ShapePlan?]
    /// Whether each of `sameFields` has a shape: a field without one that holds a string, a
    /// number or a boolean hashes as it is, normalized or not.
    let sameFieldHasShape: [Bool]
    let normalized: Bool
    let grows: [UTF8Key]
    let final: [FieldCondition]

    init(_ rule: SessionRuleSet.Uniqueness) {
        self.rule = rule
        key = UTF8Key(rule.key)
        sameFields = rule.sameFields.map(UTF8Key.init)
        sameFieldShapes = rule.sameFields.map { rule.shapes[$0].map(ShapePlan.init) }
        sameFieldHasShape = sameFieldShapes.map { $0 != nil }
        normalized = rule.comparison == .normalized
        grows = rule.grows.map(UTF8Key.init)
        final = rule.final.map(FieldCondition.init)
    }
}

/// A run: after a frame, the next frames of a sender must be of one message.
final class RunPlan: Sendable {
    let rule: SessionRuleSet.Run
    /// The engine's ids of the frame that starts the run and of the frames the run consists of.
    let after: Int
    let frame: Int
    let when: [FieldCondition]
    let count: UTF8Key
    let each: [FieldCondition]
    let code: String

    init(_ rule: SessionRuleSet.Run, ids: [FrameKey: Int]) {
        self.rule = rule
        after = ids[rule.after]!
        frame = ids[rule.frame]!
        when = rule.when.map(FieldCondition.init)
        count = UTF8Key(rule.countField)
        each = rule.each.map(FieldCondition.init)
        code = rule.otherwise?.code ?? rule.name
    }

    /// The run's frames as words: `server message frames (streaming false)`.
    var framesText: String {
        let conditions = rule.each.map { "\($0.field) \($0.values.map(\.plainText).joined(separator: " or "))" }
        return "\(rule.frame) frames" + (conditions.isEmpty ? "" : " (" + conditions.joined(separator: ", ") + ")")
    }
}

/// A transition with its conditions, flag assignments and target phase.
final class TransitionPlan: Sendable {
    let transition: SessionRuleSet.Transition
    /// The index of the phase it leads to.
    let to: Int?
    /// The indexes of the phases it applies in; `nil` for every phase.
    let from: Set<Int>?
    let when: [FieldCondition]
    /// Flags (by index in the rule set's flag list) and the boolean fields that set them, in flag order.
    let set: [(flag: Int, field: UTF8Key)]

    init(_ transition: SessionRuleSet.Transition, to: Int?, from: Set<Int>?, flags: [String: Int]) {
        self.transition = transition
        self.to = to
        self.from = from
        when = transition.when.map(FieldCondition.init)
        set = transition.setFlags.sorted { $0.key < $1.key }.map { (flag: flags[$0.key] ?? -1, field: UTF8Key($0.value)) }
    }

    /// Whether the transition applies while the connection is in the phase at `index`.
    func applies(in index: Int?) -> Bool {
        guard let from else { return true }
        return index.map(from.contains) ?? false
    }
}

extension JSONValue {
    /// A string's text as it is, any other value as JSON: `false`, `user`, `3`.
    var plainText: String {
        if case .string(let text) = self { return text }
        return description
    }
}
