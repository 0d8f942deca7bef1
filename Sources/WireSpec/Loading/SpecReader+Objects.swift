extension SpecReader {
    /// Reads the object keys (`fields`, `rules`, `unknownFields`, `rejectFields`) of a type or message.
    func objectShape(_ map: Mapping, owner: String, index: SpecIndex, isMessage: Bool) -> ObjectShape {
        let fields = map["fields"].map { self.fields($0, owner: owner, index: index, isMessage: isMessage) } ?? []
        let policy =
            map["unknownFields"].flatMap {
                oneOf($0, "'unknownFields' in \(owner)", UnknownFieldPolicy.self, allowed: [.ignore, .reject, .keep])
            } ?? .ignore
        var rejectFields: [String] = []
        if let node = map["rejectFields"], let names = stringList(node, "'rejectFields' in \(owner)") {
            for (name, location) in names {
                if fields.contains(where: { $0.name == name }) {
                    error("'rejectFields' in \(owner) names '\(name)', which is a declared field", at: location)
                } else {
                    rejectFields.append(name)
                }
            }
        }
        let rules = map["rules"].map { self.rules($0, owner: owner, fields: fields, index: index) } ?? []
        return ObjectShape(fields: fields, rules: rules, unknownFields: policy, rejectFields: rejectFields)
    }

    // MARK: Rules

    private static let conditionalRuleKeys = ["when", "require", "forbid", "then", "description", "violation"]
    private static let budgetRuleKeys = ["budget", "sum", "max", "description", "violation"]

    /// Reads `rules:`, a list of conditional rules and byte budgets over `fields`.
    func rules(_ node: YAMLNode, owner: String, fields: [Field], index: SpecIndex) -> [Rule] {
        guard case .sequence(let items) = node.kind else {
            error("expected a list of rules for 'rules' in \(owner), found \(node.kindDescription)", at: node.location)
            return []
        }
        return items.enumerated().compactMap { offset, item in
            let context = "rule \(offset + 1) of \(owner)"
            if case .mapping(let entries) = item.kind, entries.contains(where: { $0.key == "budget" }) {
                return budgetRule(item, context: context, index: index).map(Rule.byteBudget)
            }
            return conditionalRule(item, context: context, fields: fields, owner: owner, index: index).map(Rule.conditional)
        }
    }

    private func conditionalRule(_ node: YAMLNode, context: String, fields: [Field], owner: String, index: SpecIndex) -> ConditionalRule? {
        guard let map = mapping(node, in: context, allowedKeys: Self.conditionalRuleKeys),
            let whenNode = require("when", in: map, context: context)
        else { return nil }
        let names = fields.map(\.name)
        func checkName(_ name: String, at location: SourceLocation) -> Bool {
            guard names.contains(name) else {
                error("\(context) names field '\(name)', which \(owner) does not declare\(Suggestions.hint(for: name, in: names))", at: location)
                return false
            }
            return true
        }
        let conditions = self.conditions(whenNode, in: context, check: checkName)
        let require = map["require"].flatMap { stringList($0, "'require' in \(context)") } ?? []
        let forbid = map["forbid"].flatMap { stringList($0, "'forbid' in \(context)") } ?? []
        let then = map["then"].map { self.conditions($0, in: context, key: "then", check: checkName) }
        let validRequire = require.filter { checkName($0.0, at: $0.1) }.map(\.0)
        let validForbid = forbid.filter { checkName($0.0, at: $0.1) }.map(\.0)
        if require.isEmpty && forbid.isEmpty && map["then"] == nil {
            error(
                "\(context) has none of 'require', 'forbid' and 'then'; say which fields the condition requires, forbids or fixes",
                at: map.node.location)
        }
        if let then = then ?? nil {
            for condition in then {
                if let clash = conditions?.first(where: { $0.field == condition.field }) {
                    error(
                        "\(context) names '\(clash.field)' in both 'when' and 'then'; a rule cannot fix the field it tests",
                        at: map.keyLocation("then") ?? map.node.location)
                }
                if validForbid.contains(condition.field) {
                    error(
                        "\(context) both forbids '\(condition.field)' and fixes its value in 'then'", at: map.keyLocation("then") ?? map.node.location
                    )
                }
            }
        }
        guard let conditions, validRequire.count == require.count, validForbid.count == forbid.count, let then = then ?? [] else { return nil }
        return ConditionalRule(
            when: conditions, require: validRequire, forbid: validForbid, then: then,
            description: map["description"].flatMap { string($0, "'description' in \(context)") },
            violation: map["violation"].flatMap { answer($0, "'violation' in \(context)", index: index) },
            location: map.node.location
        )
    }

    /// Reads `{field: value}` or `{field: [value, value]}` conditions (under `key`: `when`,
    /// `then`, `final`, ...); every named field is checked.
    func conditions(_ node: YAMLNode, in context: String, key: String = "when", check: (String, SourceLocation) -> Bool) -> [Condition]? {
        guard let entries = entries(node, in: "'\(key)' of \(context)") else { return nil }
        if entries.isEmpty {
            error("'\(key)' of \(context) is empty; give at least one field and value", at: node.location)
            return nil
        }
        var result: [Condition] = []
        var valid = true
        for entry in entries {
            guard check(entry.key, entry.keyLocation) else {
                valid = false
                continue
            }
            switch value(entry.value) {
            case .array(let values): result.append(Condition(field: entry.key, values: values))
            case .object:
                error("the condition on '\(entry.key)' in \(context) must be a value or a list of values, found a mapping", at: entry.value.location)
                valid = false
            case let single: result.append(Condition(field: entry.key, values: [single]))
            }
        }
        return valid ? result : nil
    }

    private func budgetRule(_ node: YAMLNode, context: String, index: SpecIndex) -> ByteBudget? {
        guard let map = mapping(node, in: context, allowedKeys: Self.budgetRuleKeys),
            let nameNode = map["budget"], let name = identifier(nameNode, "'budget' in \(context)"),
            let sumNode = require("sum", in: map, context: context),
            let maxNode = require("max", in: map, context: context)
        else { return nil }
        let paths = stringList(sumNode, "'sum' in \(context)") ?? []
        guard let max = nonNegativeInteger(maxNode, "'max' in \(context)"), !paths.isEmpty else { return nil }
        return ByteBudget(
            name: name, paths: paths.map(\.0), max: max,
            description: map["description"].flatMap { string($0, "'description' in \(context)") },
            violation: map["violation"].flatMap { answer($0, "'violation' in \(context)", index: index) },
            location: map.node.location
        )
    }
}
