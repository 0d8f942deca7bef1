import WireRuntime
import WireSpec

/// A spec compiled for validation: every field's checks worked out once, as the generator does
/// for generated code, so frames are checked by the same WireRuntime rules without generated code.
struct ValidationPlan: Sendable {
    indirect enum Node: Sendable {
        case string(StringRules?)
        case integer(NumberRules?)
        case number(NumberRules?)
        case boolean(constant: Bool?)
        case json
        case array(CollectionRules?, Node)
        case map(CollectionRules?, Node)
        /// A named object, union, one-of or enum, by index into `named`.
        case named(Int)
        /// An enum value that must also equal a constant.
        case constant(StringRules, Node)
        case unresolved
    }

    struct FieldPlan: Sendable {
        var key: String
        var required: Bool
        var nullable: Bool
        /// The field's own answer; `nil` inherits the caller's.
        var answer: ViolationAnswer?
        var node: Node
    }

    struct ObjectPlan: Sendable {
        var fields: [FieldPlan]
        var conditionals: [(rule: ConditionalRequirement, answer: ViolationAnswer?)]
        var budgets: [(rule: ByteBudgetRule, answer: ViolationAnswer?)]
        var knownKeys: Set<String>
        var rejectUnknown: Bool
        var rejected: [String]
    }

    enum NamedPlan: Sendable {
        case object(ObjectPlan)
        case closedEnum(allowed: [String], Set<String>)
        case openEnum(name: String, known: Set<String>)
        case union(tag: String, cases: [(value: JSONValue, plan: Int)], open: Bool, typeName: String)
        case oneOf(variants: [Node], expected: String)
    }

    struct MessagePlan: Sendable {
        var tag: String
        var answer: ViolationAnswer
        var object: ObjectPlan
    }

    let spec: ProtocolSpec
    let named: [NamedPlan]
    let messages: [Direction: [String: MessagePlan]]
    let defaultAnswer: ViolationAnswer
    let sizeAnswer: ViolationAnswer
    let malformedAnswer: ViolationAnswer

    init(spec: ProtocolSpec) {
        self.spec = spec
        func answer(_ answer: Answer) -> ViolationAnswer {
            let resolved = spec.resolved(answer)
            return ViolationAnswer(code: resolved.errorCode, closesConnection: resolved.closesConnection, closeCode: resolved.closeCode)
        }
        defaultAnswer = answer(Answer(errorCode: spec.defaultErrorCode))
        sizeAnswer = answer(Answer(errorCode: spec.sizeErrorCode))
        malformedAnswer = spec.malformedFrame.map(answer) ?? defaultAnswer

        var builder = Builder(spec: spec, answer: answer)
        var messages: [Direction: [String: MessagePlan]] = [:]
        for direction in Direction.allCases {
            var plans: [String: MessagePlan] = [:]
            for message in spec.messages(direction) {
                let object = builder.objectPlan(message.shape)
                plans[message.tag] = MessagePlan(tag: message.tag, answer: message.violation.map(answer) ?? defaultAnswer, object: object)
            }
            messages[direction] = plans
        }
        self.messages = messages
        named = builder.named
    }

    /// Compiles model types into plans; named types get one plan each, shared by every use.
    private struct Builder {
        let spec: ProtocolSpec
        let answer: (Answer) -> ViolationAnswer
        var named: [NamedPlan] = []
        var indexes: [String: Int] = [:]

        init(spec: ProtocolSpec, answer: @escaping (Answer) -> ViolationAnswer) {
            self.spec = spec
            self.answer = answer
        }

        mutating func objectPlan(_ shape: ObjectShape) -> ObjectPlan {
            let fields = shape.fields.map { field in
                FieldPlan(
                    key: field.name, required: field.required, nullable: field.nullable,
                    answer: field.violation.map(answer), node: node(field.type, field.constraints)
                )
            }
            var conditionals: [(ConditionalRequirement, ViolationAnswer?)] = []
            var budgets: [(ByteBudgetRule, ViolationAnswer?)] = []
            for rule in shape.rules {
                switch rule {
                case .conditional(let rule):
                    let conditions = rule.when.map { (key: $0.field, values: $0.values.map(JSONValue.init(spec:))) }
                    conditionals.append((ConditionalRequirement(when: conditions, require: rule.require, forbid: rule.forbid), rule.violation.map(answer)))
                case .byteBudget(let budget):
                    let terms = budget.paths.map { ByteBudgetRule.Term(keys: $0.split(separator: ".").map(String.init), decoded: spec.budgetPathIsBase64($0, in: shape)) }
                    budgets.append((ByteBudgetRule(name: budget.name, terms: terms, max: budget.max), budget.violation.map(answer)))
                }
            }
            return ObjectPlan(
                fields: fields, conditionals: conditionals, budgets: budgets, knownKeys: Set(shape.fields.map(\.name)),
                rejectUnknown: shape.unknownFields == .reject, rejected: shape.rejectFields
            )
        }

