import WireRuntime
import WireSpec

/// Exports a spec as JSON Schema 2020-12: one schema per direction, a `oneOf` over its frames,
/// every message and named type under `$defs`.
///
/// It is as faithful to WireRuntime's validation as JSON Schema allows; what it cannot express is
/// listed in `JSONSchemaGenerator.knownExceptions`.
public enum JSONSchemaGenerator {
    /// Rules JSON Schema cannot express exactly, each with the reason.
    public static let knownExceptions: [(rule: String, reason: String)] = [
        (
            "minBytes, maxBytes",
            "JSON Schema counts characters, not UTF-8 bytes; a maxBytes of N is exported as a maxLength of N characters (sound, but multi-byte "
                + "text " + "up to N characters passes), minBytes is left out"
        ),
        (
            "maxDecodedBytes",
            "approximated by the longest base64 text without white space that can decode to that many bytes (up to 2 bytes more); white space "
                + "inside the text counts against it"
        ),
        ("byte budgets", "a sum of sizes across fields cannot be expressed"),
        ("integer", "JSON Schema treats 1.0 as an integer; the spec does not"),
        ("notBlank", "expressed as a pattern requiring a non-space character, with JSON Schema's (ECMA-262) idea of white space"),
        ("formats", "uuid, uuidv4, base64 and uri are exact patterns; iso8601 is a pattern that does not check calendar dates (February 30)"),
        ("open enums and unions", "unknown values are accepted, as by the spec, without the warning the spec's validators give"),
        ("session rules and rate limits", "they span several frames; `wire validate` checks them"),
    ]

    /// The schema of the frames one direction sends.
    public static func schema(for spec: ProtocolSpec, direction: Direction, id: String? = nil) -> String {
        PrettyJSON.render(document(for: spec, direction: direction, id: id, refPrefix: "#/$defs/"))
    }

    /// One schema for the frames of both directions: a frame is valid when it is a valid client
    /// frame or a valid server frame (`$defs/client-frames` and `$defs/server-frames`).
    public static func schema(for spec: ProtocolSpec, id: String? = nil) -> String {
        var defs = JSONObject()
        var roots: [SpecValue] = []
        for direction in Direction.allCases {
            guard case .object(let members) = document(for: spec, direction: direction, id: nil, refPrefix: "#/$defs/") else { continue }
            let document = JSONObject(members: members)
            let key = "\(direction.rawValue)-frames"
            defs[key] = .object([
                .init(key: "description", value: document["description"] ?? .null), .init(key: "oneOf", value: document["oneOf"] ?? .array([])),
            ])
            if case .object(let directionDefs)? = document["$defs"] {
                for member in directionDefs where defs[member.key] == nil { defs[member.key] = member.value }
            }
            roots.append(.object([.init(key: "$ref", value: .string("#/$defs/" + key))]))
        }
        var root = JSONObject()
        root["$schema"] = .string("https://json-schema.org/draft/2020-12/schema")
        if let id { root["$id"] = .string(id) }
        root["title"] = .string("\(spec.title) frames")
        root["description"] = .string("Every frame of \(spec.title) v\(spec.version) in either direction: a client frame or a server frame.")
        root["anyOf"] = .array(roots)
        root["$defs"] = defs.value
        return PrettyJSON.render(root.value)
    }

    static func document(for spec: ProtocolSpec, direction: Direction, id: String?, refPrefix: String) -> SpecValue {
        var builder = SchemaBuilder(spec: spec, refPrefix: refPrefix)
        let messages = spec.messages(direction)
        var root = JSONObject()
        root["$schema"] = .string("https://json-schema.org/draft/2020-12/schema")
        if let id { root["$id"] = .string(id) }
        root["title"] = .string("\(spec.title) \(direction.rawValue) frames")
        root["description"] = .string(
            "Every frame the \(direction.rawValue) sends in \(spec.title) v\(spec.version), told apart by '\(spec.tagField)'.")
        root["oneOf"] = .array(messages.map { .object([.init(key: "$ref", value: .string(refPrefix + SchemaBuilder.messageKey($0)))]) })
        var defs = JSONObject()
        for message in messages {
            defs[SchemaBuilder.messageKey(message)] = builder.messageSchema(message)
        }
        for (name, schema) in builder.definitions() {
            defs[name] = schema
        }
        root["$defs"] = defs.value
        return root.value
    }
}

