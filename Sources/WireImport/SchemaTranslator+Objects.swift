import WireSpec

/// Object schemas: their fields, what they refuse, and their `if`/`then` as conditional rules.
extension SchemaTranslator {
    /// `fields`, `unknownFields` and the description of an object schema.
    mutating func objectBody(_ schema: MergedSchema, context: String, skipping skipped: Set<String> = []) -> [(String, SpecYAML)] {
        checkKeywords(schema)
        var body: [(String, SpecYAML)] = []
        if let description = schema.text("description") ?? schema.text("title") { body.append(("description", .string(description))) }
        body.append(("fields", .mapping(fields(schema, context: context, skipping: skipped))))
        let rejected = schema.properties.filter { $0.schema.text == "false" && !skipped.contains($0.name) }.map(\.name)
        if !rejected.isEmpty { body.append(("rejectFields", .list(rejected.map(SpecYAML.string)))) }
        var rules: [SpecYAML] = []
        for conditional in schema.conditionals {
            if let rule = conditionalRule(conditional, in: schema) {
                rules.append(rule)
            } else {
                report(
                    .warning,
                    "this if/then is left out, so the spec checks less than the document: only an `if` that fixes properties it requires "
                        + "(const or enum) and a `then` that requires, forbids or fixes properties has an equivalent (a conditional rule)",
                    at: conditional.location)
            }
        }
        for budget in schema.wire("budgets")?.items ?? [] { rules.append(SpecYAML(budget.node)) }
        if !rules.isEmpty { body.append(("rules", .list(rules))) }
        if schema.wire("unknownFields")?.text == "keep" {
            body.append(("unknownFields", .string("keep")))
        } else if let additional = schema.keywords["additionalProperties"], additional.text == "false" {
            body.append(("unknownFields", .string("reject")))
        } else if let additional = schema.keywords["additionalProperties"], additional.isMapping {
            report(.warning, "an object with both properties and typed additional properties keeps the extra ones unchecked", at: additional.location)
            body.append(("unknownFields", .string("keep")))
        }
        return body
    }

    /// The fields of an object schema.
    mutating func fields(_ schema: MergedSchema, context: String, skipping skipped: Set<String> = []) -> [(String, SpecYAML)] {
        var result: [(String, SpecYAML)] = []
        for (name, location, property) in schema.properties where !skipped.contains(name) && property.text != "false" {
            guard name.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
                report(.error, "property '\(name)' is not a name the spec language takes (letters, digits and '_')", at: location)
                continue
            }
            let type = fieldType(property, context: "\(context) \(name)")
            var entry: [(String, SpecYAML)] = [("type", .string(type.type))]
            if !schema.required.contains(name) { entry.append(("optional", .literal("true"))) }
            if type.nullable { entry.append(("nullable", .literal("true"))) }
            entry += type.constraints
            // The answer to breaking this field, as the export writes it (beside a `$ref`, or in a nullable's first variant).
            if let violation = property["x-wire"]?["violation"] ?? property["anyOf"]?.items.first?["x-wire"]?["violation"] {
                entry.append(("violation", SpecYAML(violation.node)))
            }
            // The field's own description (beside a `$ref`) before its type's.
            if let description = property["description"]?.text ?? type.description ?? resolved(property).flatMap({ $0["description"]?.text }) {
                entry.append(("description", .string(description)))
            }
            result.append((name, entry.count == 1 ? .string(type.type) : .mapping(entry)))
        }
        for name in schema.required.subtracting(schema.properties.map(\.name)).subtracting(skipped).sorted() {
            report(.warning, "'\(name)' is required but has no schema; imported as any JSON", at: schema.location)
            result.append((name, .string("json")))
        }
        return result
    }

    /// An `if`/`then` as a conditional rule (`when`, `require`, `forbid`, `then`), when it has one:
    /// `if` fixes properties it also requires (to a `const` or an `enum`); `then` requires them not
    /// null (`{not: {type: null}}`, or `required` alone on a property that cannot be null), forbids
    /// them (`false`) or fixes required ones. No `else`.
    mutating func conditionalRule(_ conditional: MergedSchema.Conditional, in schema: MergedSchema) -> SpecYAML? {
        guard conditional.otherwise == nil, let condition = resolved(conditional.condition), let then = conditional.then.flatMap({ resolved($0) }),
            Set(condition.entries.map(\.key)).isSubset(of: ["properties", "required", "type"]),
            Set(then.entries.map(\.key)).isSubset(of: ["properties", "required", "type"]),
            let tested = condition["properties"]?.entries, !tested.isEmpty
        else { return nil }
        let conditionRequired = Set(condition["required"]?.items.compactMap(\.text) ?? [])
        var when: [(String, SpecYAML)] = []
        for (name, _, value) in tested {
            guard conditionRequired.contains(name), let values = Self.fixedValues(value) else { return nil }
            when.append((name, values))
        }
        let thenRequired = then["required"]?.items.compactMap(\.text) ?? []
        var require: [String] = []
        var forbid: [String] = []
        var fixed: [(String, SpecYAML)] = []
        for (name, _, value) in then["properties"]?.entries ?? [] {
            if value.text == "false" {
                forbid.append(name)
            } else if value.entries.count == 1, let not = value["not"], not.entries.count == 1, not["type"]?.text == "null" {
                require.append(name)
            } else if thenRequired.contains(name), let values = Self.fixedValues(value) {
                fixed.append((name, values))
            } else {
                return nil
            }
        }
        for name in thenRequired where !require.contains(name) && !fixed.contains(where: { $0.0 == name }) {
            // JSON Schema's `required` lets the value be null; the spec's `require` does not, so
            // the two agree only on a property that cannot be null.
            guard let property = schema.properties.first(where: { $0.name == name }), !merged(property.schema).types.1 else { return nil }
            require.append(name)
        }
        guard !require.isEmpty || !forbid.isEmpty || !fixed.isEmpty else { return nil }
        var rule: [(String, SpecYAML)] = [("when", .mapping(when))]
        if !require.isEmpty { rule.append(("require", .list(require.map(SpecYAML.string)))) }
        if !forbid.isEmpty { rule.append(("forbid", .list(forbid.map(SpecYAML.string)))) }
        if !fixed.isEmpty { rule.append(("then", .mapping(fixed))) }
        return .mapping(rule)
    }

    /// `{const: v}` as `v`, `{enum: [a, b]}` as `[a, b]` (with `type` beside them allowed).
    static func fixedValues(_ schema: AsyncAPISource.Located) -> SpecYAML? {
        guard Set(schema.entries.map(\.key)).isSubset(of: ["const", "enum", "type"]) else { return nil }
        if let value = schema["const"] { return SpecYAML(value.node) }
        guard let values = schema["enum"]?.items, !values.isEmpty else { return nil }
        return values.count == 1 ? SpecYAML(values[0].node) : .list(values.map { SpecYAML($0.node) })
    }
}
