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

    /// What every message type declares about itself, struct or enum: its tag and its direction
    /// (the answer to a broken rule is in the protocol's plan).
    func identityMembers(_ message: Message) -> [SwiftDeclaration] {
        [
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "tag", type: "Swift.String", initializer: SwiftNames.literal(message.tag))),
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "direction", type: "WireRuntime.FrameDirection",
                    initializer: ".\(message.direction.rawValue)")),
        ]
    }

    private func conformanceMembers(name: String, shape: ObjectShape, message: Message?) -> [SwiftDeclaration] {
        var members: [SwiftDeclaration] = message.map(identityMembers) ?? []
        if shape.unknownFields == .keep {
            let keys = shape.fields.map { SwiftNames.literal($0.name) }.joined(separator: ", ")
            members.append(
                .variable(VariableDeclaration(isStatic: true, name: "knownKeys", type: "Swift.Set<Swift.String>", initializer: "[\(keys)]")))
        }
        let reference = message.map(mapper.planReference) ?? mapper.planReference(named: name)
        members += planMembers(reference: reference)
        members.append(
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, signature: "init?(checked tape: WireRuntime.JSONTape.View, at index: Swift.Int)",
                    isInitializer: true, body: buildStatements(shape, ignoring: message == nil ? nil : spec.tagField)
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
        members += codableMembers()
        return members
    }

    /// What every generated value declares about its checks: its protocol's plan and where in it
    /// the type's checks are.
    func planMembers(reference: String) -> [SwiftDeclaration] {
        [
            .variable(
                VariableDeclaration(
                    access: access, isPlumbing: true, isStatic: true, name: "validationPlan", type: "WireRuntime.ValidationPlan",
                    getter: [.line("\(namespace).validationPlan")])),
            .variable(
                VariableDeclaration(
                    access: access, isPlumbing: true, isStatic: true, name: "planReference", type: "WireRuntime.ValidationPlan.Reference",
                    initializer: reference)),
        ]
    }

    func codableMembers() -> [SwiftDeclaration] {
        [
            .function(
                FunctionDeclaration(
                    doc: "Decodes through `Codable` with the same checks as `decode(_:)`.", access: access,
                    signature: "init(from decoder: any Swift.Decoder) throws", isInitializer: true,
                    body: [.line("self = try Self.decode(from: decoder)")]
                )),
            .function(
                FunctionDeclaration(
                    access: access, signature: "encode(to encoder: any Swift.Encoder) throws",
                    body: [.line("try jsonValue().encode(to: encoder)")]
                )),
        ]
    }

    /// The body of `init?(checked:at:)`: each field read from the checked tape, then the memberwise initializer.
    func buildStatements(_ shape: ObjectShape, ignoring: String?) -> [Statement] {
        var body: [Statement] = []
        for field in shape.fields {
            body += fieldStatements(field)
        }
        if shape.unknownFields == .keep {
            body.append(
                .line(
                    "let additionalFields = tape.unknownMembers(of: index, known: Self.knownKeys, ignoring: "
                        + "\(ignoring.map(SwiftNames.literal) ?? "nil"))"))
        }
        var arguments = shape.fields.map { "\(naming.argumentLabel($0.name)): \(local($0))" }
        if shape.unknownFields == .keep { arguments.append("additionalFields: additionalFields") }
        body.append(.line("self.init(" + arguments.joined(separator: ", ") + ")"))
        return body
    }

    /// The builder's local for a field: `_` and the property name, so no field can shadow the
    /// builder's own names (`tape`, `index`).
    private func local(_ field: Field) -> String { "_" + naming.bareName(field.name) }

    private func fieldStatements(_ field: Field) -> [Statement] {
        let property = local(field)
        let member = property + "Member"
        let key = SwiftNames.literal(field.name)
        let expression = mapper.buildExpression(field.type, field.constraints, index: member)
        let valueType = mapper.valueType(field.type, field.constraints)
        switch (field.required, field.nullable) {
        case (true, false):
            return [.line("guard let \(member) = tape.member(of: index, key: \(key)), let \(property) = (\(expression)) else { return nil }")]
        case (false, true):
            return [
                .line("var \(property): WireRuntime.Nullable<\(valueType)> = .absent"),
                .block(
                    "if let \(member) = tape.member(of: index, key: \(key))",
                    [
                        .line("let value = tape.kind(\(member)) == .null ? nil : (\(expression))"),
                        .line("guard value != nil || tape.kind(\(member)) == .null else { return nil }"),
                        .line("\(property) = value.map { .value($0) } ?? .null"),
                    ]),
            ]
        default:
            return [
                .line("var \(property): \(valueType)?"),
                .block(
                    "if let \(member) = tape.presentMember(of: index, key: \(key))",
                    [
                        .line("guard let value = (\(expression)) else { return nil }"),
                        .line("\(property) = value"),
                    ]),
            ]
        }
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
