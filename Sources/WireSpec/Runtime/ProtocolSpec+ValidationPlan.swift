@_spi(Generated) import WireRuntime

extension ProtocolSpec {
    /// The spec's frame checks as the runtime engine runs them: what generated code holds as its
    /// protocol's plan and what `wire validate` builds at run time, made in one place.
    @_spi(Generated) public var validationPlan: ValidationPlan { validationPlanLayout.plan }

    /// The spec's plan, with the index in the plan of each named type that has one, and the id of
    /// each message (a message of both directions has one per direction).
    @_spi(Generated) public var validationPlanLayout: (plan: ValidationPlan, namedIndexes: [String: Int], messageIDs: [MessageRef: Int]) {
        let answer = resolved
        let defaultAnswer = answer(Answer(errorCode: defaultErrorCode))
        var builder = PlanBuilder(spec: self, answer: answer)
        var messages: [ValidationPlan.MessagePlan] = []
        for direction in Direction.allCases {
            for message in self.messages(direction) {
                let object = builder.objectPlan(message.shape)
                let variants = message.variants.map { builder.unionIndex($0, typeName: message.tag) }
                messages.append(
                    ValidationPlan.MessagePlan(
                        id: messages.count, ref: MessageRef(direction: direction, tag: message.tag),
                        answer: message.violation.map(answer) ?? defaultAnswer, object: object, variants: variants
                    ))
            }
        }
        // Every named type gets a plan, so that each generated type can check a value of itself
        // on its own (HTTP bodies, `Codable`), not only the types messages reach.
        for type in types { _ = builder.namedIndex(type.name) }
        let plan = ValidationPlan(
            tagField: tagField, messages: messages, named: builder.named, defaultAnswer: defaultAnswer,
            sizeAnswer: answer(Answer(errorCode: sizeErrorCode)), notJSONAnswer: answer(notJSONAnswer), notAFrameAnswer: answer(notAFrameAnswer))
        return (plan, builder.indexes, Dictionary(uniqueKeysWithValues: messages.map { ($0.ref, $0.id) }))
    }
}

/// Compiles model types into plans; named types get one plan each, shared by every use.
private struct PlanBuilder {
    let spec: ProtocolSpec
    let answer: (Answer) -> ViolationAnswer
    var named: [ValidationPlan.NamedPlan] = []
    var indexes: [String: Int] = [:]

    init(spec: ProtocolSpec, answer: @escaping (Answer) -> ViolationAnswer) {
        self.spec = spec
        self.answer = answer
    }

    mutating func objectPlan(_ shape: ObjectShape) -> ValidationPlan.ObjectPlan {
        let fields = shape.fields.map { field in
            ValidationPlan.FieldPlan(
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
                let expected = rule.then.map { (key: $0.field, values: $0.values.map(JSONValue.init(spec:))) }
                let requirement = ConditionalRequirement(when: conditions, require: rule.require, forbid: rule.forbid, expect: expected)
                conditionals.append((requirement, rule.violation.map(answer)))
            case .byteBudget(let budget):
                let terms = budget.paths.map {
                    ByteBudgetRule.Term(keys: $0.split(separator: ".").map(String.init), decoded: spec.budgetPathIsBase64($0, in: shape))
                }
                budgets.append((ByteBudgetRule(name: budget.name, terms: terms, max: budget.max), budget.violation.map(answer)))
            }
        }
        return ValidationPlan.ObjectPlan(
            fields: fields, conditionals: conditionals, budgets: budgets, knownKeys: Set(shape.fields.map(\.name)),
            rejectUnknown: shape.unknownFields == .reject, rejected: shape.rejectFields
        )
    }

    mutating func node(_ type: TypeRef, _ own: Constraints) -> ValidationPlan.Node {
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
        case .map(.string, let element): return .map(RuleValues.collection(c), node(element, Constraints()))
        case .map(let key, let element): return .map(RuleValues.collection(c), key: node(key, Constraints()), node(element, Constraints()))
        case .enumeration(let name, _), .object(let name, _), .union(let name, _), .oneOf(let name, _):
            let base = ValidationPlan.Node.named(namedIndex(name))
            if case .enumeration = resolved, case .string(let constant)? = c.const {
                return .constant(StringRules(constant: constant), base)
            }
            return base
        case .unresolved: return .unresolved
        }
    }

    /// A plan for a union that is not a named type (a union message's body).
    mutating func unionIndex(_ union: UnionType, typeName: String) -> Int {
        let cases = union.cases.map { (value: JSONValue(spec: $0.tagValue), plan: namedIndex($0.type)) }
        named.append(.union(tag: union.tag, cases: cases, open: union.open, typeName: typeName))
        return named.count - 1
    }

    mutating func namedIndex(_ name: String) -> Int {
        if let index = indexes[name] { return index }
        let index = named.count
        indexes[name] = index
        named.append(.closedEnum(allowed: [], keys: []))  // placeholder while a recursive type is compiled
        guard let type = spec.type(named: name) else { return index }
        let plan: ValidationPlan.NamedPlan
        switch type.kind {
        case .object(let shape): plan = .object(objectPlan(shape))
        case .enumeration(let values):
            let list = values.values.map(\.value)
            plan = values.open ? .openEnumeration(name: name, known: list) : .enumeration(allowed: list)
        case .union(let union):
            let cases = union.cases.map { (value: JSONValue(spec: $0.tagValue), plan: namedIndex($0.type)) }
            plan = .union(tag: union.tag, cases: cases, open: union.open, typeName: name)
        case .oneOf(let oneOf):
            plan = .oneOf(
                variants: oneOf.variants.map { node($0.type, $0.constraints) }, expected: oneOf.variants.map(\.name).joined(separator: ", "))
        case .alias(let alias):
            // Aliases are resolved where they are used; a plan for one is never looked up.
            plan = .oneOf(variants: [node(alias.type, alias.constraints)], expected: name)
        }
        named[index] = plan
        return index
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
        let empty =
            c.minLength == nil && c.maxLength == nil && c.minBytes == nil && c.maxBytes == nil && !c.notBlank && c.prefix == nil
            && c.pattern == nil && c.format == nil && c.maxDecodedBytes == nil && rules.constant == nil
        return empty ? nil : rules
    }

    static func number(_ c: Constraints) -> NumberRules? {
        guard c.minimum != nil || c.maximum != nil || c.format != nil || c.const != nil else { return nil }
        return NumberRules(
            minimum: c.minimum, maximum: c.maximum, format: c.format.flatMap { ValueFormat(rawValue: $0.rawValue) },
            constant: c.const.map(JSONValue.init(spec:)))
    }

    static func collection(_ c: Constraints) -> CollectionRules? {
        guard c.minItems != nil || c.maxItems != nil else { return nil }
        return CollectionRules(minItems: c.minItems, maxItems: c.maxItems)
    }
}
