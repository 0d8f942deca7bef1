@_spi(Generated) import WireRuntime
import WireSpec

/// Emits string enums (closed or open), discriminated unions and one-of types.
struct EnumEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel
    let objects: ObjectEmitter

    private var naming: SwiftNaming { mapper.naming }
    private var namespace: String { naming.namespace }

    /// The signature of the builder every generated value has.
    private static let builderSignature = "init?(checked tape: WireRuntime.JSONTape.View, at index: Swift.Int)"

    /// `init?(checked:at:)`, plumbing every generated value has, with `body`.
    func builder(_ body: [Statement]) -> SwiftDeclaration {
        .function(FunctionDeclaration(access: access, isPlumbing: true, signature: Self.builderSignature, isInitializer: true, body: body))
    }

    // MARK: Enums

    func enumeration(_ type: NamedType, _ values: EnumType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        let literals = values.values.map { SwiftNames.literal($0.value) }
        var cases: [SwiftDeclaration] = values.values.map { value in
            .enumCase(
                EnumCaseDeclaration(
                    doc: value.description, name: naming.caseName(value.value, inEnum: type.name),
                    rawValue: values.open || naming.caseName(value.value, inEnum: type.name) == value.value ? nil : SwiftNames.literal(value.value)
                ))
        }
        var members: [SwiftDeclaration] = []
        let buildBody: [Statement]
        if values.open {
            cases.append(
                .enumCase(
                    EnumCaseDeclaration(
                        doc: "A value this version of the spec does not list, kept as received.", name: "unknown", associatedValues: "(Swift.String)")
                ))
            members.append(
                .function(
                    FunctionDeclaration(
                        doc: "The case for a raw value; values the spec does not list become `.unknown`.", access: access,
                        signature: "init(rawValue: Swift.String)", isInitializer: true,
                        body: [
                            .switchOn(
                                "rawValue",
                                values.values.map { value in
                                    SwitchCase(
                                        pattern: "case \(SwiftNames.literal(value.value))",
                                        body: [.line("self = .\(naming.caseName(value.value, inEnum: type.name))")])
                                } + [SwitchCase(pattern: "default", body: [.line("self = .unknown(rawValue)")])])
                        ]
                    )))
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: "The value on the wire.", access: access, name: "rawValue", type: "Swift.String",
                        getter: [
                            .switchOn(
                                "self",
                                values.values.map { value in
                                    SwitchCase(
                                        pattern: "case .\(naming.caseName(value.value, inEnum: type.name))",
                                        body: [.line("return \(SwiftNames.literal(value.value))")])
                                } + [SwitchCase(pattern: "case .unknown(let value)", body: [.line("return value")])])
                        ]
                    )))
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: "The values the spec lists.", access: access, isStatic: true, name: "knownValues", type: "Swift.Set<Swift.String>",
                        initializer: "[" + literals.joined(separator: ", ") + "]"
                    )))
            buildBody = [.line("self.init(rawValue: tape.string(index))")]
        } else {
            buildBody = [.line("guard let value = Self(rawValue: tape.string(index)) else { return nil }"), .line("self = value")]
        }
        members += objects.planMembers(reference: mapper.planReference(named: type.name))
        members.append(builder(buildBody))
        members.append(
            .function(FunctionDeclaration(access: access, isPlumbing: true, signature: EnumEmitter.write, body: [.line("output.string(rawValue)")])))
        if values.open {
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, signature: "init(from decoder: any Swift.Decoder) throws", isInitializer: true,
                        body: [.line("self.init(rawValue: try decoder.singleValueContainer().decode(Swift.String.self))")]
                    )))
            members.append(
                .function(
                    FunctionDeclaration(
                        access: access, signature: "encode(to encoder: any Swift.Encoder) throws",
                        body: [.line("var container = encoder.singleValueContainer()"), .line("try container.encode(rawValue)")]
                    )))
        }
        if values.isErrorCodeTable { cases += errorTableProperties() }
        let conformances =
            values.open
            ? ["Swift.Sendable", "Swift.Hashable", "Swift.RawRepresentable"]
            : ["Swift.String", "Swift.Sendable", "Swift.Hashable", "Swift.CaseIterable"]
        return [
            .type(TypeDeclaration(kind: .enum, doc: type.description, access: access, name: name, conformances: conformances, members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireRuntime.WireValue"], members: members)),
        ]
    }

    /// The error table's columns as properties of the error code enum; a code this version does
    /// not know has no HTTP status, close code or advice, and closes when the peer says so.
    private func errorTableProperties() -> [SwiftDeclaration] {
        let codes = mapper.spec.errorCodes
        func property(_ doc: String, _ name: String, _ type: String, unknown: String, _ value: (ErrorCode) -> String) -> SwiftDeclaration {
            .variable(
                VariableDeclaration(
                    doc: doc, access: access, name: name, type: type,
                    getter: [
                        .switchOn(
                            "self",
                            codes.map { code in
                                SwitchCase(
                                    pattern: "case .\(naming.caseName(code.code, inEnum: ProtocolSpec.errorCodeTypeName))",
                                    body: [.line("return \(value(code))")])
                            } + [SwitchCase(pattern: "case .unknown", body: [.line("return \(unknown)")])])
                    ]))
        }
        return [
            property("The HTTP status that carries this code, if any.", "httpStatus", "Swift.Int?", unknown: "nil") {
                $0.httpStatus.map(String.init) ?? "nil"
            },
            property("Whether the connection closes after this error.", "closeBehavior", "WireRuntime.CloseBehavior", unknown: ".sometimes") {
                ".\($0.closes.rawValue)"
            },
            property("The WebSocket close code used when the connection closes for this error.", "closeCode", "Swift.Int?", unknown: "nil") {
                $0.closeCode.map(String.init) ?? "nil"
            },
            property("What a client should do when it receives this code.", "clientAction", "Swift.String?", unknown: "nil") {
                $0.clientAction.map(SwiftNames.literal) ?? "nil"
            },
            .variable(
                VariableDeclaration(
                    doc: "Every code of the error table, in its order.", access: access, isStatic: true, name: "allCases", type: "[Self]",
                    initializer: "[" + codes.map { "." + naming.caseName($0.code, inEnum: ProtocolSpec.errorCodeTypeName) }.joined(separator: ", ")
                        + "]"
                )),
        ]
    }

    // MARK: Unions

    /// The case identifiers of a union's cases, in order: a case's `name`, else its tag value
    /// (string tags) or its type (boolean tags), unique within the union.
    private func unionCaseNames(_ union: UnionType) -> [String] {
        SwiftNames.caseIdentifiers(
            union.cases.map { unionCase in
                unionCase.name ?? (union.hasBooleanTag ? unionCase.type : unionCase.tagValue.plainText)
            })
    }

    /// The signature of `WireValue.write(into:)`.
    static let write = "write(into output: inout WireRuntime.JSONOutput)"

    /// What a union type and a union message share: the cases, the decoding switch on the tag
    /// (each case type decoded with the tag ignored) and the writing of each case as an object.
    private struct UnionParts {
        var cases: [SwiftDeclaration]
        var buildBody: [Statement]
        /// The switch cases of `write(into:)`: each case's object with the union's tag (and the
        /// message's, for a union message) merged in, and an unknown case as received.
        var writeCases: [SwitchCase]
    }

    /// `messageTag`: the tag field of a union message, written with the union's tag.
    private func unionParts(name: String, displayName: String, _ union: UnionType, messageTag: String? = nil) -> UnionParts {
        let caseNames = Dictionary(zip(union.cases.map(\.tagValue), unionCaseNames(union)), uniquingKeysWith: { first, _ in first })
        func unionCaseName(_ unionCase: UnionType.Case) -> String { caseNames[unionCase.tagValue] ?? "unknownValue" }
        let tag = SwiftNames.literal(union.tag)
        var cases: [SwiftDeclaration] = union.cases.map { unionCase in
            let typeDoc = mapper.spec.type(named: unionCase.type)?.description?.trimmingTrailingNewlines()
            return .enumCase(
                EnumCaseDeclaration(
                    doc: (["`\(union.tag): \(unionCase.tagValue.plainText)`"] + [typeDoc].compactMap { $0 }).joined(separator: "\n\n"),
                    name: unionCaseName(unionCase), associatedValues: "(\(naming.typeName(unionCase.type)))"
                ))
        }
        if union.open {
            cases.append(
                .enumCase(
                    EnumCaseDeclaration(
                        doc: "A case this version of the spec does not know, kept as received.", name: "unknown",
                        associatedValues: "(tag: WireRuntime.JSONValue, json: WireRuntime.JSONValue)")))
        }
        var switchCases = union.cases.map { unionCase in
            SwitchCase(
                pattern: "case \(SwiftNames.jsonLiteral(unionCase.tagValue))",
                body: [
                    .line("guard let value = \(naming.typeName(unionCase.type))(checked: tape, at: index) else { return nil }"),
                    .line("self = .\(unionCaseName(unionCase))(value)"),
                ])
        }
        switchCases.append(
            SwitchCase(pattern: "default", body: [.line(union.open ? "self = .unknown(tag: tagValue, json: tape.value(index))" : "return nil")]))
        var writeCases = union.cases.map { unionCase in
            var pending = [(key: union.tag, value: SwiftNames.jsonLiteral(unionCase.tagValue))]
            if let messageTag { pending.append((messageTag, ".string(Self.tag)")) }
            pending.sort { JSONOutput.precedes($0.key, $1.key) }
            let members = pending.map { "(\(SwiftNames.literal($0.key)), \($0.value))" }.joined(separator: ", ")
            return SwitchCase(
                pattern: "case .\(unionCaseName(unionCase))(let value)",
                body: [
                    .line("var pending = WireRuntime.JSONOutput.PendingMembers(sorted: [\(members)])"),
                    .line("value.writeObject(into: &output, merging: &pending)"),
                ])
        }
        if union.open {
            writeCases.append(SwitchCase(pattern: "case .unknown(_, let json)", body: [.line("output.json(json)")]))
        }
        let buildBody: [Statement] = [
            .line("guard let tagIndex = tape.member(of: index, key: \(tag)) else { return nil }"),
            .line("let tagValue = tape.value(tagIndex)"),
            .switchOn("tagValue", switchCases),
        ]
        return UnionParts(cases: cases, buildBody: buildBody, writeCases: writeCases)
    }

    func union(_ type: NamedType, _ union: UnionType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        let parts = unionParts(name: name, displayName: type.name, union)
        let members: [SwiftDeclaration] =
            objects.planMembers(reference: mapper.planReference(named: type.name)) + [
                builder(parts.buildBody),
                .function(FunctionDeclaration(access: access, isPlumbing: true, signature: Self.write, body: [.switchOn("self", parts.writeCases)])),
            ] + objects.codableMembers()
        return [
            .type(
                TypeDeclaration(
                    kind: .enum, doc: type.description, access: access, name: name, conformances: ["Swift.Sendable", "Swift.Hashable"],
                    members: parts.cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireRuntime.WireValue"], members: members)),
        ]
    }

    /// A message whose fields depend on one of them (`pair_result` on `success`): an enum with a
    /// case per value, each carrying its case type, and a factory per case that takes the case
    /// type's fields (`.success(token:userId:)`), so an invalid combination cannot be built.
    func variantMessage(_ message: Message, _ union: UnionType, doc: String) -> [SwiftDeclaration] {
        let name = naming.messageName(message)
        let parts = unionParts(name: name, displayName: message.tag, union, messageTag: mapper.spec.tagField)
        var cases = parts.cases
        for (unionCase, caseName) in zip(union.cases, unionCaseNames(union)) {
            guard case .object(let shape)? = mapper.spec.type(named: unionCase.type)?.kind else { continue }
            let typeName = naming.typeName(unionCase.type)
            let (parameters, arguments) = objects.initializerParameters(shape)
            cases.append(
                .function(
                    FunctionDeclaration(
                        doc:
                            "A `\(message.tag)` with `\(union.tag): \(unionCase.tagValue.plainText)`; the parameters are the fields of "
                            + "`\(typeName)`.",
                        access: access, isStatic: true, signature: "\(caseName)(\(parameters.joined(separator: ", "))) -> \(name)",
                        body: [.line(".\(caseName)(\(typeName)(\(arguments.joined(separator: ", "))))")]
                    )))
        }
        let members: [SwiftDeclaration] =
            objects.identityMembers(message) + objects.planMembers(reference: mapper.planReference(message)) + [
                builder(parts.buildBody),
                .function(FunctionDeclaration(access: access, isPlumbing: true, signature: Self.write, body: [.switchOn("self", parts.writeCases)])),
            ] + objects.codableMembers()
        return [
            .type(
                TypeDeclaration(
                    kind: .enum, doc: doc, access: access, name: name, conformances: ["Swift.Sendable", "Swift.Hashable"], members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireRuntime.WireMessage"], members: members)),
        ]
    }

    // MARK: One-of

    func oneOf(_ type: NamedType, _ oneOf: OneOfType) -> [SwiftDeclaration] {
        let name = naming.typeName(type.name)
        let caseNames = SwiftNames.caseIdentifiers(oneOf.variants.map(\.name))
        func caseName(_ variant: OneOfType.Variant) -> String { caseNames[oneOf.variants.firstIndex(of: variant) ?? 0] }
        let cases: [SwiftDeclaration] = oneOf.variants.map { variant in
            .enumCase(
                EnumCaseDeclaration(
                    doc: variant.description, name: caseName(variant), associatedValues: "(\(mapper.valueType(variant.type, variant.constraints)))"))
        }
        let variantCases = oneOf.variants.enumerated().map { position, variant in
            SwitchCase(
                pattern: "case \(position)",
                body: [
                    .line("guard let value = (\(mapper.buildExpression(variant.type, variant.constraints, index: "index"))) else { return nil }"),
                    .line("self = .\(caseName(variant))(value)"),
                ])
        }
        var members = objects.planMembers(reference: mapper.planReference(named: type.name))
        members.append(
            builder([
                .line(
                    "guard let variant = Self.validationPlan.variant(of: index, in: tape, named: "
                        + "\(mapper.planLayout.namedIndexes[type.name] ?? -1)) else { return nil }"),
                .switchOn("variant", variantCases + [SwitchCase(pattern: "default", body: [.line("return nil")])]),
            ]))
        members.append(
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, signature: Self.write,
                    body: [
                        .switchOn(
                            "self",
                            oneOf.variants.map { variant in
                                SwitchCase(
                                    pattern: "case .\(caseName(variant))(let value)",
                                    body: [.line(mapper.writeStatement(variant.type, variant.constraints, value: "value"))])
                            })
                    ])))
        members += objects.codableMembers()
        return [
            .type(
                TypeDeclaration(
                    kind: .enum, doc: type.description, access: access, name: name, conformances: ["Swift.Sendable", "Swift.Hashable"], members: cases
                )),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireRuntime.WireValue"], members: members)),
        ]
    }
}
