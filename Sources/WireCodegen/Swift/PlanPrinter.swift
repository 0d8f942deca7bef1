@_spi(Generated) import WireRuntime
import WireSpec

/// Prints a ``ValidationPlan`` as the Swift expression that builds it, so that generated code
/// holds exactly the plan `ProtocolSpec.validationPlan` makes: one derivation of a spec's checks,
/// printed rather than derived twice. Deterministic: the same plan gives the same text.
@_spi(Generated) public enum PlanPrinter {
    /// The Swift expression of type `WireRuntime.ValidationPlan` that builds `plan`.
    public static func expression(_ plan: ValidationPlan) -> String {
        var lines = ["WireRuntime.ValidationPlan("]
        lines.append("    tagField: \(SwiftNames.literal(plan.tagField)),")
        lines.append("    messages: [")
        for message in plan.messages {
            let ref = "WireRuntime.FrameKey(.\(message.ref.direction.rawValue), \(SwiftNames.literal(message.tag)))"
            lines.append(
                "        .init(id: \(message.id), ref: \(ref), answer: \(answer(message.answer)), object: \(object(message.object)), variants: "
                    + "\(message.variants.map(String.init) ?? "nil")),")
        }
        lines.append("    ],")
        lines.append("    named: [")
        for (index, named) in plan.named.enumerated() {
            lines.append("        \(self.named(named)),  // \(index)")
        }
        lines.append("    ],")
        lines.append("    defaultAnswer: \(answer(plan.defaultAnswer)),")
        lines.append("    sizeAnswer: \(answer(plan.sizeAnswer)),")
        lines.append("    notJSONAnswer: \(answer(plan.notJSONAnswer)),")
        lines.append("    notAFrameAnswer: \(answer(plan.notAFrameAnswer))")
        lines.append(")")
        return lines.joined(separator: "\n")
    }

    private static func answer(_ answer: ViolationAnswer?) -> String { SwiftTypeMapper.answerLiteral(answer) }

    private static func list(_ words: [String]) -> String { SwiftNames.listLiteral(words) }

    private static func json(_ value: JSONValue) -> String { SwiftNames.jsonLiteral(value) }

    private static func named(_ plan: ValidationPlan.NamedPlan) -> String {
        switch plan {
        case .object(let object): return ".object(\(self.object(object)))"
        case .closedEnum(let allowed, _): return ".enumeration(allowed: \(list(allowed)))"
        case .openEnum(let name, _, let keys): return ".openEnumeration(name: \(SwiftNames.literal(name)), known: \(list(keys.map(\.text))))"
        case .union(let tag, let cases, let open, let typeName):
            let pairs = cases.map { "(value: \(json($0.value)), plan: \($0.plan))" }.joined(separator: ", ")
            return ".union(tag: \(SwiftNames.literal(tag)), cases: [\(pairs)], open: \(open), typeName: \(SwiftNames.literal(typeName)))"
        case .oneOf(let variants, let expected):
            return ".oneOf(variants: [\(variants.map(node).joined(separator: ", "))], expected: \(SwiftNames.literal(expected)))"
        }
    }

    private static func object(_ plan: ValidationPlan.ObjectPlan) -> String {
        let fields = plan.fields.map { field in
            ".init(key: \(SwiftNames.literal(field.key)), required: \(field.required), nullable: \(field.nullable), "
                + "answer: \(answer(field.answer)), node: \(node(field.node)))"
        }
        let conditionals = plan.conditionals.map { "(rule: \(conditional($0.rule)), answer: \(answer($0.answer)))" }
        let budgets = plan.budgets.map { "(rule: \(budget($0.rule)), answer: \(answer($0.answer)))" }
        return "WireRuntime.ValidationPlan.ObjectPlan(fields: [\(fields.joined(separator: ", "))], conditionals: ["
            + conditionals.joined(separator: ", ") + "], budgets: [\(budgets.joined(separator: ", "))], knownKeys: "
            + "\(list(plan.knownKeys.sorted())), rejectUnknown: \(plan.rejectUnknown), rejected: \(list(plan.rejected)))"
    }

