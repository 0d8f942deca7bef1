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
    var caseNames: [String: String] = [:]
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
