@_spi(Generated) import WireRuntime
import WireSpec

/// A condition on a top-level field of a frame, with its key and values ready for a tape.
struct FieldCondition: Sendable {
    let key: UTF8Key
    let values: [JSONValue]

    init(_ condition: Condition) {
        key = UTF8Key(condition.field)
        values = condition.values.map(JSONValue.init(spec:))
    }

    /// Whether every condition holds for the object at `index`.
    static func allHold(_ conditions: [FieldCondition], in tape: JSONTape.View, at index: Int) -> Bool {
        conditions.allSatisfy { condition in
            guard let member = tape.member(of: index, key: condition.key.bytes) else { return false }
            let value = tape.value(member)
            return condition.values.contains(value)
        }
    }
}

/// A correlation rule with its field keys and the plan's ids of its two messages.
final class CorrelationPlan: Sendable {
    let rule: SessionRules.Correlation
    let field: UTF8Key
    let answersField: UTF8Key
    /// The id of the message that must answer an earlier one, and of the message it answers.
    let frame: Int?
    let answers: Int?

    init(_ rule: SessionRules.Correlation, ids: [MessageRef: Int]) {
        self.rule = rule
        field = UTF8Key(rule.field)
        answersField = UTF8Key(rule.answersField)
        frame = ids[rule.frame]
        answers = ids[rule.answers]
    }
}

/// A guard: a message allowed only while a flag is set (not while it is false; an unknown flag passes).
final class GuardPlan: Sendable {
    let flag: String
    /// The flag's index in the spec's flag list.
    let flagIndex: Int
    let code: String
    let name: String

    init(_ rule: SessionRules.Guard, flags: [String: Int]) {
        flag = rule.requires
        flagIndex = flags[rule.requires] ?? -1
        code = rule.otherwise?.errorCode ?? rule.name
        name = rule.name
    }
}

/// A rate limit with a sliding window, as a session checks it.
final class WindowPlan: Sendable {
    let limit: RateLimit
    let window: Double
    /// For limits that count answers: the error codes they count.
    let countedCodes: [String]

    init(_ limit: RateLimit) {
        self.limit = limit
        window = Double(limit.windowMilliseconds ?? 0)
        if case .violations(let codes) = limit.counts { countedCodes = codes } else { countedCodes = [] }
    }
}

/// A uniqueness rule with its keys, the plans of its compared fields and final-frame conditions.
final class UniquenessPlan: Sendable {
    let rule: SessionRules.Uniqueness
    let key: UTF8Key
    let sameFields: [UTF8Key]
    /// For normalized comparison: the plan of each of `sameFields` (base64 strings are compared decoded).
    let sameFieldNodes: [ValidationPlan.Node?]
    let normalized: Bool
    let grows: [UTF8Key]
    let final: [FieldCondition]

    init(_ rule: SessionRules.Uniqueness, message: ValidationPlan.MessagePlan?, plan: ValidationPlan) {
        self.rule = rule
        key = UTF8Key(rule.key)
        sameFields = rule.sameFields.map(UTF8Key.init)
        sameFieldNodes = rule.sameFields.map { name in message.flatMap { plan.fieldNode(name, of: $0) } }
        normalized = rule.comparison == .normalized
        grows = rule.grows.map(UTF8Key.init)
        final = rule.final.map(FieldCondition.init)
    }
}

/// A run: after a frame, the next frames of a sender must be of one message.
final class RunPlan: Sendable {
    let rule: SessionRules.Run
    /// The plan ids of the frame that starts the run and of the frames the run consists of.
    let after: Int?
    let frame: Int?
    let when: [FieldCondition]
    let count: UTF8Key
    let each: [FieldCondition]
    let code: String

    init(_ rule: SessionRules.Run, ids: [MessageRef: Int]) {
        self.rule = rule
        after = ids[rule.after]
        frame = ids[rule.frame]
        when = rule.when.map(FieldCondition.init)
        count = UTF8Key(rule.count)
        each = rule.each.map(FieldCondition.init)
        code = rule.otherwise?.errorCode ?? rule.name
    }

    /// The run's frames as words: `server message frames (streaming false)`.
    var framesText: String {
        let conditions = rule.each.map { "\($0.field) \($0.values.map(\.plainText).joined(separator: " or "))" }
        return "\(rule.frame) frames" + (conditions.isEmpty ? "" : " (" + conditions.joined(separator: ", ") + ")")
    }
}

/// A transition with its conditions, flag assignments and target phase.
final class TransitionPlan: Sendable {
    let transition: SessionRules.Transition
    /// The index of the phase it leads to.
    let to: Int?
    let when: [FieldCondition]
    /// Flags (by index in the spec's flag list) and the boolean fields that set them.
    let set: [(flag: Int, field: UTF8Key)]

    init(_ transition: SessionRules.Transition, to: Int?, flags: [String: Int]) {
        self.transition = transition
        self.to = to
        when = transition.when.map(FieldCondition.init)
        set = transition.set.map { (flag: flags[$0.flag] ?? -1, field: UTF8Key($0.field)) }
    }
}