        mutating func node(_ type: TypeRef, _ own: Constraints) -> Node {
            let (resolved, aliasConstraints) = spec.resolve(type)
            let c = own.merged(over: aliasConstraints)
            switch resolved {
            case .string: return .string(RuleValues.string(c))
            case .integer: return .integer(RuleValues.number(c))
            case .number: return .number(RuleValues.number(c))
            case .boolean:
                if case .bool(let flag)? = c.const { return .boolean(constant: flag) }
                return .boolean(constant: nil)
            case .json: return .json
            case .array(let element): return .array(RuleValues.collection(c), node(element, Constraints()))
            case .map(let element): return .map(RuleValues.collection(c), node(element, Constraints()))
            case .enumeration(let name, _), .object(let name, _), .union(let name, _), .oneOf(let name, _):
                let base = Node.named(namedIndex(name))
                if case .enumeration = resolved, case .string(let constant)? = c.const {
                    return .constant(StringRules(constant: constant), base)
                }
                return base
            case .unresolved: return .unresolved
            }
        }

        mutating func namedIndex(_ name: String) -> Int {
            if let index = indexes[name] { return index }
            let index = named.count
            indexes[name] = index
            named.append(.closedEnum(allowed: [], []))  // placeholder while a recursive type is compiled
            guard let type = spec.type(named: name) else { return index }
            let plan: NamedPlan
            switch type.kind {
            case .object(let shape): plan = .object(objectPlan(shape))
            case .enumeration(let values):
                let list = values.values.map(\.value)
                plan = values.open ? .openEnum(name: name, known: Set(list)) : .closedEnum(allowed: list, Set(list))
            case .union(let union):
                let cases = union.cases.map { (value: JSONValue(spec: $0.tagValue), plan: namedIndex($0.type)) }
                plan = .union(tag: union.tag, cases: cases, open: union.open, typeName: name)
            case .oneOf(let oneOf):
                plan = .oneOf(variants: oneOf.variants.map { node($0.type, $0.constraints) }, expected: oneOf.variants.map(\.name).joined(separator: ", "))
            case .alias(let alias):
                // Aliases are resolved where they are used; a plan for one is never looked up.
                plan = .oneOf(variants: [node(alias.type, alias.constraints)], expected: name)
            }
            named[index] = plan
            return index
        }
    }
}

/// Runtime rule values from spec constraints: the same mapping the generator writes as code.
enum RuleValues {
    static func string(_ c: Constraints) -> StringRules? {
        let rules = StringRules(
            minLength: c.minLength, maxLength: c.maxLength, minBytes: c.minBytes, maxBytes: c.maxBytes, notBlank: c.notBlank,
            prefix: c.prefix, pattern: c.pattern.map(WirePattern.init), format: c.format.flatMap { ValueFormat(rawValue: $0.rawValue) },
            maxDecodedBytes: c.maxDecodedBytes, constant: c.const.flatMap { if case .string(let text) = $0 { return text } else { return nil } }
        )
        let empty = c.minLength == nil && c.maxLength == nil && c.minBytes == nil && c.maxBytes == nil && !c.notBlank && c.prefix == nil
            && c.pattern == nil && c.format == nil && c.maxDecodedBytes == nil && rules.constant == nil
        return empty ? nil : rules
    }

    static func number(_ c: Constraints) -> NumberRules? {
        guard c.minimum != nil || c.maximum != nil || c.format != nil || c.const != nil else { return nil }
        return NumberRules(minimum: c.minimum, maximum: c.maximum, format: c.format.flatMap { ValueFormat(rawValue: $0.rawValue) }, constant: c.const.map(JSONValue.init(spec:)))
    }

    static func collection(_ c: Constraints) -> CollectionRules? {
        guard c.minItems != nil || c.maxItems != nil else { return nil }
        return CollectionRules(minItems: c.minItems, maxItems: c.maxItems)
    }
}
