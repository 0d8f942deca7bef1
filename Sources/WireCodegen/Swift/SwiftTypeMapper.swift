import WireRuntime
import WireSpec

/// Static rule values (`StringRules(...)`, ...) a generated type declares once and its decoder uses.
struct RulesRegistry {
    private(set) var entries: [(name: String, type: String, expression: String)] = []

    /// The name of a static constant holding `expression`, declaring it on first use; `longer`
    /// is tried when another constant already has the suggested name.
    mutating func name(for expression: String, type: String, suggested: String, longer: String? = nil) -> String {
        if let existing = entries.first(where: { $0.expression == expression && $0.type == type }) { return existing.name }
        var name = suggested
        if let longer, entries.contains(where: { $0.name == name }) { name = longer }
        let base = name
        var counter = 2
        while entries.contains(where: { $0.name == name }) {
            name = base + String(counter)
            counter += 1
        }
        entries.append((name, type, expression))
        return name
    }
}

/// Maps spec types to Swift types and builds the decode and encode expressions for them.
struct SwiftTypeMapper {
    let spec: ProtocolSpec
    let naming: SwiftNaming

    /// Whether a (resolved) string type is a date.
    private func isDate(_ resolved: ResolvedType, _ constraints: Constraints) -> Bool {
        if case .string = resolved, constraints.format == .iso8601 { return true }
        return false
    }

    /// The Swift type of a type reference (aliases keep their generated names).
    func swiftType(_ type: TypeRef) -> String {
        switch type {
        case .string: return "Swift.String"
        case .integer: return "Swift.Int"
        case .number: return "Swift.Double"
        case .boolean: return "Swift.Bool"
        case .json: return "WireRuntime.JSONValue"
        case .array(let element): return "[\(swiftType(element))]"
        case .map(let value): return "[Swift.String: \(swiftType(value))]"
        case .named(let name): return naming.typeName(name)
        }
    }

    /// The Swift type an alias stands for.
    func aliasTarget(_ alias: AliasType) -> String {
        let resolved = spec.resolve(alias.type)
        if isDate(resolved.type, alias.constraints.merged(over: resolved.constraints)) { return "Foundation.Date" }
        return swiftType(alias.type)
    }

    /// The Swift type of a field's value, given its own constraints (a field with `format: iso8601` is a `Date`).
    func valueType(_ type: TypeRef, _ constraints: Constraints) -> String {
        if case .string = type, constraints.format == .iso8601 { return "Foundation.Date" }
        return swiftType(type)
    }

    /// The Swift type of a field's property: three presence states map to `T`, `T?` and `Nullable<T>`.
    func propertyType(_ field: Field) -> String {
        let value = valueType(field.type, field.constraints)
        switch (field.required, field.nullable) {
        case (true, false): return value
        case (false, true): return "WireRuntime.Nullable<\(value)>"
        default: return value + "?"
        }
    }

    // MARK: Decoding

    /// Everything an expression needs to know about where it decodes.
    struct Site {
        var value: String
        var path: String
        var answer: String
        var sizeAnswer: String?
        var depth = 0
    }

    /// An expression of type `T?` that decodes and validates `site.value` as `type` with the field's `constraints`.
    func decodeExpression(_ type: TypeRef, _ own: Constraints, _ site: Site, rules: inout RulesRegistry) -> String {
        let (resolved, aliasConstraints) = spec.resolve(type)
        let constraints = own.merged(over: aliasConstraints)
        let sizeArgument = site.sizeAnswer.map { ", sizeAnswer: \($0)" } ?? ""
        // Rules that all come from one alias are named after it (`assetIdRules`), others after what they check.
        var alias: String?
        if case .named(let name) = type, case .alias? = spec.type(named: name)?.kind, own.isEmpty { alias = name }
        let ruleName = RuleNames.constraints(constraints, alias: alias)
        switch resolved {
        case .string:
            let rulesArgument =
                stringRules(constraints, allowed: nil).map { rules.name(for: $0, type: "WireRuntime.StringRules", suggested: ruleName) } ?? "nil"
            let base = "context.string(\(site.value), at: \(site.path), rules: \(rulesArgument), answer: \(site.answer)\(sizeArgument))"
            return isDate(resolved, constraints) ? base + ".flatMap(WireRuntime.WireFormats.parseISO8601)" : base
        case .integer, .number:
            let rulesArgument = numberRules(constraints).map { rules.name(for: $0, type: "WireRuntime.NumberRules", suggested: ruleName) } ?? "nil"
            let function = resolved == .integer ? "integer" : "number"
            return "context.\(function)(\(site.value), at: \(site.path), rules: \(rulesArgument), answer: \(site.answer))"
        case .boolean:
            let constant = constraints.const.flatMap { if case .bool(let flag) = $0 { return ", constant: \(flag)" } else { return nil } } ?? ""
            return "context.bool(\(site.value), at: \(site.path)\(constant), answer: \(site.answer))"
        case .json:
            return "Swift.Optional(\(site.value))"
        case .array(let element), .map(let element):
            let isArray: Bool
            if case .array = resolved { isArray = true } else { isArray = false }
            let rulesArgument =
                collectionRules(constraints).map { rules.name(for: $0, type: "WireRuntime.CollectionRules", suggested: ruleName) } ?? "nil"
            let item = "item\(site.depth)"
            let position = (isArray ? "index" : "key") + "\(site.depth)"
            var inner = site
            inner.value = item
            inner.path = "\(site.path).appending(\(position))"
            inner.depth += 1
            inner.sizeAnswer = site.sizeAnswer
            let elementExpression = decodeExpression(element, Constraints(), inner, rules: &rules)
            let function = isArray ? "array" : "map"
            let sizeForCount = rulesArgument != "nil" && constraints.maxItems != nil ? sizeArgument : ""
            return
                "context.\(function)(\(site.value), at: \(site.path), rules: \(rulesArgument), answer: \(site.answer)\(sizeForCount)) { \(item), "
                + "\(position), context in \(elementExpression) }"
        case .enumeration(let name, _):
            let call = "\(naming.typeName(name)).decode(from: \(site.value), at: \(site.path), in: &context, answer: \(site.answer))"
            guard case .string(let constant)? = constraints.const else { return call }
            let rulesName = rules.name(
                for: "WireRuntime.StringRules(constant: \(SwiftNames.literal(constant)))", type: "WireRuntime.StringRules", suggested: ruleName)
            return "context.string(\(site.value), at: \(site.path), rules: \(rulesName), answer: \(site.answer)).flatMap { _ in \(call) }"
        case .object(let name, _), .union(let name, _), .oneOf(let name, _):
            return "\(naming.typeName(name)).decode(from: \(site.value), at: \(site.path), in: &context, answer: \(site.answer))"
        case .unresolved:
            return "Swift.Optional<WireRuntime.JSONValue>.none"
        }
    }

