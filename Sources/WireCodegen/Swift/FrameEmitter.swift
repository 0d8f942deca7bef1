import WireSpec

/// Emits the frame enum of each direction, its codec conformance and the typed dispatcher.
struct FrameEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel

    private var naming: SwiftNaming { mapper.naming }
    private var spec: ProtocolSpec { mapper.spec }

    func frameEnum(_ direction: Direction) -> [SwiftDeclaration] {
        let name = SwiftNaming.frameName(direction)
        let messages = spec.messages(direction)
        var cases: [SwiftDeclaration] = messages.map { message in
            let summary = message.description.map { " " + $0.firstSentence() } ?? ""
            return .enumCase(
                EnumCaseDeclaration(
                    doc: "`\(message.tag)`:\(summary)", name: naming.frameCase(message), associatedValues: "(\(naming.messageName(message)))"))
        }
        cases.append(
            .enumCase(
                EnumCaseDeclaration(
                    doc: "A frame whose tag this version of the spec does not know, with its JSON as received.",
                    name: "unknown", associatedValues: "(tag: Swift.String, json: WireRuntime.JSONValue)"
                )))
        let namespace = naming.namespace
        var decodeCases = messages.map { message in
            SwitchCase(
                pattern: "case \(SwiftNames.literal(message.tag))",
                body: [
                    .line("\(naming.messageName(message))(checked: tape, at: index).map(\(name).\(naming.frameCase(message)))")
                ])
        }
        decodeCases.append(SwitchCase(pattern: "default", body: [.line(".unknown(tag: tag, json: tape.value(index))")]))
        let members: [SwiftDeclaration] = [
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "direction", type: "WireRuntime.FrameDirection", initializer: ".\(direction.rawValue)")),
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "tagField", type: "Swift.String", initializer: SwiftNames.literal(spec.tagField))),
            .variable(
                VariableDeclaration(
                    access: access, isStatic: true, name: "knownTags", type: "[Swift.String]",
                    initializer: "[" + messages.map { SwiftNames.literal($0.tag) }.joined(separator: ", ") + "]")),
            .typeAlias(doc: "The protocol's error codes.", access: access, name: "ErrorCodeType", type: ProtocolSpec.errorCodeTypeName),
            .variable(
                VariableDeclaration(
                    access: access, isPlumbing: true, isStatic: true, name: "validationPlan", type: "WireRuntime.ValidationPlan",
                    getter: [.line("\(namespace).validationPlan")])),
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, isStatic: true,
                    signature: "build(tag: Swift.String, checked tape: WireRuntime.JSONTape.View, at index: Swift.Int) -> \(name)?",
                    body: [.switchOn("tag", decodeCases)]
                )),
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, isStatic: true,
                    signature: "makeUnknown(tag: Swift.String, json: WireRuntime.JSONValue) -> \(name)",
                    body: [.line(".unknown(tag: tag, json: json)")]
                )),
            .function(
                FunctionDeclaration(
                    doc: "Decodes a frame from a buffer of UTF-8 JSON bytes, scanned in place (not copied).",
                    access: access, isStatic: true,
                    signature: "decode(_ buffer: Swift.UnsafeBufferPointer<Swift.UInt8>) -> WireRuntime.FrameDecodeResult<\(name)>",
                    body: [.line("decodeFrame(scanning: buffer)")]
                )),
            .variable(
                VariableDeclaration(
                    access: access, name: "tag", type: "Swift.String",
                    getter: [
                        .switchOn(
                            "self",
                            messages.map { message in
                                SwitchCase(pattern: "case .\(naming.frameCase(message))", body: [.line("return \(SwiftNames.literal(message.tag))")])
                            } + [SwitchCase(pattern: "case .unknown(let tag, _)", body: [.line("return tag")])])
                    ])),
            .function(
                FunctionDeclaration(
                    access: access, isPlumbing: true, signature: "write(into output: inout WireRuntime.JSONOutput)",
                    body: [
                        .switchOn(
                            "self",
                            messages.map { message in
                                SwitchCase(
                                    pattern: "case .\(naming.frameCase(message))(let message)", body: [.line("message.write(into: &output)")])
                            } + [SwitchCase(pattern: "case .unknown(_, let json)", body: [.line("output.json(json)")])])
                    ])),
        ]
        let doc = "Every frame the \(direction.rawValue) sends, decoded in one pass by `\(name).decode(_:)`."
        return [
            .type(
                TypeDeclaration(
                    kind: .enum, doc: doc, access: access, name: name, conformances: ["Swift.Sendable", "Swift.Hashable"], members: cases)),
            .type(TypeDeclaration(kind: .extension, name: name, conformances: ["WireRuntime.WireFrame"], members: members)),
        ]
    }

    func dispatcher(_ direction: Direction) -> [SwiftDeclaration] {
        let frame = SwiftNaming.frameName(direction)
        let handler = SwiftNaming.handlerName(direction)
        let messages = spec.messages(direction)
        var requirements: [SwiftDeclaration] = messages.map { message in
            let summary = message.description.map { " " + $0.firstSentence() } ?? ""
            return .function(
                FunctionDeclaration(
                    doc: "Handles \(Self.article(message.tag)) `\(message.tag)` frame.\(summary)",
                    signature: "\(methodName(message))(_ message: \(naming.messageName(message))) async throws"
                ))
        }
        requirements.append(
            .function(
                FunctionDeclaration(
                    doc: "Handles a frame whose tag this version of the spec does not know (by default: ignores it).",
                    signature: "handleUnknownFrame(tag: Swift.String, json: WireRuntime.JSONValue) async throws"
                )))
        let defaults = FunctionDeclaration(
            doc:
                "Ignores a frame of a type this version does not know, so a newer peer's frames do not break an older one. Implement it to log them.",
            access: access, signature: "handleUnknownFrame(tag: Swift.String, json: WireRuntime.JSONValue) async throws", body: []
        )
        let dispatch = FunctionDeclaration(
            doc: "Routes the frame to the handler method for its message.", access: access,
            signature: "dispatch(to handler: some \(handler)) async throws",
            body: [
                .switchOn(
                    "self",
                    messages.map { message in
                        SwitchCase(
                            pattern: "case .\(naming.frameCase(message))(let message)",
                            body: [.line("try await handler.\(methodName(message))(message)")])
                    } + [
                        SwitchCase(
                            pattern: "case .unknown(let tag, let json)", body: [.line("try await handler.handleUnknownFrame(tag: tag, json: json)")])
                    ])
            ]
        )
        return [
            .type(
                TypeDeclaration(
                    kind: .protocol,
                    doc: """
                        Receives \(direction.rawValue) frames, one method per message; see `\(frame).dispatch(to:)`.

                        Not `Sendable`: `dispatch(to:)` calls the handler on the caller's task, so a handler confined to one
                        task or actor (a main-actor view model, a connection's own state) conforms as it is. A handler shared
                        between tasks makes itself safe to share, as an actor does.
                        """,
                    access: access, name: handler, members: requirements
                )),
            .type(TypeDeclaration(kind: .extension, name: handler, members: [.function(defaults)])),
            .type(TypeDeclaration(kind: .extension, name: frame, members: [.function(dispatch)])),
        ]
    }

    /// `a` or `an` before a tag read aloud (`an auth`, `a message`).
    static func article(_ word: String) -> String {
        guard let first = word.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    private func methodName(_ message: Message) -> String {
        "handle" + SwiftNames.upperCamel(message.tag)
    }
}
