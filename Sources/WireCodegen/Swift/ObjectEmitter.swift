@_spi(Generated) import WireRuntime
import WireSpec

/// Emits the struct and `WireValue` conformance of an object type or a message.
struct ObjectEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel

    private var naming: SwiftNaming { mapper.naming }
    private var spec: ProtocolSpec { mapper.spec }
    private var namespace: String { naming.namespace }

    /// The declarations for one object: the struct, then an extension with its decoding and encoding.
    /// A case type of a union (`isUnionCase`) also writes itself with its union's tag merged in.
    func declarations(name: String, doc: String?, shape: ObjectShape, message: Message? = nil, isUnionCase: Bool = false) -> [SwiftDeclaration] {
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
            members: conformanceMembers(name: name, shape: shape, message: message, isUnionCase: isUnionCase)
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

    private func conformanceMembers(name: String, shape: ObjectShape, message: Message?, isUnionCase: Bool) -> [SwiftDeclaration] {
        var members: [SwiftDeclaration] = message.map(identityMembers) ?? []
        if shape.unknownFields == .keep {
            let keys = (shape.fields.map(\.name) + (message == nil ? [] : [spec.tagField])).map(SwiftNames.literal).joined(separator: ", ")
            members.append(
                .variable(
                    VariableDeclaration(
                        doc: "The keys the type reads and writes itself; others are kept in `additionalFields`.", isStatic: true,
                        name: "knownKeys", type: "Swift.Set<Swift.String>", initializer: "[\(keys)]")))
        }
        let reference = message.map(mapper.planReference) ?? mapper.planReference(named: name)
        members += planMembers(reference: reference)
        members.append(
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, signature: "init?(checked tape: WireRuntime.JSONTape.View, at index: Swift.Int)",
                    isInitializer: true, body: buildStatements(shape)
                )))
        members += writeMembers(shape, message: message, isUnionCase: isUnionCase)
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

    /// The body of `init?(checked:at:)`: each field read from the checked tape, then the memberwise
    /// initializer. Fields are looked up in the order of their keys' bytes, the order canonical JSON
    /// writes them in, each from where the last was found: one key comparison each on such a frame.
    func buildStatements(_ shape: ObjectShape) -> [Statement] {
        var body: [Statement] = []
        if !shape.fields.isEmpty { body.append(.line("var cursor = index")) }
        for field in shape.fields.sorted(by: { JSONOutput.precedes($0.name, $1.name) }) {
            body += fieldStatements(field)
        }
        if shape.unknownFields == .keep {
            body.append(.line("let additionalFields = tape.unknownMembers(of: index, known: Self.knownKeys)"))
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
            return [
                .line(
                    "guard let \(member) = tape.member(of: index, key: \(key), cursor: &cursor), let \(property) = (\(expression)) "
                        + "else { return nil }")
            ]
        case (false, true):
            return [
                .line("var \(property): WireRuntime.Nullable<\(valueType)> = .absent"),
                .block(
                    "if let \(member) = tape.member(of: index, key: \(key), cursor: &cursor)",
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
                    "if let \(member) = tape.presentMember(of: index, key: \(key), cursor: &cursor)",
                    [
                        .line("guard let value = (\(expression)) else { return nil }"),
                        .line("\(property) = value"),
                    ]),
            ]
        }
    }

    // MARK: Writing

    /// `write(into:)`, which writes the members in their sorted order, fixed here; the fields an
    /// object kept, and the tag of the union an object is a case of, are merged in at run time.
    private func writeMembers(_ shape: ObjectShape, message: Message?, isUnionCase: Bool) -> [SwiftDeclaration] {
        let keeps = shape.unknownFields == .keep
        let write = "write(into output: inout WireRuntime.JSONOutput)"
        guard isUnionCase else {
            var body: [Statement] = []
            if keeps {
                body += [
                    .line("var pending = WireRuntime.JSONOutput.PendingMembers()"),
                    .line("pending.add(self.additionalFields, known: Self.knownKeys)"),
                ]
            }
            body += objectStatements(shape, tag: message == nil ? nil : spec.tagField, merging: keeps)
            return [.function(FunctionDeclaration(access: access, isPlumbing: true, signature: write, body: body))]
        }
        var merged: [Statement] = []
        if keeps { merged.append(.line("pending.add(self.additionalFields, known: Self.knownKeys)")) }
        merged += objectStatements(shape, tag: nil, merging: true)
        return [
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, signature: write,
                    body: [.line("var pending = WireRuntime.JSONOutput.PendingMembers()"), .line("writeObject(into: &output, merging: &pending)")])),
            .function(
                FunctionDeclaration(
                    doc: "Writes the object with `pending` (its union's tag) merged in.",
                    signature: "writeObject(into output: inout WireRuntime.JSONOutput, merging pending: inout WireRuntime.JSONOutput.PendingMembers)",
                    body: merged)),
        ]
    }

    /// The object's members in sorted key order, the message's tag among them; with `merging`,
    /// each preceded by the pending members that sort before it.
    private func objectStatements(_ shape: ObjectShape, tag: String?, merging: Bool) -> [Statement] {
        var entries: [(key: String, statements: [Statement])] = shape.fields.map { ($0.name, fieldWriteStatements($0)) }
        if let tag {
            entries.append((tag, [.line("output.key(\(SwiftNames.literal(tag)))"), .line("output.string(Self.tag)")]))
        }
        entries.sort { JSONOutput.precedes($0.key, $1.key) }
        var body: [Statement] = [.line("output.beginObject()")]
        for entry in entries {
            if merging { body.append(.line("output.members(&pending, before: \(SwiftNames.literal(entry.key)))")) }
            body += entry.statements
        }
        if merging { body.append(.line("output.remainingMembers(&pending)")) }
        body.append(.line("output.endObject()"))
        return body
    }

    private func fieldWriteStatements(_ field: Field) -> [Statement] {
        let property = "self." + naming.propertyName(field.name)
        let key = Statement.line("output.key(\(SwiftNames.literal(field.name)))")
        let writeValue = Statement.line(mapper.writeStatement(field.type, field.constraints, value: "value"))
        switch (field.required, field.nullable) {
        case (true, false):
            return [key, .line(mapper.writeStatement(field.type, field.constraints, value: property))]
        case (true, true):
            return [key, .block("if let value = \(property)", [writeValue], closerSuffix: " else { output.null() }")]
        case (false, false):
            return [.block("if let value = \(property)", [key, writeValue])]
        case (false, true):
            return [
                .switchOn(
                    property,
                    [
                        SwitchCase(pattern: "case .absent", body: []),
                        SwitchCase(pattern: "case .null", body: [key, .line("output.null()")]),
                        SwitchCase(pattern: "case .value(let value)", body: [key, writeValue]),
                    ])
            ]
        }
    }
}
