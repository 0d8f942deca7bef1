import WireSpec

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