/// Builds schemas for messages and the named types they use.
struct SchemaBuilder {
    let spec: ProtocolSpec
    let refPrefix: String
    /// Whether schemas carry `x-wire`: what the spec says that JSON Schema cannot (byte limits,
    /// formats, open enums, answers, budgets, type names), so `wire import asyncapi` can read the
    /// spec back as it was. The AsyncAPI export sets it; the JSON Schema export stays plain.
    var annotated = false
    private var used: [String] = []

    init(spec: ProtocolSpec, refPrefix: String) {
        self.spec = spec
        self.refPrefix = refPrefix
    }

    /// The key of a message's schema: `client-pair_request`.
    static func messageKey(_ message: Message) -> String { "\(message.direction.rawValue)-\(message.tag)" }

    /// The schemas of every named type used so far (and the types those use), in spec order.
    mutating func definitions() -> [(String, SpecValue)] {
        var done = Set<String>()
        var result: [String: SpecValue] = [:]
        while let name = used.first(where: { !done.contains($0) }) {
            done.insert(name)
            guard let type = spec.type(named: name) else { continue }
            result[name] = namedSchema(type)
            for (key, value) in unionCaseSchemas(type) { result[key] = value }
        }
        return spec.types.flatMap { type -> [(String, SpecValue)] in
            guard let schema = result[type.name] else { return [] }
            let cases = result.keys.filter { $0.hasPrefix(type.name + "-") }.sorted().map { ($0, result[$0]!) }
            return [(type.name, schema)] + cases
        }
    }

    private mutating func ref(_ name: String) -> SpecValue {
        if !used.contains(name) { used.append(name) }
        return .object([.init(key: "$ref", value: .string(refPrefix + name))])
    }

    mutating func messageSchema(_ message: Message) -> SpecValue {
        var schema = objectSchema(message.shape, tag: (spec.tagField, .string(message.tag)))
        if let variants = message.variants {
            // The frame's tag, and one of the case objects chosen by the union's tag.
            let cases: [SpecValue] = variants.cases.compactMap { unionCase in
                guard case .object(_, let shape) = spec.resolve(.named(unionCase.type)).type else { return nil }
                return annotate(
                    caseSchema(shape, tag: (variants.tag, unionCase.tagValue), type: unionCase.type),
                    [.init(key: "name", value: .string(unionCase.type))])
            }
            if case .object(var members) = schema {
                members.append(.init(key: "oneOf", value: .array(cases)))
                schema = .object(members)
            }
        }
        var object = JSONObject()
        object["title"] = .string("\(message.direction.rawValue) \(message.tag)")
        if let description = message.description { object["description"] = .string(description.trimmingTrailingNewlines()) }
        if case .object(let members) = schema { for member in members { object[member.key] = member.value } }
        schema = object.value
        if let violation = message.violation { schema = annotate(schema, [.init(key: "violation", value: answer(violation))]) }
        if message.variants?.open == true { schema = annotate(schema, [.init(key: "open", value: .bool(true))]) }
        return schema
    }

    // MARK: Objects

