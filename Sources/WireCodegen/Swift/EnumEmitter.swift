import WireSpec

/// Emits string enums (closed or open), discriminated unions and one-of types.
struct EnumEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel
    let objects: ObjectEmitter

    private var naming: SwiftNaming { mapper.naming }
    private var namespace: String { naming.namespace }

    /// The case name of an enum value: `image/png` → `imagePng`, `awaiting_approval` → `awaitingApproval`.
    static func caseName(_ value: String) -> String {
        let name = SwiftNames.lowerCamel(value)
        return name == "unknown" ? "unknownValue" : SwiftNames.escaped(name)
    }

    private func decodeSignature(_ name: String) -> String {
        "decode(from json: JSONValue, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer) -> \(name)?"
    }

    // MARK: Enums

    func enumeration(_ type: NamedType, _ values: EnumType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        let literals = values.values.map { SwiftNames.literal($0.value) }
        var cases: [SwiftDeclaration] = values.values.map { value in
            .enumCase(EnumCaseDeclaration(
                doc: value.description, name: Self.caseName(value.value),
                rawValue: values.open || Self.caseName(value.value) == value.value ? nil : SwiftNames.literal(value.value)
            ))
        }
        var members: [SwiftDeclaration] = []
        let decodeBody: [Statement]
        if values.open {
            cases.append(.enumCase(EnumCaseDeclaration(doc: "A value this version of the spec does not list, kept as received.", name: "unknown", associatedValues: "(String)")))
            members.append(.function(FunctionDeclaration(
                doc: "The case for a raw value; values the spec does not list become `.unknown`.", access: access,
                signature: "init(rawValue: String)", isInitializer: true,
                body: [.switchOn("rawValue", values.values.map { value in
                    SwitchCase(pattern: "case \(SwiftNames.literal(value.value))", body: [.line("self = .\(Self.caseName(value.value))")])
                } + [SwitchCase(pattern: "default", body: [.line("self = .unknown(rawValue)")])])]
            )))
            members.append(.variable(VariableDeclaration(
                doc: "The value on the wire.", access: access, name: "rawValue", type: "String",
                getter: [.switchOn("self", values.values.map { value in
                    SwitchCase(pattern: "case .\(Self.caseName(value.value))", body: [.line("return \(SwiftNames.literal(value.value))")])
                } + [SwitchCase(pattern: "case .unknown(let value)", body: [.line("return value")])])]
            )))
            members.append(.variable(VariableDeclaration(
                doc: "The values the spec lists.", access: access, isStatic: true, name: "knownValues", type: "Set<String>",
                initializer: "[" + literals.joined(separator: ", ") + "]"
            )))
            decodeBody = [.line("context.openEnum(json, at: path(), known: knownValues, typeName: \(SwiftNames.literal(type.name)), answer: answer).map(\(name).init(rawValue:))")]
        } else {
            decodeBody = [.line("context.closedEnum(json, \(name).self, at: path(), allowed: [\(literals.joined(separator: ", "))], answer: answer)")]
        }
        members.append(.function(FunctionDeclaration(access: access, isPlumbing: true, isStatic: true, signature: decodeSignature(name), body: decodeBody)))
        members.append(.function(FunctionDeclaration(access: access, signature: "jsonValue() -> JSONValue", body: [.line(".string(rawValue)")])))
        if values.open {
            members.append(.function(FunctionDeclaration(
                access: access, signature: "init(from decoder: any Decoder) throws", isInitializer: true,
                body: [.line("self.init(rawValue: try decoder.singleValueContainer().decode(String.self))")]
            )))
            members.append(.function(FunctionDeclaration(
                access: access, signature: "encode(to encoder: any Encoder) throws",
                body: [.line("var container = encoder.singleValueContainer()"), .line("try container.encode(rawValue)")]
            )))
        }
        if values.isErrorCodeTable { cases += errorTableProperties() }
        let conformances = values.open ? ["Sendable", "Hashable", "RawRepresentable"] : ["String", "Sendable", "Hashable", "CaseIterable"]
        return [
            .type(TypeDeclaration(kind: .enum, doc: type.description, access: access, name: name, conformances: conformances, members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireValue"], members: members)),
        ]
    }

    /// The error table's columns as properties of the error code enum; a code this version does
    /// not know has no HTTP status, close code or advice, and closes when the peer says so.
    private func errorTableProperties() -> [SwiftDeclaration] {
        let codes = mapper.spec.errorCodes
        func property(_ doc: String, _ name: String, _ type: String, unknown: String, _ value: (ErrorCode) -> String) -> SwiftDeclaration {
            .variable(VariableDeclaration(doc: doc, access: access, name: name, type: type, getter: [
                .switchOn("self", codes.map { code in
                    SwitchCase(pattern: "case .\(Self.caseName(code.code))", body: [.line("return \(value(code))")])
                } + [SwitchCase(pattern: "case .unknown", body: [.line("return \(unknown)")])]),
            ]))
        }
        return [
            property("The HTTP status that carries this code, if any.", "httpStatus", "Int?", unknown: "nil") { $0.httpStatus.map(String.init) ?? "nil" },
            property("Whether the connection closes after this error.", "closeBehavior", "CloseBehavior", unknown: ".sometimes") { ".\($0.closes.rawValue)" },
            property("The WebSocket close code used when the connection closes for this error.", "closeCode", "Int?", unknown: "nil") { $0.closeCode.map(String.init) ?? "nil" },
            property("What a client should do when it receives this code.", "clientAction", "String?", unknown: "nil") { $0.clientAction.map(SwiftNames.literal) ?? "nil" },
            .variable(VariableDeclaration(
                doc: "Every code of the error table, in its order.", access: access, isStatic: true, name: "allCases", type: "[Self]",
                initializer: "[" + codes.map { "." + Self.caseName($0.code) }.joined(separator: ", ") + "]"
            )),
        ]
    }

    // MARK: Unions

    private func unionCaseName(_ unionCase: UnionType.Case, booleanTag: Bool) -> String {
        if let name = unionCase.name { return Self.caseName(name) }
        return booleanTag ? SwiftNames.escaped(SwiftNames.lowerCamel(unionCase.type)) : Self.caseName(unionCase.tagValue.plainText)
    }

    /// What a union type and a union message share: the cases, the decoding switch on the tag
    /// (each case type decoded with the tag ignored) and the encoding of each case as an object.
    private struct UnionParts {
        var cases: [SwiftDeclaration]
        var decodeBody: [Statement]
        /// Cases that build `object`, the case's members with the union's tag.
        var objectCases: [SwitchCase]
    }

    private func unionParts(name: String, displayName: String, _ union: UnionType) -> UnionParts {
        let booleanTag = union.hasBooleanTag
        let tag = SwiftNames.literal(union.tag)
        var cases: [SwiftDeclaration] = union.cases.map { unionCase in
            let typeDoc = mapper.spec.type(named: unionCase.type)?.description?.trimmingTrailingNewlines()
            return .enumCase(EnumCaseDeclaration(
                doc: (["`\(union.tag): \(unionCase.tagValue.plainText)`"] + [typeDoc].compactMap { $0 }).joined(separator: "\n\n"),
                name: unionCaseName(unionCase, booleanTag: booleanTag), associatedValues: "(\(naming.typeName(unionCase.type)))"
            ))
        }
        if union.open {
            cases.append(.enumCase(EnumCaseDeclaration(doc: "A case this version of the spec does not know, kept as received.", name: "unknown", associatedValues: "(tag: JSONValue, json: JSONValue)")))
        }
        let allowed = union.cases.map { $0.tagValue.description }
        var switchCases = union.cases.map { unionCase in
            SwitchCase(pattern: "case \(SwiftNames.jsonLiteral(unionCase.tagValue))?", body: [
                .line("return \(naming.typeName(unionCase.type)).decode(from: json, at: path(), in: &context, answer: answer, ignoring: \(tag)).map(\(name).\(unionCaseName(unionCase, booleanTag: booleanTag)))"),
            ])
        }
        switchCases.append(SwitchCase(pattern: "case nil", body: [
            .line("context.fail(path().appending(\(tag)), \"required\", answer, \"missing required field '\(union.tag)'\")"),
            .line("return nil"),
        ]))
        if union.open {
            switchCases.append(SwitchCase(pattern: "case let other?", body: [
                .line("context.report(ValidationIssue(severity: .warning, path: path().appending(\(tag)), rule: \"unknownCase\", answer: answer, message: \"\\(other) is not a known \(displayName) case; it is kept as unknown\"))"),
                .line("return .unknown(tag: other, json: json)"),
            ]))
        } else {
            switchCases.append(SwitchCase(pattern: "case let other?", body: [
                .line("context.unknownTag(other, tag: \(tag), at: path(), allowed: [\(allowed.map(SwiftNames.literal).joined(separator: ", "))], answer: answer)"),
                .line("return nil"),
            ]))
        }
        let objectCases = union.cases.map { unionCase in
            SwitchCase(pattern: "case .\(unionCaseName(unionCase, booleanTag: booleanTag))(let value)", body: [
                .line("object = value.jsonObject()"),
                .line("object[\(tag)] = \(SwiftNames.jsonLiteral(unionCase.tagValue))"),
            ])
        }
        let decodeBody: [Statement] = [
            .line("guard let object = context.object(json, at: path(), answer: answer) else { return nil }"),
            .switchOn("object[\(tag)]", switchCases),
        ]
        return UnionParts(cases: cases, decodeBody: decodeBody, objectCases: objectCases)
    }

    func union(_ type: NamedType, _ union: UnionType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        let parts = unionParts(name: name, displayName: type.name, union)
        var encodeCases = parts.objectCases.map { objectCase in
            SwitchCase(pattern: objectCase.pattern, body: [.line("var object: [String: JSONValue]")] + objectCase.body + [.line("return .object(object)")])
        }
        if union.open {
            encodeCases.append(SwitchCase(pattern: "case .unknown(_, let json)", body: [.line("return json")]))
        }
        let members: [SwiftDeclaration] = [
            .function(FunctionDeclaration(access: access, isPlumbing: true, isStatic: true, signature: decodeSignature(name), body: parts.decodeBody)),
            .function(FunctionDeclaration(access: access, signature: "jsonValue() -> JSONValue", body: [.switchOn("self", encodeCases)])),
        ] + objects.codableMembers(answer: "\(namespace).defaultAnswer")
        return [
            .type(TypeDeclaration(kind: .enum, doc: type.description, access: access, name: name, conformances: ["Sendable", "Hashable"], members: parts.cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireValue"], members: members)),
        ]
    }

    /// A message whose fields depend on one of them (`pair_result` on `success`): an enum with a
    /// case per value, each carrying its case type, and a factory per case that takes the case
    /// type's fields (`.success(token:userId:)`), so an invalid combination cannot be built.
    func variantMessage(_ message: Message, _ union: UnionType, doc: String) -> [SwiftDeclaration] {
        let name = naming.messageName(message)
        let parts = unionParts(name: name, displayName: message.tag, union)
        var cases = parts.cases
        for unionCase in union.cases {
            guard case .object(let shape)? = mapper.spec.type(named: unionCase.type)?.kind else { continue }
            let caseName = unionCaseName(unionCase, booleanTag: union.hasBooleanTag)
            let typeName = naming.typeName(unionCase.type)
            let (parameters, arguments) = objects.initializerParameters(shape)
            cases.append(.function(FunctionDeclaration(
                doc: "A `\(message.tag)` with `\(union.tag): \(unionCase.tagValue.plainText)`; the parameters are the fields of `\(typeName)`.",
                access: access, isStatic: true, signature: "\(caseName)(\(parameters.joined(separator: ", "))) -> \(name)",
                body: [.line(".\(caseName)(\(typeName)(\(arguments.joined(separator: ", "))))")]
            )))
        }
        let members: [SwiftDeclaration] = [
            .variable(VariableDeclaration(access: access, isStatic: true, name: "tag", type: "String", initializer: SwiftNames.literal(message.tag))),
            .variable(VariableDeclaration(access: access, isStatic: true, name: "direction", type: "FrameDirection", initializer: ".\(message.direction.rawValue)")),
            .variable(VariableDeclaration(
                doc: "What a receiver answers when this message breaks a rule that says nothing more specific.",
                access: access, isPlumbing: true, isStatic: true, name: "defaultAnswer", type: "ViolationAnswer",
                initializer: message.violation.map(mapper.answerLiteral) ?? "\(namespace).defaultAnswer"
            )),
            .function(FunctionDeclaration(access: access, isPlumbing: true, isStatic: true, signature: decodeSignature(name), body: parts.decodeBody)),
            .function(FunctionDeclaration(
                doc: "Decodes and validates a frame's object; the frame's tag is the caller's, and each case type ignores the case's tag.",
                isStatic: true,
                signature: "decode(from json: JSONValue, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer, ignoring ignoredKey: String?) -> \(name)?",
                body: [.line("decode(from: json, at: path(), in: &context, answer: answer)")]
            )),
            .function(FunctionDeclaration(
                doc: "The fields as JSON object members, without the tag.",
                signature: "jsonObject() -> [String: JSONValue]",
                body: [.line("var object: [String: JSONValue]"), .switchOn("self", parts.objectCases), .line("return object")]
            )),
            .function(FunctionDeclaration(access: access, signature: "jsonValue() -> JSONValue", body: [
                .line("var object = jsonObject()"), .line("object[\(SwiftNames.literal(mapper.spec.tagField))] = .string(Self.tag)"), .line("return .object(object)"),
            ])),
        ] + objects.codableMembers(answer: "Self.defaultAnswer")
        return [
            .type(TypeDeclaration(kind: .enum, doc: doc, access: access, name: name, conformances: ["Sendable", "Hashable"], members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireMessage"], members: members)),
        ]
    }

    // MARK: One-of

    func oneOf(_ type: NamedType, _ oneOf: OneOfType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        var rules = RulesRegistry()
        let cases: [SwiftDeclaration] = oneOf.variants.map { variant in
            .enumCase(EnumCaseDeclaration(doc: variant.description, name: Self.caseName(variant.name), associatedValues: "(\(mapper.valueType(variant.type, variant.constraints)))"))
        }
        var decodeBody: [Statement] = []
        for variant in oneOf.variants {
            let site = SwiftTypeMapper.Site(value: "json", path: "path()", answer: "answer", sizeAnswer: nil)
            let expression = mapper.decodeExpression(variant.type, variant.constraints, site, rules: &rules)
            decodeBody.append(.line("if let value = context.attempt({ context in \(expression) }) { return .\(Self.caseName(variant.name))(value) }"))
        }
        let expected = oneOf.variants.map(\.name).joined(separator: ", ")
        decodeBody.append(.line("context.noVariant(json, at: path(), expected: \(SwiftNames.literal(expected)), answer: answer)"))
        decodeBody.append(.line("return nil"))
        var members: [SwiftDeclaration] = rules.entries.map { entry in
            .variable(VariableDeclaration(isStatic: true, name: entry.name, type: entry.type, initializer: entry.expression))
        }
        members.append(.function(FunctionDeclaration(access: access, isPlumbing: true, isStatic: true, signature: decodeSignature(name), body: decodeBody)))
        members.append(.function(FunctionDeclaration(access: access, signature: "jsonValue() -> JSONValue", body: [
            .switchOn("self", oneOf.variants.map { variant in
                SwitchCase(pattern: "case .\(Self.caseName(variant.name))(let value)", body: [
                    .line("return " + mapper.encodeExpression(variant.type, variant.constraints, value: "value")),
                ])
            }),
        ])))
        members += objects.codableMembers(answer: "\(namespace).defaultAnswer")
        return [
            .type(TypeDeclaration(kind: .enum, doc: type.description, access: access, name: name, conformances: ["Sendable", "Hashable"], members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireValue"], members: members)),
        ]
    }
}
