@_spi(Generated) import WireRuntime
@_spi(Generated) import WireSpec

/// Maps spec types to Swift types and builds the decode and encode expressions for them.
struct SwiftTypeMapper {
    let spec: ProtocolSpec
    let naming: SwiftNaming
    /// Where each named type and message is in the protocol's plan.
    let planLayout: (plan: ValidationPlan, namedIndexes: [String: Int], messageIDs: [MessageRef: Int])

    init(spec: ProtocolSpec, naming: SwiftNaming) {
        self.spec = spec
        self.naming = naming
        planLayout = spec.validationPlanLayout
    }

    /// The `planReference` initializer of a named type.
    func planReference(named name: String) -> String { ".named(\(planLayout.namedIndexes[name] ?? -1))" }

    /// The `planReference` initializer of a message.
    func planReference(_ message: Message) -> String {
        ".message(\(planLayout.messageIDs[MessageRef(direction: message.direction, tag: message.tag)] ?? -1))"
    }

    // MARK: Building from a checked tape

    /// An expression of type `T?` that builds the value at tape index `index` as `type` with the
    /// field's `constraints`, reading without checking (the engine checked it); `depth` names
    /// the closures' parameters.
    func buildExpression(_ type: TypeRef, _ own: Constraints, index: String, depth: Int = 0) -> String {
        if let name = distinctStringType(type) { return "\(name)(checked: tape, at: \(index))" }
        let (resolved, aliasConstraints) = spec.resolve(type)
        let constraints = own.merged(over: aliasConstraints)
        switch resolved {
        case .string:
            return isDate(resolved, constraints)
                ? "WireRuntime.WireFormats.parseISO8601(tape.string(\(index)))" : "Swift.Optional(tape.string(\(index)))"
        case .integer: return "Swift.Optional(tape.integer(\(index)))"
        case .number: return "Swift.Optional(tape.double(\(index)))"
        case .boolean: return "Swift.Optional(tape.isTrue(\(index)))"
        case .json: return "Swift.Optional(tape.value(\(index)))"
        case .array(let element), .map(.string, let element):
            let item = "item\(depth)"
            let function: String
            if case .array = resolved { function = "builtItems" } else { function = "builtMembers" }
            return "tape.\(function)(of: \(index)) { \(item) in \(buildExpression(element, Constraints(), index: item, depth: depth + 1)) }"
        case .map(let key, let element):
            let item = "item\(depth)"
            let keyItem = "key\(depth)"
            let buildKey = buildExpression(key, Constraints(), index: keyItem, depth: depth + 1)
            return "tape.builtMembers(of: \(index), keys: { \(keyItem) in \(buildKey) }) "
                + "{ \(item) in \(buildExpression(element, Constraints(), index: item, depth: depth + 1)) }"
        case .enumeration(let name, _), .object(let name, _), .union(let name, _), .oneOf(let name, _):
            return "\(naming.typeName(name))(checked: tape, at: \(index))"
        case .unresolved:
            return "Swift.Optional<WireRuntime.JSONValue>.none"
        }
    }

    /// The Swift name of a named string type that is a type of its own (``AliasType/isDistinctString``).
    func distinctStringType(_ type: TypeRef) -> String? {
        guard case .named(let name) = type, let named = spec.type(named: name), case .alias(let alias) = named.kind, alias.isDistinctString else {
            return nil
        }
        return naming.typeName(name)
    }

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
        case .map(let key, let value): return "[\(swiftType(key)): \(swiftType(value))]"
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

    // MARK: Encoding

    /// A statement that writes `value` of `type` to the `JSONOutput` named `output`.
    func writeStatement(_ type: TypeRef, _ own: Constraints, value: String, depth: Int = 0) -> String {
        if distinctStringType(type) != nil { return "output.string(\(value).rawValue)" }
        let (resolved, aliasConstraints) = spec.resolve(type)
        let constraints = own.merged(over: aliasConstraints)
        let item = "item\(depth)"
        switch resolved {
        case .string:
            return isDate(resolved, constraints) ? "output.string(WireRuntime.WireFormats.formatISO8601(\(value)))" : "output.string(\(value))"
        case .integer: return "output.integer(\(value))"
        case .number: return "output.number(\(value))"
        case .boolean: return "output.bool(\(value))"
        case .json, .unresolved: return "output.json(\(value))"
        case .array(let element):
            return "output.array(\(value)) { output, \(item) in \(writeStatement(element, Constraints(), value: item, depth: depth + 1)) }"
        case .map(_, let element):
            return "output.object(\(value)) { output, \(item) in \(writeStatement(element, Constraints(), value: item, depth: depth + 1)) }"
        case .enumeration, .object, .union, .oneOf:
            return "output.value(\(value))"
        }
    }

    // MARK: Answers

    /// A `ViolationAnswer` literal for a spec answer, resolving "as the error code says".
    func answerLiteral(_ answer: Answer) -> String {
        Self.answerLiteral(spec.resolved(answer))
    }

    /// The code of a resolved answer; `nil` for none.
    static func answerLiteral(_ answer: ViolationAnswer?) -> String {
        guard let answer else { return "nil" }
        guard let code = answer.code else { return ".closeSilently(closeCode: \(answer.closeCode.map(String.init) ?? "nil"))" }
        var text = "WireRuntime.ViolationAnswer(code: \(SwiftNames.literal(code))"
        if answer.closesConnection { text += ", closesConnection: true" }
        if let closeCode = answer.closeCode { text += ", closeCode: \(closeCode)" }
        return text + ")"
    }
}
