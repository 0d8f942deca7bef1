import WireSpec

extension EnumEmitter {
    /// A named string type as a type of its own: a `String` on the wire (and in `Codable`), but
    /// one kind of identifier cannot be passed where another goes.
    func distinctString(_ type: NamedType, doc: String) -> [SwiftDeclaration] {
        let name = mapper.naming.typeName(type.name)
        let members: [SwiftDeclaration] = [
            .variable(VariableDeclaration(doc: "The value on the wire.", access: access, isLet: false, name: "rawValue", type: "Swift.String")),
            .function(
                FunctionDeclaration(
                    doc: "A value from its wire form; the spec's rules are checked where a frame carrying it is encoded or decoded.",
                    access: access, signature: "init(rawValue: Swift.String)", isInitializer: true, body: [.line("self.rawValue = rawValue")])),
            .function(
                FunctionDeclaration(
                    doc: "A value from its wire form.", access: access, signature: "init(_ rawValue: Swift.String)", isInitializer: true,
                    body: [.line("self.rawValue = rawValue")])),
            .function(
                FunctionDeclaration(
                    doc: "A value written as a string literal (interpolation included).", access: access,
                    signature: "init(stringLiteral value: Swift.String)",
                    isInitializer: true, body: [.line("self.rawValue = value")])),
            .variable(
                VariableDeclaration(
                    doc: "The value on the wire.", access: access, name: "description", type: "Swift.String", getter: [.line("rawValue")])),
        ]
        var wire = objects.planMembers(reference: mapper.planReference(named: type.name))
        wire.append(builder([.line("self.init(rawValue: tape.string(index))")]))
        wire.append(
            .function(FunctionDeclaration(access: access, isPlumbing: true, signature: EnumEmitter.write, body: [.line("output.string(rawValue)")])))
        wire.append(
            .function(
                FunctionDeclaration(
                    doc: "Decodes a bare JSON string through `Codable`, with the same checks as `decode(_:)`.", access: access,
                    signature: "init(from decoder: any Swift.Decoder) throws", isInitializer: true,
                    body: [.line("self = try Self.decode(from: decoder)")])))
        wire.append(
            .function(
                FunctionDeclaration(
                    doc: "Encodes the bare JSON string.", access: access, signature: "encode(to encoder: any Swift.Encoder) throws",
                    body: [.line("var container = encoder.singleValueContainer()"), .line("try container.encode(rawValue)")])))
        // Split between the type and its extension so that neither line grows long.
        let conformances = ["Swift.Sendable", "Swift.Hashable", "Swift.RawRepresentable"]
        let literalAndWire = ["WireRuntime.WireValue", "Swift.ExpressibleByStringInterpolation", "Swift.CustomStringConvertible"]
        return [
            .type(TypeDeclaration(kind: .struct, doc: doc, access: access, name: name, conformances: conformances, members: members)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: literalAndWire, members: wire)),
        ]
    }
}
