import WireSpec

/// Emits the struct and `WireValue` conformance of an object type or a message.
struct ObjectEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel

    private var naming: SwiftNaming { mapper.naming }
    private var spec: ProtocolSpec { mapper.spec }
    private var namespace: String { naming.namespace }

    /// The declarations for one object: the struct, then an extension with its decoding and encoding.
    func declarations(name: String, doc: String?, shape: ObjectShape, message: Message? = nil) -> [SwiftDeclaration] {
        let keeps = shape.unknownFields == .keep
        var members: [SwiftDeclaration] = shape.fields.map { field in
            .variable(
                VariableDeclaration(
                    doc: fieldDoc(field), access: access, isLet: false, name: naming.propertyName(field.name), type: mapper.propertyType(field)))
        }
        if keeps {
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: "Keys the spec does not declare, kept as received so they survive re-encoding.",
                        access: access, isLet: false, name: "additionalFields", type: "[Swift.String: WireRuntime.JSONValue]"
                    )))
        }
        let subject = message.map { "\(FrameEmitter.article($0.tag)) `\($0.tag)` message" } ?? "a `\(name)`"
        members.append(.function(memberwiseInitializer(shape, subject: subject)))
        let structure = TypeDeclaration(
            kind: .struct, doc: doc, access: access, name: name, conformances: ["Swift.Sendable", "Swift.Hashable"], members: members)
        let conformance = TypeDeclaration(
            kind: .extension, name: name, conformances: [message == nil ? "WireRuntime.WireValue" : "WireRuntime.WireMessage"],
            members: conformanceMembers(name: name, shape: shape, message: message)
        )
        return [.type(structure), .type(conformance)]
    }

    private func fieldDoc(_ field: Field) -> String? {
        var lines: [String] = []
        if let description = field.description { lines.append(description) }
        var notes: [String] = []
        switch (field.required, field.nullable) {
        case (true, true): notes.append("`nil` is sent as `null`.")
        case (false, false): notes.append("`nil` leaves the key out.")
        case (false, true): notes.append("Absent, `null` and a value are distinct.")
        default: break
        }
        let rules = ConstraintText.phrases(field.constraints)
        if !rules.isEmpty { notes.append("Validated: " + rules.joined(separator: ", ") + ".") }
        if let defaultValue = field.defaultValue { notes.append("A receiver assumes `\(defaultValue)` when it is absent.") }
        if field.deprecated { notes.append("Deprecated.") }
        if !notes.isEmpty { lines.append((lines.isEmpty ? "" : "\n") + notes.joined(separator: " ")) }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    private func defaultArgument(_ field: Field) -> String {
        switch (field.required, field.nullable) {
        case (false, true): return " = .absent"
        case (false, false): return " = nil"
        default: break
        }
        guard let constant = field.constraints.const, case let resolved = spec.resolve(field.type).type else { return "" }
        switch (resolved, constant) {
        case (.string, .string(let text)): return " = \(SwiftNames.literal(text))"
        case (.integer, .integer(let number)): return " = \(number)"
        case (.boolean, .bool(let flag)): return " = \(flag)"
        case (.enumeration(let enumName, let values), .string(let text)) where values.values.contains(where: { $0.value == text }):
            return " = .\(naming.caseName(text, inEnum: enumName))"
        default: return ""
        }
    }

    /// The memberwise initializer's parameters and the arguments that pass them on unchanged.
    func initializerParameters(_ shape: ObjectShape) -> (parameters: [String], arguments: [String]) {
        var parameters = shape.fields.map { field in
            "\(naming.parameterLabel(field.name)): \(mapper.propertyType(field))\(defaultArgument(field))"
        }
        var arguments = shape.fields.map { "\(naming.argumentLabel($0.name)): \(naming.propertyName($0.name))" }
        if shape.unknownFields == .keep {
            parameters.append("additionalFields: [Swift.String: WireRuntime.JSONValue] = [:]")
            arguments.append("additionalFields: additionalFields")
        }
        return (parameters, arguments)
    }

    /// `Creates a `pair_request` message.` and a parameter list from the fields' descriptions.
    private func initializerDoc(_ shape: ObjectShape, subject: String) -> String {
        var lines = ["Creates \(subject)."]
        var parameters = shape.fields.map { field in
            "  - \(naming.bareName(field.name)): " + (field.description?.firstSentence() ?? "The `\(field.name)` field.")
        }
        if shape.unknownFields == .keep { parameters.append("  - additionalFields: Keys the spec does not declare, kept as received.") }
        if !parameters.isEmpty { lines += ["", "- Parameters:"] + parameters }
        return lines.joined(separator: "\n")
    }

    private func memberwiseInitializer(_ shape: ObjectShape, subject: String) -> FunctionDeclaration {
        let parameters = initializerParameters(shape).parameters
        var body = shape.fields.map { field -> Statement in
            let property = naming.propertyName(field.name)
            return .line("self.\(property) = \(property)")
        }
        if shape.unknownFields == .keep {
            body.append(.line("self.additionalFields = additionalFields"))
        }
        return FunctionDeclaration(
            doc: initializerDoc(shape, subject: subject), access: access,
            signature: "init(" + parameters.joined(separator: ", ") + ")", isInitializer: true, body: body
        )
    }

    // MARK: Conformance

    /// What every message type declares about itself, struct or enum: its tag, its direction and
    /// the answer to a broken rule that says nothing more specific.
    func identityMembers(_ message: Message) -> [SwiftDeclaration] {
        [
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "tag", type: "Swift.String", initializer: SwiftNames.literal(message.tag))),
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "direction", type: "WireRuntime.FrameDirection",
                    initializer: ".\(message.direction.rawValue)")),
            .variable(
                VariableDeclaration(
                    doc: "What a receiver answers when this message breaks a rule that says nothing more specific.",
                    access: access, isPlumbing: true, isStatic: true, name: "defaultAnswer", type: "WireRuntime.ViolationAnswer",
                    initializer: message.violation.map(mapper.answerLiteral) ?? "\(namespace).defaultAnswer"
                )),
        ]
    }

    private func conformanceMembers(name: String, shape: ObjectShape, message: Message?) -> [SwiftDeclaration] {
        var rules = RulesRegistry()
        let decodeBody = decodeStatements(name: name, shape: shape, rules: &rules)
        var members: [SwiftDeclaration] = message.map(identityMembers) ?? []
        if shape.unknownFields != .ignore {
            let keys = shape.fields.map { SwiftNames.literal($0.name) }.joined(separator: ", ")
            members.append(
                .variable(VariableDeclaration(isStatic: true, name: "knownKeys", type: "Swift.Set<Swift.String>", initializer: "[\(keys)]")))
        }
        for entry in rules.entries {
            members.append(.variable(VariableDeclaration(isStatic: true, name: entry.name, type: entry.type, initializer: entry.expression)))
        }
        let ignored = message == nil ? "nil" : SwiftNames.literal(spec.tagField)
        members.append(
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, isStatic: true,
                    signature:
                        "decode(from json: WireRuntime.JSONValue, at path: @autoclosure () -> WireRuntime.JSONPath, in context: inout "
                        + "WireRuntime.ValidationContext, answer: WireRuntime.ViolationAnswer) -> \(name)?",
                    body: [.line("decode(from: json, at: path(), in: &context, answer: answer, ignoring: \(ignored))")]
                )))
        members.append(
            .function(
                FunctionDeclaration(
                    doc: "Decodes and validates; `ignoredKey` is a key the caller owns (a union's or a frame's tag).",
                    isStatic: true,
                    signature:
                        "decode(from json: WireRuntime.JSONValue, at path: @autoclosure () -> WireRuntime.JSONPath, in context: inout "
                        + "WireRuntime.ValidationContext, answer: WireRuntime.ViolationAnswer, ignoring ignoredKey: Swift.String?) -> \(name)?",
                    body: decodeBody
                )))
        members.append(
            .function(
                FunctionDeclaration(
                    doc: "The fields as JSON object members\(message == nil ? "" : ", without the tag").",
                    signature: "jsonObject() -> [Swift.String: WireRuntime.JSONValue]", body: encodeStatements(shape)
                )))
        let valueBody: [Statement]
        if message != nil {
            valueBody = [
                .line("var object = jsonObject()"), .line("object[\(SwiftNames.literal(spec.tagField))] = .string(Self.tag)"),
                .line("return .object(object)"),
            ]
        } else {
            valueBody = [.line(".object(jsonObject())")]
        }
        members.append(.function(FunctionDeclaration(access: access, signature: "jsonValue() -> WireRuntime.JSONValue", body: valueBody)))
        members += codableMembers(answer: message == nil ? "\(namespace).defaultAnswer" : "Self.defaultAnswer")
        return members
    }

    func codableMembers(answer: String) -> [SwiftDeclaration] {
        [
            .function(
                FunctionDeclaration(
                    doc: "Decodes through `Codable` with the same validation as `decode(from:at:in:answer:)`.", access: access,
                    signature: "init(from decoder: any Swift.Decoder) throws", isInitializer: true,
                    body: [.line("self = try Self.decode(from: decoder, sizeAnswer: \(namespace).sizeAnswer, answer: \(answer))")]
                )),
            .function(
                FunctionDeclaration(
                    access: access, signature: "encode(to encoder: any Swift.Encoder) throws",
                    body: [.line("try jsonValue().encode(to: encoder)")]
                )),
        ]
    }

    private func decodeStatements(name: String, shape: ObjectShape, rules: inout RulesRegistry) -> [Statement] {
        var body: [Statement] = [
            .line("guard let object = context.object(json, at: path(), answer: answer) else { return nil }"),
            .line("let errorsBefore = context.errorCount"),
        ]
        for field in shape.fields {
            body += fieldStatements(field, rules: &rules)
        }
        for rule in shape.rules {
            switch rule {
            case .conditional(let conditional):
                func pairs(_ conditions: [Condition]) -> String {
                    conditions.map { condition in
                        "(\(SwiftNames.literal(condition.field)), [" + condition.values.map(SwiftNames.jsonLiteral).joined(separator: ", ") + "])"
                    }.joined(separator: ", ")
                }
                var expression =
                    "WireRuntime.ConditionalRequirement(when: [\(pairs(conditional.when))], require: "
                    + "[\(conditional.require.map(SwiftNames.literal).joined(separator: ", "))], forbid: "
                    + "[\(conditional.forbid.map(SwiftNames.literal).joined(separator: ", "))]"
                if !conditional.then.isEmpty { expression += ", expect: [\(pairs(conditional.then))]" }
                expression += ")"
                let ruleName = rules.name(
                    for: expression, type: "WireRuntime.ConditionalRequirement", suggested: RuleNames.conditional(conditional),
                    longer: RuleNames.conditional(conditional, detailed: true))
                let answer = conditional.violation.map(mapper.answerLiteral) ?? "answer"
                body.append(.line("context.check(Self.\(ruleName), in: object, at: path(), answer: \(answer))"))
            case .byteBudget(let budget):
                let terms = budget.paths.map { path in
                    let keys = path.split(separator: ".").map { SwiftNames.literal(String($0)) }.joined(separator: ", ")
                    return ".init(keys: [\(keys)], decoded: \(spec.budgetPathIsBase64(path, in: shape)))"
                }.joined(separator: ", ")
                let expression = "WireRuntime.ByteBudgetRule(name: \(SwiftNames.literal(budget.name)), terms: [\(terms)], max: \(budget.max))"
                let ruleName = rules.name(
                    for: expression, type: "WireRuntime.ByteBudgetRule", suggested: SwiftNames.lowerCamel(budget.name) + "Budget")
                let answer = budget.violation.map { ", answer: " + mapper.answerLiteral($0) } ?? ""
                body.append(.line("context.check(Self.\(ruleName), in: object, at: path()\(answer))"))
            }
        }
        if shape.unknownFields == .reject || !shape.rejectFields.isEmpty {
            let rejected = shape.rejectFields.map(SwiftNames.literal).joined(separator: ", ")
            let known = shape.unknownFields == .reject ? "Self.knownKeys" : "[]"
            body.append(
                .line(
                    "context.checkKeys(object, known: \(known), rejectUnknown: \(shape.unknownFields == .reject), rejected: [\(rejected)], "
                        + "ignoring: ignoredKey, at: path(), answer: answer)"
                ))
        }
        if shape.unknownFields == .keep {
            body.append(.line("let additionalFields = context.unknownMembers(object, known: Self.knownKeys, ignoring: ignoredKey)"))
        }
        let unwraps = shape.fields.filter { $0.required && !$0.nullable }.map { "let " + local($0) }
        body.append(.line("guard " + (["context.errorCount == errorsBefore"] + unwraps).joined(separator: ", ") + " else { return nil }"))
        var arguments = shape.fields.map { "\(naming.argumentLabel($0.name)): \(local($0))" }
        if shape.unknownFields == .keep { arguments.append("additionalFields: additionalFields") }
        body.append(.line("return \(name)(" + arguments.joined(separator: ", ") + ")"))
        return body
    }

    /// The decoder's local for a field: `_` and the property name, so no field can shadow the
    /// decoder's own names (`json`, `path`, `context`, `answer`, `object`, `value`).
    private func local(_ field: Field) -> String { "_" + naming.bareName(field.name) }

    private func fieldStatements(_ field: Field, rules: inout RulesRegistry) -> [Statement] {
        let property = local(field)
        let key = SwiftNames.literal(field.name)
        let fieldAnswer = field.violation.map(mapper.answerLiteral)
        let site = SwiftTypeMapper.Site(
            value: "value", path: "path().appending(\(key))", answer: fieldAnswer ?? "answer",
            sizeAnswer: fieldAnswer
        )
        let expression = mapper.decodeExpression(field.type, field.constraints, site, rules: &rules)
        let valueType = mapper.valueType(field.type, field.constraints)
        if !field.required && field.nullable {
            return [
                .line("var \(property): WireRuntime.Nullable<\(valueType)> = .absent"),
                .switchOn(
                    "object[\(key)]",
                    [
                        SwitchCase(pattern: "case nil", body: []),
                        SwitchCase(pattern: "case .null?", body: [.line("\(property) = .null")]),
                        SwitchCase(
                            pattern: "case let value?",
                            body: [
                                // Parenthesized: a decoder ending in a trailing closure must not read as the `if` body.
                                .line("if let decoded = (\(expression)) { \(property) = .value(decoded) }")
                            ]),
                    ]),
            ]
        }
        return [
            .line("var \(property): \(valueType)?"),
            .block(
                "if let value = context.member(object, \(key), at: path(), required: \(field.required), nullable: \(field.nullable), answer: "
                    + "\(fieldAnswer ?? "answer"))",
                [
                    .line("\(property) = \(expression)")
                ]),
        ]
    }

    private func encodeStatements(_ shape: ObjectShape) -> [Statement] {
        var body: [Statement] = [
            .line("var object: [Swift.String: WireRuntime.JSONValue] = \(shape.unknownFields == .keep ? "self.additionalFields" : "[:]")")
        ]
        if !shape.fields.isEmpty { body.append(.line("object.reserveCapacity(\(shape.fields.count + 1))")) }
        for field in shape.fields {
            let property = "self." + naming.propertyName(field.name)
            let key = SwiftNames.literal(field.name)
            switch (field.required, field.nullable) {
            case (true, false):
                body.append(.line("object[\(key)] = \(mapper.encodeExpression(field.type, field.constraints, value: property))"))
            case (true, true):
                body.append(
                    .line(
                        "object[\(key)] = \(property).map { value in \(mapper.encodeExpression(field.type, field.constraints, value: "value")) } "
                            + "?? " + ".null"
                    ))
            case (false, false):
                body.append(
                    .line("if let value = \(property) { object[\(key)] = \(mapper.encodeExpression(field.type, field.constraints, value: "value")) }")
                )
            case (false, true):
                body.append(
                    .switchOn(
                        property,
                        [
                            SwitchCase(pattern: "case .absent", body: []),
                            SwitchCase(pattern: "case .null", body: [.line("object[\(key)] = .null")]),
                            SwitchCase(
                                pattern: "case .value(let value)",
                                body: [.line("object[\(key)] = \(mapper.encodeExpression(field.type, field.constraints, value: "value"))")]),
                        ]))
            }
        }
        body.append(.line("return object"))
        return body
    }
}