    private static func node(_ node: ValidationPlan.Node) -> String {
        switch node.kind {
        case .string: return ".string(\(node.stringRules.map(stringRules) ?? "nil"))"
        case .integer: return ".integer(\(node.numberRules.map(numberRules) ?? "nil"))"
        case .number: return ".number(\(node.numberRules.map(numberRules) ?? "nil"))"
        case .boolean: return ".boolean(constant: \(node.booleanConstant.map(String.init) ?? "nil"))"
        case .json: return ".json"
        case .unresolved: return ".unresolved"
        case .array: return ".array(\(node.collectionRules.map(collectionRules) ?? "nil"), \(self.node(node.element!)))"
        case .map:
            let key = node.key.map { "key: \(self.node($0)), " } ?? ""
            return ".map(\(node.collectionRules.map(collectionRules) ?? "nil"), \(key)\(self.node(node.element!)))"
        case .named: return ".named(\(node.named))"
        case .constant: return ".constant(\(stringRules(node.stringRules!)), \(self.node(node.element!)))"
        }
    }

    private static func stringRules(_ rules: StringRules) -> String {
        var arguments: [String] = []
        if let value = rules.minLength { arguments.append("minLength: \(value)") }
        if let value = rules.maxLength { arguments.append("maxLength: \(value)") }
        if let value = rules.minBytes { arguments.append("minBytes: \(value)") }
        if let value = rules.maxBytes { arguments.append("maxBytes: \(value)") }
        if rules.notBlank { arguments.append("notBlank: true") }
        if let value = rules.prefix { arguments.append("prefix: \(SwiftNames.literal(value))") }
        if let value = rules.pattern { arguments.append("pattern: WireRuntime.WirePattern(\(SwiftNames.literal(value.source)))") }
        if let value = rules.format { arguments.append("format: .\(value.rawValue)") }
        if let value = rules.maxDecodedBytes { arguments.append("maxDecodedBytes: \(value)") }
        if let value = rules.constant { arguments.append("constant: \(SwiftNames.literal(value))") }
        if let value = rules.allowedValues { arguments.append("allowedValues: \(list(value.sorted()))") }
        return "WireRuntime.StringRules(\(arguments.joined(separator: ", ")))"
    }

    private static func numberRules(_ rules: NumberRules) -> String {
        var arguments: [String] = []
        if let value = rules.minimum { arguments.append("minimum: \(SwiftNames.doubleLiteral(value))") }
        if let value = rules.maximum { arguments.append("maximum: \(SwiftNames.doubleLiteral(value))") }
        if let value = rules.format { arguments.append("format: .\(value.rawValue)") }
        if let value = rules.constant { arguments.append("constant: \(json(value))") }
        return "WireRuntime.NumberRules(\(arguments.joined(separator: ", ")))"
    }

    private static func collectionRules(_ rules: CollectionRules) -> String {
        var arguments: [String] = []
        if let value = rules.minItems { arguments.append("minItems: \(value)") }
        if let value = rules.maxItems { arguments.append("maxItems: \(value)") }
        return "WireRuntime.CollectionRules(\(arguments.joined(separator: ", ")))"
    }

    private static func pairs(_ conditions: [(key: String, values: [JSONValue])]) -> String {
        "["
            + conditions.map { "(key: \(SwiftNames.literal($0.key)), values: [\($0.values.map(json).joined(separator: ", "))])" }
            .joined(separator: ", ") + "]"
    }

    private static func conditional(_ rule: ConditionalRequirement) -> String {
        "WireRuntime.ConditionalRequirement(when: \(pairs(rule.conditions)), require: \(list(rule.required)), forbid: "
            + "\(list(rule.forbidden)), expect: \(pairs(rule.expected)))"
    }

    private static func budget(_ rule: ByteBudgetRule) -> String {
        let terms = rule.terms.map { ".init(keys: \(list($0.keys)), decoded: \($0.decoded))" }.joined(separator: ", ")
        return "WireRuntime.ByteBudgetRule(name: \(SwiftNames.literal(rule.name)), terms: [\(terms)], max: \(rule.max))"
    }
}