    mutating func objectSchema(_ shape: ObjectShape, tag: (String, SpecValue)?) -> SpecValue {
        var object = JSONObject()
        object["type"] = .string("object")
        var properties = JSONObject()
        var required: [String] = []
        if let (key, value) = tag {
            properties[key] = .object([.init(key: "const", value: value)])
            required.append(key)
        }
        for field in shape.fields {
            properties[field.name] = fieldSchema(field)
            if field.required { required.append(field.name) }
        }
        for key in shape.rejectFields { properties[key] = .bool(false) }
        object["properties"] = properties.value
        if !required.isEmpty { object["required"] = .strings(required) }
        if shape.unknownFields == .reject { object["additionalProperties"] = .bool(false) }
        if shape.unknownFields == .keep, annotated { object["x-wire"] = .object([.init(key: "unknownFields", value: .string("keep"))]) }
        let conditionals: [SpecValue] = shape.rules.compactMap { rule in
            guard case .conditional(let rule) = rule else { return nil }
            var condition = JSONObject()
            var conditionProperties = JSONObject()
            for item in rule.when {
                conditionProperties[item.field] =
                    item.values.count == 1
                    ? .object([.init(key: "const", value: item.values[0])]) : .object([.init(key: "enum", value: .array(item.values))])
            }
            condition["properties"] = conditionProperties.value
            condition["required"] = .strings(rule.when.map(\.field))
            var then = JSONObject()
            var thenProperties = JSONObject()
            for key in rule.require {
                thenProperties[key] = .object([.init(key: "not", value: .object([.init(key: "type", value: .string("null"))]))])
            }
            for key in rule.forbid { thenProperties[key] = .bool(false) }
            for item in rule.then {
                thenProperties[item.field] =
                    item.values.count == 1
                    ? .object([.init(key: "const", value: item.values[0])]) : .object([.init(key: "enum", value: .array(item.values))])
            }
            then["properties"] = thenProperties.value
            let required = rule.require + rule.then.map(\.field).filter { !rule.require.contains($0) }
            if !required.isEmpty { then["required"] = .strings(required) }
            return .object([.init(key: "if", value: condition.value), .init(key: "then", value: then.value)])
        }
        if !conditionals.isEmpty { object["allOf"] = .array(conditionals) }
        let budgets: [SpecValue] = shape.rules.compactMap { rule in
            guard case .byteBudget(let budget) = rule else { return nil }
            var members: [SpecValue.Member] = [
                .init(key: "budget", value: .string(budget.name)), .init(key: "sum", value: .strings(budget.paths)),
                .init(key: "max", value: .integer(budget.max)),
            ]
            if let description = budget.description { members.append(.init(key: "description", value: .string(description))) }
            if let violation = budget.violation { members.append(.init(key: "violation", value: answer(violation))) }
            return .object(members)
        }
        if !budgets.isEmpty { return annotate(object.value, [.init(key: "budgets", value: .array(budgets))]) }
        return object.value
    }

    mutating func fieldSchema(_ field: Field) -> SpecValue {
        var schema = valueSchema(field.type, field.constraints)
        if let description = field.description, case .object(var members) = schema {
            members.insert(.init(key: "description", value: .string(description.trimmingTrailingNewlines())), at: 0)
            schema = .object(members)
        }
        if let value = field.defaultValue, case .object(var members) = schema {
            members.append(.init(key: "default", value: value))
            schema = .object(members)
        }
        if let violation = field.violation { schema = annotate(schema, [.init(key: "violation", value: answer(violation))]) }
        if field.nullable {
            return .object([.init(key: "anyOf", value: .array([schema, .object([.init(key: "type", value: .string("null"))])]))])
        }
        return schema
    }

    /// A union case's object, with its type's description.
    mutating func caseSchema(_ shape: ObjectShape, tag: (String, SpecValue), type: String) -> SpecValue {
        let schema = objectSchema(shape, tag: tag)
        guard let description = spec.type(named: type)?.description, case .object(var members) = schema else { return schema }
        members.insert(.init(key: "description", value: .string(description.trimmingTrailingNewlines())), at: 0)
        return .object(members)
    }

    /// `schema` with `entries` added to its `x-wire` (only when `annotated`).
    func annotate(_ schema: SpecValue, _ entries: [SpecValue.Member]) -> SpecValue {
        guard annotated, !entries.isEmpty, case .object(var members) = schema else { return schema }
        if let index = members.firstIndex(where: { $0.key == "x-wire" }), case .object(let existing) = members[index].value {
            members[index].value = .object(existing + entries)
        } else {
            members.append(.init(key: "x-wire", value: .object(entries)))
        }
        return .object(members)
    }

    /// An answer as the spec writes it in full: `{error, close, closeCode}`.
    func answer(_ answer: Answer) -> SpecValue {
        let resolved = spec.resolved(answer)
        var members: [SpecValue.Member] = []
        if let code = resolved.code { members.append(.init(key: "error", value: .string(code))) }
        members.append(.init(key: "close", value: .bool(resolved.closesConnection)))
        if let code = resolved.closeCode { members.append(.init(key: "closeCode", value: .integer(code))) }
        return .object(members)
    }