    func stringRules(_ c: Constraints, allowed: [String]?) -> String? {
        var arguments: [String] = []
        if let value = c.minLength { arguments.append("minLength: \(value)") }
        if let value = c.maxLength { arguments.append("maxLength: \(value)") }
        if let value = c.minBytes { arguments.append("minBytes: \(value)") }
        if let value = c.maxBytes { arguments.append("maxBytes: \(value)") }
        if c.notBlank { arguments.append("notBlank: true") }
        if let value = c.prefix { arguments.append("prefix: \(SwiftNames.literal(value))") }
        if let value = c.pattern { arguments.append("pattern: WireRuntime.WirePattern(\(SwiftNames.literal(value)))") }
        if let value = c.format { arguments.append("format: .\(value.rawValue)") }
        if let value = c.maxDecodedBytes { arguments.append("maxDecodedBytes: \(value)") }
        if case .string(let value)? = c.const { arguments.append("constant: \(SwiftNames.literal(value))") }
        if let allowed { arguments.append("allowedValues: [" + allowed.map(SwiftNames.literal).joined(separator: ", ") + "]") }
        return arguments.isEmpty ? nil : "WireRuntime.StringRules(" + arguments.joined(separator: ", ") + ")"
    }

    func numberRules(_ c: Constraints) -> String? {
        var arguments: [String] = []
        if let value = c.minimum { arguments.append("minimum: \(SwiftNames.doubleLiteral(value))") }
        if let value = c.maximum { arguments.append("maximum: \(SwiftNames.doubleLiteral(value))") }
        if let value = c.format { arguments.append("format: .\(value.rawValue)") }
        if let value = c.const { arguments.append("constant: \(SwiftNames.jsonLiteral(value))") }
        return arguments.isEmpty ? nil : "WireRuntime.NumberRules(" + arguments.joined(separator: ", ") + ")"
    }

    func collectionRules(_ c: Constraints) -> String? {
        var arguments: [String] = []
        if let value = c.minItems { arguments.append("minItems: \(value)") }
        if let value = c.maxItems { arguments.append("maxItems: \(value)") }
        return arguments.isEmpty ? nil : "WireRuntime.CollectionRules(" + arguments.joined(separator: ", ") + ")"
    }

    // MARK: Encoding

    /// An expression of type `JSONValue` for `value` of `type`.
    func encodeExpression(_ type: TypeRef, _ own: Constraints, value: String, depth: Int = 0) -> String {
        let (resolved, aliasConstraints) = spec.resolve(type)
        let constraints = own.merged(over: aliasConstraints)
        switch resolved {
        case .string:
            return isDate(resolved, constraints) ? ".string(WireRuntime.WireFormats.formatISO8601(\(value)))" : ".string(\(value))"
        case .integer: return ".integer(\(value))"
        case .number: return "WireRuntime.JSONValue(\(value))"
        case .boolean: return ".bool(\(value))"
        case .json, .unresolved: return value
        case .array(let element):
            return ".array(\(value).map { item\(depth) in \(encodeExpression(element, Constraints(), value: "item\(depth)", depth: depth + 1)) })"
        case .map(let element):
            return
                ".object(\(value).mapValues { item\(depth) in \(encodeExpression(element, Constraints(), value: "item\(depth)", depth: depth + 1)) })"
        case .enumeration, .object, .union, .oneOf:
            return "\(value).jsonValue()"
        }
    }

    // MARK: Answers

    /// A `ViolationAnswer` literal for a spec answer, resolving "as the error code says".
    func answerLiteral(_ answer: Answer) -> String {
        Self.answerLiteral(spec.resolved(answer))
    }

    /// The code of a resolved answer.
    static func answerLiteral(_ answer: ViolationAnswer) -> String {
        guard let code = answer.code else { return ".closeSilently(closeCode: \(answer.closeCode.map(String.init) ?? "nil"))" }
        var text = "WireRuntime.ViolationAnswer(code: \(SwiftNames.literal(code))"
        if answer.closesConnection { text += ", closesConnection: true" }
        if let closeCode = answer.closeCode { text += ", closeCode: \(closeCode)" }
        return text + ")"
    }
}
