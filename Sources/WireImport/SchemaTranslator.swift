import WireSpec

/// Turns JSON Schema (as AsyncAPI payloads state it) into the spec language: a type expression
/// and constraints for a field, named types for what needs a name (objects, enums, unions), and a
/// diagnostic for every keyword it cannot carry over faithfully.
struct SchemaTranslator {
    var source: AsyncAPISource
    /// Named types written so far, in the order they were made.
    private(set) var types: [(String, SpecYAML)] = []
    private(set) var diagnostics: [Diagnostic] = []
    /// The type name given to each `$ref` target already translated.
    private var namesByReference: [String: String] = [:]
    /// The type made for each alias (and each union case type) the export named in `x-wire`.
    private var aliasNames: [String: String] = [:]
    private var caseNames: [String: String] = [:]
    /// The translation of each `$ref` target that is not a named type (an array of a named item).
    private var inlineByReference: [String: FieldType] = [:]
    private var takenNames: Set<String> = []
    /// The schemas whose keywords were checked, by where they start.
    private var checkedSchemas: Set<SourceLocation> = []

    /// A field's translation: its type expression, its constraints, and whether `null` is allowed.
    struct FieldType {
        var type: String
        var constraints: [(String, SpecYAML)] = []
        var nullable = false
        var description: String?
    }

    init(source: AsyncAPISource) { self.source = source }

    /// Keywords that describe and do not constrain: read, or knowingly left out.
    static let descriptive: Set<String> = [
        "description", "title", "examples", "example", "default", "$comment", "deprecated", "readOnly", "writeOnly", "$id", "$schema",
        "x-parser-schema-id", "externalDocs",
    ]
    /// Keywords with no equivalent in the spec language: refused with a diagnostic.
    static let refused: [String: String] = [
        "not": "a schema that must not match has no equivalent; state what is allowed instead",
        "if": "conditional schemas (if/then/else) have no equivalent; use a union tagged by a field",
        "then": "conditional schemas (if/then/else) have no equivalent; use a union tagged by a field",
        "else": "conditional schemas (if/then/else) have no equivalent; use a union tagged by a field",
        "dependentSchemas": "dependent schemas have no equivalent; use a conditional rule in the spec",
        "dependentRequired": "dependent requirements are written as a conditional rule in the spec, which import does not infer",
        "dependencies": "dependencies are written as a conditional rule in the spec, which import does not infer",
        "patternProperties": "keys matched by a pattern have no equivalent; a map with a key type can state the key's pattern",
        "prefixItems": "tuples have no equivalent",
        "contains": "'contains' has no equivalent",
        "uniqueItems": "unique items have no equivalent",
        "multipleOf": "'multipleOf' has no equivalent",
        "exclusiveMinimum": "exclusive bounds have no equivalent outside integers",
        "exclusiveMaximum": "exclusive bounds have no equivalent outside integers",
        "minProperties": "a count of properties has no equivalent outside maps",
        "maxProperties": "a count of properties has no equivalent outside maps",
    ]

    // MARK: Names

    /// A type name in UpperCamelCase made from `words`, unique among the types made.
    mutating func freshName(_ words: String) -> String {
        var name = ""
        var upper = true
        for character in words {
            if character.isLetter || character.isNumber {
                name.append(upper ? Character(character.uppercased()) : character)
                upper = false
            } else {
                upper = true
            }
        }
        if name.isEmpty || name.first!.isNumber { name = "T" + name }
        var candidate = name
        var number = 2
        while takenNames.contains(candidate) || Self.reservedTypeNames.contains(candidate) {
            candidate = "\(name)\(number)"
            number += 1
        }
        takenNames.insert(candidate)
        return candidate
    }

    static let reservedTypeNames: Set<String> = [
        "ErrorCode", "Swift", "Foundation", "WireRuntime", "Self", "Any", "Type", "Protocol", "string", "integer", "number", "boolean", "json",
    ]

    mutating func addType(_ name: String, _ body: SpecYAML) { types.append((name, body)) }