    /// The spec's own constraints of a string or number, when JSON Schema says them only
    /// approximately (byte limits, `notBlank`, formats, a prefix or a whole-string pattern).
    func exactConstraints(_ c: Constraints) -> [SpecValue.Member] {
        guard
            c.minBytes != nil || c.maxBytes != nil || c.notBlank || c.format != nil || c.maxDecodedBytes != nil || c.prefix != nil
                || c.pattern != nil
        else { return [] }
        var members: [SpecValue.Member] = []
        for (key, value) in [("minLength", c.minLength), ("maxLength", c.maxLength), ("minBytes", c.minBytes), ("maxBytes", c.maxBytes)] {
            if let value { members.append(.init(key: key, value: .integer(value))) }
        }
        if c.notBlank { members.append(.init(key: "notBlank", value: .bool(true))) }
        if let prefix = c.prefix { members.append(.init(key: "prefix", value: .string(prefix))) }
        if let pattern = c.pattern { members.append(.init(key: "pattern", value: .string(pattern))) }
        if let format = c.format { members.append(.init(key: "format", value: .string(format.rawValue))) }
        if let bytes = c.maxDecodedBytes { members.append(.init(key: "maxDecodedBytes", value: .integer(bytes))) }
        if let value = c.minimum { members.append(.init(key: "minimum", value: Self.number(value))) }
        if let value = c.maximum { members.append(.init(key: "maximum", value: Self.number(value))) }
        return [.init(key: "constraints", value: .object(members))]
    }

    // MARK: Values

    /// The schema of a type with its constraints; aliases are inlined so their constraints merge with the field's.
    mutating func valueSchema(_ type: TypeRef, _ own: Constraints) -> SpecValue {
        let schema = inlinedValueSchema(type, own)
        // An alias is inlined; its name goes with it, when the field adds nothing to it.
        if case .named(let name) = type, own.isEmpty, let named = spec.type(named: name), case .alias = named.kind {
            var facts: [SpecValue.Member] = [.init(key: "alias", value: .string(name))]
            if let description = named.description {
                facts.append(.init(key: "aliasDescription", value: .string(description.trimmingTrailingNewlines())))
            }
            return annotate(schema, facts)
        }
        return schema
    }

    private mutating func inlinedValueSchema(_ type: TypeRef, _ own: Constraints) -> SpecValue {
        let (resolved, aliasConstraints) = spec.resolve(type)
        let c = own.merged(over: aliasConstraints)
        var object = JSONObject()
        switch resolved {
        case .string:
            object["type"] = .string("string")
            stringConstraints(c, into: &object)
            if annotated, case .object(let members) = annotate(object.value, exactConstraints(c)) { object = JSONObject(members: members) }
        case .integer, .number:
            object["type"] = .string(resolved == .integer ? "integer" : "number")
            if let value = c.minimum { object["minimum"] = Self.number(value) }
            if let value = c.maximum { object["maximum"] = Self.number(value) }
            if c.format == .epochMillis {
                object["minimum"] = Self.number(max(c.minimum ?? 0, 0))
                object["maximum"] = Self.number(min(c.maximum ?? 253_402_300_799_999, 253_402_300_799_999))
            }
            if let value = c.const { object["const"] = value }
            if annotated, c.format == .epochMillis, case .object(let members) = annotate(object.value, exactConstraints(c)) {
                object = JSONObject(members: members)
            }
        case .boolean:
            object["type"] = .string("boolean")
            if let value = c.const { object["const"] = value }
        case .json, .unresolved:
            return .object([])
        case .array(let element):
            object["type"] = .string("array")
            object["items"] = valueSchema(element, Constraints())
            if let value = c.minItems { object["minItems"] = .integer(value) }
            if let value = c.maxItems { object["maxItems"] = .integer(value) }
        case .map(let key, let element):
            object["type"] = .string("object")
            if key != .string { object["propertyNames"] = valueSchema(key, Constraints()) }
            object["additionalProperties"] = valueSchema(element, Constraints())
            if let value = c.minItems { object["minProperties"] = .integer(value) }
            if let value = c.maxItems { object["maxProperties"] = .integer(value) }
        case .enumeration(let name, _), .object(let name, _), .union(let name, _), .oneOf(let name, _):
            let reference = ref(name)
            guard let constant = c.const else { return reference }
            return .object([.init(key: "allOf", value: .array([reference])), .init(key: "const", value: constant)])
        }
        return object.value
    }

    private func stringConstraints(_ c: Constraints, into object: inout JSONObject) {
        if let value = c.minLength { object["minLength"] = .integer(value) }
        // A string of more than N characters has more than N UTF-8 bytes, so a byte limit bounds the
        // length in characters too (multi-byte text between the two bounds is let through).
        if let value = [c.maxLength, c.maxBytes].compactMap({ $0 }).min() { object["maxLength"] = .integer(value) }
        var patterns: [String] = []
        if let prefix = c.prefix { patterns.append("^" + Self.escapeRegex(prefix)) }
        if let pattern = c.pattern { patterns.append("^(?:\(pattern))$") }
        if c.notBlank { patterns.append("\\S") }
        if let format = c.format, let pattern = Self.formatPatterns[format] { patterns.append(pattern) }
        if let first = patterns.first { object["pattern"] = .string(first) }
        if patterns.count > 1 {
            object["allOf"] = .array(patterns.dropFirst().map { .object([.init(key: "pattern", value: .string($0))]) })
        }
        if let format = c.format, format == .uuid || format == .uuidv4 || format == .uri {
            object["format"] = .string(format == .uri ? "uri" : "uuid")
        }
        if c.format == .iso8601 { object["format"] = .string("date-time") }
        if let bytes = c.maxDecodedBytes { object["maxLength"] = .integer((bytes + 2) / 3 * 4) }
        if case .string(let value)? = c.const { object["const"] = .string(value) }
    }

    static let formatPatterns: [ValueFormat: String] = [
        .uuid: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
        .uuidv4: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$",
        // Standard alphabet, `=` padding optional, ASCII white space allowed anywhere, but not
        // white space alone (the lookahead).
        .base64:
            "^(?![ \\t\\r\\n]+$)[ \\t\\r\\n]*(?:(?:[A-Za-z0-9+/][ \\t\\r\\n]*){4})*(?:(?:[A-Za-z0-9+/][ \\t\\r\\n]*){2}(?:=[ \\t\\r\\n]*=[ "
            + "\\t\\r\\n]*)?|(?:[A-Za-z0-9+/][ \\t\\r\\n]*){3}(?:=[ \\t\\r\\n]*)?)?$",
        .iso8601:
            "^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)"
            + "(?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$",
        .uri: "^[A-Za-z][A-Za-z0-9+.-]*:[^\\s]*$",
    ]

    static func escapeRegex(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\^$.|?*+()[]{}/".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    static func number(_ value: Double) -> SpecValue {
        value == value.rounded() && abs(value) < 1e15 ? .integer(Int(value)) : .number(value)
    }

    // MARK: Named types

    private mutating func namedSchema(_ type: NamedType) -> SpecValue {
        var schema: SpecValue
        switch type.kind {
        case .object(let shape):
            schema = objectSchema(shape, tag: nil)
        case .enumeration(let values):
            let list = SpecValue.strings(values.values.map(\.value))
            schema =
                values.open
                ? annotate(
                    .object([.init(key: "type", value: .string("string")), .init(key: "examples", value: list)]),
                    [.init(key: "openEnum", value: list)])
                : .object([.init(key: "type", value: .string("string")), .init(key: "enum", value: list)])
        case .union(let union):
            var cases: [SpecValue] = union.cases.map { ref(type.name + "-" + $0.tagValue.plainText) }
            if union.open {
                let known = SpecValue.array(union.cases.map(\.tagValue))
                cases.append(
                    .object([
                        .init(key: "type", value: .string("object")), .init(key: "required", value: .strings([union.tag])),
                        .init(
                            key: "not",
                            value: .object([
                                .init(key: "properties", value: .object([.init(key: union.tag, value: .object([.init(key: "enum", value: known)]))]))
                            ])),
                    ]))
            }
            schema = .object([.init(key: "oneOf", value: .array(cases))])
            if union.open { schema = annotate(schema, [.init(key: "open", value: .bool(true))]) }
        case .oneOf(let oneOf):
            schema = .object([.init(key: "anyOf", value: .array(oneOf.variants.map { valueSchema($0.type, $0.constraints) }))])
            schema = annotate(schema, [.init(key: "variants", value: .strings(oneOf.variants.map(\.name)))])
        case .alias(let alias):
            schema = valueSchema(alias.type, alias.constraints)
        }
        if let description = type.description, case .object(var members) = schema {
            members.insert(.init(key: "description", value: .string(description.trimmingTrailingNewlines())), at: 0)
            schema = .object(members)
        }
        return schema
    }

    private mutating func unionCaseSchemas(_ type: NamedType) -> [(String, SpecValue)] {
        guard case .union(let union) = type.kind else { return [] }
        return union.cases.compactMap { unionCase in
            guard case .object(_, let shape) = spec.resolve(.named(unionCase.type)).type else { return nil }
            let schema = caseSchema(shape, tag: (union.tag, unionCase.tagValue), type: unionCase.type)
            return (type.name + "-" + unionCase.tagValue.plainText, annotate(schema, [.init(key: "name", value: .string(unionCase.type))]))
        }
    }
}