    mutating func report(_ severity: Diagnostic.Severity, _ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(severity, message, at: location))
    }

    // MARK: Schemas

    /// Resolves `$ref`s; a broken one is reported and gives `nil`.
    mutating func resolved(_ node: AsyncAPISource.Located) -> AsyncAPISource.Located? {
        do throws(Diagnostic) {
            return try source.resolve(node)
        } catch {
            diagnostics.append(error)
            return nil
        }
    }

    /// `allOf` merged into one object schema: properties and required keys of every part, the
    /// part's own keywords after.
    mutating func merged(_ schema: AsyncAPISource.Located) -> MergedSchema {
        var result = MergedSchema(location: schema.location)
        merge(schema, into: &result, depth: 0)
        return result
    }

    private mutating func merge(_ schema: AsyncAPISource.Located, into result: inout MergedSchema, depth: Int) {
        guard depth < 32, let schema = resolved(schema) else { return }
        for (key, keyLocation, value) in schema.entries {
            switch key {
            case "$ref": break
            case "allOf": for part in value.items { merge(part, into: &result, depth: depth + 1) }
            case "properties":
                for (name, location, property) in value.entries where !result.properties.contains(where: { $0.name == name }) {
                    result.properties.append((name, location, property))
                }
            case "required": result.required.formUnion(value.items.compactMap(\.text))
            case "if": result.conditionals.append((value, schema["then"], schema["else"], keyLocation))
            case "then" where schema["if"] != nil, "else" where schema["if"] != nil: break
            default:
                if result.keywords[key] == nil { result.keywords[key] = value }
                result.keywordLocations[key] = keyLocation
            }
        }
        if result.reference == nil, depth == 0 { result.reference = schema.reference }
    }

    /// The type of a schema: a built-in, an expression, or a named type made for it. `context`
    /// names what it is for (the type name an object or enum gets when it has none).
    mutating func fieldType(_ schema: AsyncAPISource.Located, context: String) -> FieldType {
        guard let target = resolved(schema) else { return FieldType(type: "json") }
        // `allOf: [{$ref: X}]` beside a `const`: the type X, fixed to one value.
        if let parts = target["allOf"]?.items, parts.count == 1, parts[0]["$ref"] != nil, let constant = target["const"],
            Set(target.entries.map(\.key)).isSubset(of: ["allOf", "const", "description", "title"])
        {
            var type = fieldType(parts[0], context: context)
            type.constraints.append(("const", SpecYAML(constant.node)))
            type.description = target["description"]?.text ?? type.description
            return type
        }
        // An alias the export inlined, named again.
        let shape = merged(target)
        if let alias = shape.wire("alias")?.text {
            if let known = aliasNames[alias] { return FieldType(type: known, nullable: shape.types.1, description: shape.text("description")) }
            let name = freshName(alias)
            aliasNames[alias] = name
            let inner = inlineType(shape, context: name)
            let description = shape.wire("aliasDescription")?.text.map { [("description", SpecYAML.string($0))] } ?? []
            addType(name, .mapping(description + [("type", .string(inner.type))] + inner.constraints))
            return FieldType(type: name, nullable: inner.nullable, description: inner.description)
        }
        // The spec language's own table of error codes, as the export writes it.
        if target.reference.flatMap(Self.componentName) == "ErrorCode", merged(target).wire("openEnum") != nil {
            return FieldType(type: "ErrorCode")
        }
        // A schema reached by `$ref` to a named component is a named type of its own; any other
        // (an array, a plain scalar) is translated once, and what it needs named is named after it.
        if let reference = target.reference, let component = Self.componentName(reference) {
            if let name = namesByReference[reference] { return FieldType(type: name) }
            if let known = inlineByReference[reference] { return known }
            let kind = merged(target)
            if kind.isNamedWorthy {
                let name = freshName(component)
                namesByReference[reference] = name
                if let body = namedType(kind, name: name) { addType(name, body) }
                return FieldType(type: name)
            }
            let type = inlineType(kind, context: component)
            inlineByReference[reference] = type
            return type
        }
        return inlineType(merged(target), context: context)
    }

    /// `#/components/schemas/Name` → `Name`; any other pointer's last token.
    static func componentName(_ reference: String) -> String? {
        guard let pointer = reference.split(separator: "#", omittingEmptySubsequences: false).last, !pointer.isEmpty else {
            return reference.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) }
        }
        return pointer.split(separator: "/").last.map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
    }

    /// A schema with no name: scalars and arrays inline; objects, enums and unions get a name
    /// from `context`.
    mutating func inlineType(_ schema: MergedSchema, context: String) -> FieldType {
        checkKeywords(schema)
        var (kinds, nullable) = schema.types
        var result = FieldType(type: "json", nullable: nullable)
        result.description = schema.text("description") ?? schema.text("title")
        // An open enum, as the export marks it (`examples` and `x-wire.openEnum`).
        if let values = schema.wire("openEnum")?.items.compactMap(\.text), !values.isEmpty {
            let name = freshName(context)
            var body: [(String, SpecYAML)] = []
            if let description = result.description { body.append(("description", .string(description))) }
            body += [("open", .literal("true")), ("enum", .list(values.map(SpecYAML.string)))]
            addType(name, .mapping(body))
            result.type = name
            result.description = nil
            return result
        }
        if let values = schema.keywords["enum"]?.items {
            let texts = values.compactMap { $0.node.isStringScalar ? $0.text : nil }
            let nonNull = values.filter { !$0.node.isNull }
            result.nullable = result.nullable || nonNull.count < values.count
            if nonNull.count == 1 {
                result.type = Self.scalarType(of: nonNull[0], declared: kinds)
                result.constraints.append(("const", SpecYAML(nonNull[0].node)))
                return result
            }
            guard texts.count == nonNull.count, !texts.isEmpty else {
                report(
                    .warning, "an enum of values that are not all strings is imported as its type without the list",
                    at: schema.keywordLocations["enum"] ?? schema.location)
                kinds.remove("null")
                result.type = kinds.count == 1 ? Self.builtIn(kinds.first!) ?? "json" : "json"
                return result
            }
            let name = freshName(context)
            var body: [(String, SpecYAML)] = []
            if let description = result.description { body.append(("description", .string(description))) }
            body.append(("enum", .list(texts.map(SpecYAML.string))))
            addType(name, .mapping(body))
            result.type = name
            result.description = nil
            return result
        }
        if let constant = schema.keywords["const"] {
            result.type = Self.scalarType(of: constant, declared: kinds)
            result.constraints.append(("const", SpecYAML(constant.node)))
            return result
        }
        if let variants = schema.keywords["oneOf"] ?? schema.keywords["anyOf"] {
            // `anyOf: [X, {type: null}]` is X, nullable.
            let items = variants.items
            let nonNull = items.filter { resolved($0).map { !merged($0).isNullOnly } ?? true }
            if nonNull.count == 1, items.count == 2 {
                var inner = fieldType(nonNull[0], context: context)
                inner.nullable = true
                inner.description = inner.description ?? result.description
                return inner
            }
            result.type = unionType(variants.items, schema: schema, context: context)
            return result
        }
        kinds.remove("null")
        if kinds.isEmpty, !schema.properties.isEmpty || schema.keywords["additionalProperties"] != nil { kinds = ["object"] }
        guard kinds.count == 1, let kind = kinds.first else {
            if kinds.count > 1 {
                report(.warning, "a value of several types (\(kinds.sorted().joined(separator: ", "))) is imported as any JSON", at: schema.location)
            }
            return result
        }
        switch kind {
        case "string":
            result.type = "string"
            // The spec's own constraints, as the export writes them beside their approximation.
            if let exact = schema.wire("constraints") {
                result.constraints = exact.entries.map { ($0.key, SpecYAML($0.value.node)) }
                break
            }
            for keyword in ["minLength", "maxLength"] {
                if let value = schema.keywords[keyword] { result.constraints.append((keyword, SpecYAML(value.node))) }
            }
            if let pattern = schema.text("pattern") { result.constraints.append(Self.anchored(pattern)) }
            if let format = schema.text("format") {
                switch format {
                case "uuid": result.constraints.append(("format", .string("uuid")))
                case "date-time": result.constraints.append(("format", .string("iso8601")))
                case "uri", "url", "uri-reference": result.constraints.append(("format", .string("uri")))
                case "byte", "base64": result.constraints.append(("format", .string("base64")))
                default:
                    report(
                        .warning, "format '\(format)' has no equivalent; the field is a plain string",
                        at: schema.keywordLocations["format"] ?? schema.location)
                }
            }
        case "integer", "number":
            result.type = kind
            if let exact = schema.wire("constraints") {
                result.constraints = exact.entries.map { ($0.key, SpecYAML($0.value.node)) }
                break
            }
            if let value = schema.keywords["minimum"] { result.constraints.append(("minimum", SpecYAML(value.node))) }
            if let value = schema.keywords["maximum"] { result.constraints.append(("maximum", SpecYAML(value.node))) }
            if kind == "integer" {
                if let value = schema.keywords["exclusiveMinimum"], let bound = Int(value.text ?? "") {
                    result.constraints.append(("minimum", .literal(String(bound + 1))))
                }
                if let value = schema.keywords["exclusiveMaximum"], let bound = Int(value.text ?? "") {
                    result.constraints.append(("maximum", .literal(String(bound - 1))))
                }
            }
            if let format = schema.text("format"), kind == "integer", format != "int32", format != "int64" {
                report(
                    .warning, "format '\(format)' has no equivalent; the field is a plain integer",
                    at: schema.keywordLocations["format"] ?? schema.location)
            }
        case "boolean": result.type = "boolean"
        case "array":
            let item = schema.keywords["items"].map { fieldType($0, context: context + " item") } ?? FieldType(type: "json")
            result.type = "array<\(aliasIfNeeded(item, context: context + " item"))>"
            if let value = schema.keywords["minItems"] { result.constraints.append(("minItems", SpecYAML(value.node))) }
            if let value = schema.keywords["maxItems"] { result.constraints.append(("maxItems", SpecYAML(value.node))) }
        case "object":
            if schema.properties.isEmpty, let additional = schema.keywords["additionalProperties"], additional.isMapping {
                let value = fieldType(additional, context: context + " value")
                let valueType = aliasIfNeeded(value, context: context + " value")
                // Keys with a schema of their own (`propertyNames`) make a map with a key type.
                let key = schema.keywords["propertyNames"].map { aliasIfNeeded(fieldType($0, context: context + " key"), context: context + " key") }
                result.type = key.map { $0 == "string" ? "map<\(valueType)>" : "map<\($0), \(valueType)>" } ?? "map<\(valueType)>"
                if let value = schema.keywords["minProperties"] { result.constraints.append(("minItems", SpecYAML(value.node))) }
                if let value = schema.keywords["maxProperties"] { result.constraints.append(("maxItems", SpecYAML(value.node))) }
            } else if schema.properties.isEmpty {
                result.type = "map<json>"
            } else {
                let name = freshName(context)
                if let body = namedType(schema, name: name) { addType(name, body) }
                result.type = name
                result.description = nil
            }
        case "null":
            result.type = "json"
            result.nullable = true
        default:
            report(.warning, "type '\(kind)' is not a JSON Schema type; imported as any JSON", at: schema.location)
        }
        return result
    }

    /// A type expression that can stand inside `array<…>` or `map<…>`: the type itself when it has
    /// no constraints, else an alias carrying them.
    mutating func aliasIfNeeded(_ type: FieldType, context: String) -> String {
        guard !type.constraints.isEmpty || type.nullable else { return type.type }
        if type.nullable {
            report(
                .warning, "items that may be null have no equivalent; \(context) items are imported as not null",
                at: SourceLocation(file: source.root.file, line: 1, column: 1))
        }
        guard !type.constraints.isEmpty else { return type.type }
        let name = freshName(context)
        addType(name, .mapping([("type", .string(type.type))] + type.constraints))
        return name
    }

    /// The named type for a schema reached by name: an object, an enum, a union or an alias.
    mutating func namedType(_ schema: MergedSchema, name: String) -> SpecYAML? {
        if schema.isObject {
            return .mapping(objectBody(schema, context: name))
        }
        // Enums, unions and constrained scalars: made inline under the component's own name.
        takenNames.remove(name)
        let inline = inlineType(schema, context: name)
        if inline.type == name { return nil }
        var body: [(String, SpecYAML)] = []
        if let description = inline.description { body.append(("description", .string(description))) }
        body.append(("type", .string(inline.type)))
        body += inline.constraints
        takenNames.insert(name)
        return .mapping(body)
    }

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

    /// The type of a union case: the one already made for the type the export names in `x-wire`,
    /// else a new one (named so, or by `fallback`) with the body `make` writes.
    mutating func caseType(_ shape: MergedSchema, fallback: String, make: (inout SchemaTranslator, String) -> SpecYAML) -> String {
        let exported = shape.wire("name")?.text
        if let exported, let known = caseNames[exported] { return known }
        let name = freshName(exported ?? fallback)
        if let exported { caseNames[exported] = name }
        let body = make(&self, name)
        addType(name, body)
        return name
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

    /// A `oneOf`/`anyOf` field: a tagged union when every variant is an object with a `const`
    /// on one shared property, a one-of tried in order otherwise.
    mutating func unionType(_ variants: [AsyncAPISource.Located], schema: MergedSchema, context: String) -> String {
        var shapes = variants.map { merged($0) }
        // An open union, as the export writes it: its cases, and a last variant for any other tag.
        let open = schema.wire("open")?.text == "true"
        if open { shapes.removeAll { $0.keywords["not"] != nil } }
        let name = freshName(context)
        let description = (schema.text("description") ?? schema.text("title")).map { [("description", SpecYAML.string($0))] } ?? []
        if let tag = Self.sharedTag(shapes) {
            var cases: [(String, SpecYAML)] = []
            for shape in shapes {
                guard let value = shape.constValue(of: tag) else { continue }
                let caseName = caseType(shape, fallback: "\(name) \(value)") { translator, name in
                    .mapping(translator.objectBody(shape, context: name, skipping: [tag]))
                }
                cases.append((value, .string(caseName)))
            }
            addType(name, .mapping(description + [("tag", .string(tag))] + (open ? [("open", .literal("true"))] : []) + [("cases", .mapping(cases))]))
            return name
        }
        var options: [(label: String, type: FieldType)] = []
        for (index, variant) in variants.enumerated() {
            let type = fieldType(variant, context: "\(name) option \(index + 1)")
            // Labelled as the export names it, else by the component a variant names (read once
            // resolved: the `$ref` node itself has no reference).
            let exported = schema.wire("variants")?.items.dropFirst(index).first?.text
            var label = exported ?? resolved(variant)?.reference.flatMap(Self.componentName).map(Self.lowerCamel) ?? "option\(index + 1)"
            if options.contains(where: { $0.label == label }) { label += "\(index + 1)" }
            options.append((label, type))
        }
        guard options.count >= 2 else {
            report(.warning, "a oneOf/anyOf of one schema is imported as that schema", at: schema.location)
            return options.first?.type.type ?? "json"
        }
        let body = options.map { ($0.label, SpecYAML.mapping([("type", .string($0.type.type))] + $0.type.constraints)) }
        addType(name, .mapping(description + [("oneOf", .mapping(body))]))
        return name
    }

    /// A JSON Schema pattern (found anywhere in the string) as the spec's constraint (matching
    /// the whole string): `^c_` is the prefix `c_`, `^a+$` the pattern `a+`, `b` the pattern `.*(?:b).*`.
    static func anchored(_ pattern: String) -> (String, SpecYAML) {
        let start = pattern.hasPrefix("^")
        let end = pattern.hasSuffix("$") && !pattern.hasSuffix("\\$")
        var body = pattern
        if start { body.removeFirst() }
        if end { body.removeLast() }
        if start, !end, !body.isEmpty, body.allSatisfy({ $0.isLetter || $0.isNumber || "_-:/ ".contains($0) }) { return ("prefix", .string(body)) }
        let alternation = body.contains("|")
        let core = alternation ? "(?:\(body))" : body
        return ("pattern", .string((start ? "" : ".*") + core + (end ? "" : ".*")))
    }

    /// The property every schema gives a distinct string `const` (or one-value enum), if any.
    static func sharedTag(_ shapes: [MergedSchema]) -> String? {
        guard shapes.count >= 2, let first = shapes.first else { return nil }
        let candidates = first.properties.map(\.name).filter { name in
            let values = shapes.map { $0.constValue(of: name) }
            return values.allSatisfy { $0 != nil } && Set(values.compactMap { $0 }).count == shapes.count
        }
        return preferredTag(among: candidates)
    }

    /// The name a tag field most likely has: `type`, `event`, `method`, `op`, `action`, `kind`,
    /// `channel` in that order, then the first in alphabetical order.
    static func preferredTag(among names: some Collection<String>) -> String? {
        let preferred = ["type", "event", "method", "op", "action", "kind", "channel"]
        return names.min { (preferred.firstIndex(of: $0) ?? preferred.count, $0) < (preferred.firstIndex(of: $1) ?? preferred.count, $1) }
    }

    static func lowerCamel(_ text: String) -> String {
        let words = text.split { !$0.isLetter && !$0.isNumber }
        guard let first = words.first else { return "option" }
        return first.prefix(1).lowercased() + first.dropFirst() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The built-in type of a const or enum value.
    static func scalarType(of value: AsyncAPISource.Located, declared: Set<String>) -> String {
        if let only = declared.subtracting(["null"]).first, declared.subtracting(["null"]).count == 1, let type = builtIn(only) { return type }
        guard case .scalar(let text, let plain) = value.node.kind else { return "json" }
        guard plain else { return "string" }
        switch YAMLScalar.resolve(text) {
        case .bool: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .string: return "string"
        case .null: return "json"
        }
    }

    static func builtIn(_ kind: String) -> String? {
        ["string": "string", "integer": "integer", "number": "number", "boolean": "boolean"][kind]
    }

    /// Reports every keyword of `schema` that import cannot carry over, once per schema in the
    /// document (a component used by several fields, an object read as a field and as a type).
    mutating func checkKeywords(_ schema: MergedSchema) {
        guard checkedSchemas.insert(schema.location).inserted else { return }
        // An object's conditionals become its rules (objectBody); anything else's have no equivalent.
        if !schema.isObject, let conditional = schema.conditionals.first {
            report(.warning, "'if' is left out, so the spec checks less than the document: \(Self.refused["if"]!)", at: conditional.location)
        }
        for (key, _) in schema.keywords.sorted(by: { $0.key < $1.key }) {
            let location = schema.keywordLocations[key] ?? schema.location
            if let why = Self.refused[key] {
                // An integer's exclusive bounds are carried over as inclusive ones.
                if key.hasPrefix("exclusive"), schema.types.0.contains("integer") { continue }
                if key.hasSuffix("Properties"), schema.properties.isEmpty, schema.keywords["additionalProperties"]?.isMapping == true { continue }
                report(.warning, "'\(key)' is left out, so the spec checks less than the document: \(why)", at: location)
            } else if key.hasPrefix("x-") || Self.descriptive.contains(key) || Self.understood.contains(key) {
                continue
            } else {
                report(.warning, "'\(key)' is not a JSON Schema keyword this import reads; it is left out", at: location)
            }
        }
    }

    static let understood: Set<String> = [
        "type", "enum", "const", "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "items", "minItems", "maxItems",
        "additionalProperties", "oneOf", "anyOf", "discriminator", "nullable", "propertyNames",
    ]
}

/// A schema with its `allOf` parts merged and its `$ref` followed.
struct MergedSchema {
    var location: SourceLocation
    var reference: String?
    var properties: [(name: String, location: SourceLocation, schema: AsyncAPISource.Located)] = []
    var required: Set<String> = []
    var keywords: [String: AsyncAPISource.Located] = [:]
    var keywordLocations: [String: SourceLocation] = [:]
    /// Each `if` (of the schema or of an `allOf` part), with its `then` and `else`.
    var conditionals: [Conditional] = []

    /// An `if`/`then`/`else` of an object schema.
    typealias Conditional = (
        condition: AsyncAPISource.Located, then: AsyncAPISource.Located?, otherwise: AsyncAPISource.Located?, location: SourceLocation
    )

    init(location: SourceLocation) { self.location = location }

    func text(_ key: String) -> String? { keywords[key]?.text }

    /// The JSON types it names (`type: [string, "null"]`), and whether `null` is one of them.
    var types: (Set<String>, Bool) {
        guard let type = keywords["type"] else { return ([], keywords["nullable"]?.text == "true") }
        let names = type.text.map { [$0] } ?? type.items.compactMap(\.text)
        return (Set(names), names.contains("null") || keywords["nullable"]?.text == "true")
    }

    /// The `oneOf` variants of `base` joined into one object: every variant's properties (the
    /// first schema each is stated with), required where every variant requires it.
    static func joined(_ shapes: [MergedSchema], onto base: MergedSchema) -> MergedSchema {
        var result = base
        result.keywords["oneOf"] = nil
        result.keywords["anyOf"] = nil
        for shape in shapes {
            for property in shape.properties where !result.properties.contains(where: { $0.name == property.name }) {
                result.properties.append(property)
            }
        }
        if let first = shapes.first { result.required.formUnion(shapes.dropFirst().reduce(first.required) { $0.intersection($1.required) }) }
        return result
    }

    /// A property every shape fixes to one and the same string (a message's tag repeated in each
    /// of its variants), if any.
    static func sameFixedValue(in shapes: [MergedSchema]) -> String? {
        guard let first = shapes.first else { return nil }
        return first.properties.map(\.name).first { name in
            guard let value = first.constValue(of: name) else { return false }
            return shapes.allSatisfy { $0.constValue(of: name) == value }
        }
    }

    /// `{type: null}`: only `null`.
    var isNullOnly: Bool { types.0 == ["null"] }

    var isObject: Bool {
        let (kinds, _) = types
        return (kinds.contains("object") || (kinds.isEmpty && !properties.isEmpty)) && keywords["oneOf"] == nil && keywords["anyOf"] == nil
            && !(properties.isEmpty && keywords["additionalProperties"]?.isMapping == true)
    }

    /// Whether a `$ref` to it becomes a named type (anything but a bare built-in).
    /// A fact the export states in `x-wire` (`constraints`, `openEnum`, `open`, `name`, `budgets`, `violation`).
    func wire(_ key: String) -> AsyncAPISource.Located? { keywords["x-wire"]?[key] }

    var isNamedWorthy: Bool {
        isObject || keywords["enum"] != nil || keywords["oneOf"] != nil || keywords["anyOf"] != nil || keywords["x-wire"] != nil
            || keywords.keys.contains { ["minLength", "maxLength", "pattern", "format", "minimum", "maximum"].contains($0) }
    }

    /// The string value property `name` is fixed to (`const`, or a one-value `enum`); with
    /// `booleans`, `true` or `false` too (a union case's tag).
    func constValue(of name: String, booleans: Bool = false) -> String? {
        guard let property = properties.first(where: { $0.name == name })?.schema else { return nil }
        let fixed = property["const"] ?? property["enum"].flatMap { $0.items.count == 1 ? $0.items[0] : nil }
        guard let fixed, let text = fixed.text else { return nil }
        if fixed.node.isStringScalar { return text }
        if booleans, case .bool = YAMLScalar.resolve(text) { return text }
        return nil
    }
}

extension YAMLNode {
    var isStringScalar: Bool {
        guard case .scalar(let text, let plain) = kind else { return false }
        return !plain || YAMLScalar.resolve(text) == .string(text)
    }

    var isNull: Bool {
        guard case .scalar(let text, let plain) = kind else { return false }
        return plain && YAMLScalar.resolve(text) == .null
    }
}
