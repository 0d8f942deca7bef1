@_spi(Generated) import WireRuntime
@_spi(Generated) import WireSpec

/// Emits the protocol namespace: identity, default answers, error codes, constants, rate limits,
/// HTTP endpoints and session rules, as code.
struct TablesEmitter {
    let mapper: SwiftTypeMapper
    let access: AccessLevel

    private var spec: ProtocolSpec { mapper.spec }
    private var namespace: String { mapper.naming.namespace }

    private func constant(_ doc: String?, _ name: String, _ type: String, _ value: String, plumbing: Bool = false) -> SwiftDeclaration {
        .variable(VariableDeclaration(doc: doc, access: access, isPlumbing: plumbing, isStatic: true, name: name, type: type, initializer: value))
    }

    func namespaceDeclarations() -> [SwiftDeclaration] {
        let defaultAnswer = mapper.answerLiteral(Answer(errorCode: spec.defaultErrorCode))
        var members: [SwiftDeclaration] = [
            constant("The protocol's machine name.", "name", "Swift.String", SwiftNames.literal(spec.name)),
            constant("The protocol's title.", "title", "Swift.String", SwiftNames.literal(spec.title)),
            constant("The protocol version this code was generated for.", "version", "Swift.Int", String(spec.version)),
            constant(
                "How frames travel: `websocket`, `sse` or " + "`http`.", "transportKind", "Swift.String",
                SwiftNames.literal(spec.transport.kind.rawValue)),
            constant("Where the connection is opened.", "transportPath", "Swift.String", SwiftNames.literal(spec.transport.path)),
        ]
        if let port = spec.transport.defaultPort {
            members.append(constant("The protocol's default port.", "defaultPort", "Swift.Int", String(port)))
        }
        members += [
            constant(
                "The answer to a broken rule when nothing more specific is said.", "defaultAnswer", "WireRuntime.ViolationAnswer", defaultAnswer,
                plumbing: true),
            constant(
                "The answer to a broken size limit.", "sizeAnswer", "WireRuntime.ViolationAnswer",
                mapper.answerLiteral(Answer(errorCode: spec.sizeErrorCode)), plumbing: true),
            constant(
                "The answer to bytes that are not JSON.", "notJSONAnswer", "WireRuntime.ViolationAnswer", mapper.answerLiteral(spec.notJSONAnswer),
                plumbing: true),
            constant(
                "The answer to JSON that is not an object with a string tag.", "notAFrameAnswer", "WireRuntime.ViolationAnswer",
                mapper.answerLiteral(spec.notAFrameAnswer), plumbing: true),
        ]
        members.append(.type(constantsEnum()))
        members.append(.type(rateLimitsEnum()))
        members.append(.type(endpointsEnum()))
        members.append(sessionRules())
        members.append(
            constant(
                "The protocol's frame checks as data, which WireRuntime's engine runs: a printout of the plan `wire validate` builds "
                    + "from the spec at run time.", "validationPlan", "WireRuntime.ValidationPlan", PlanPrinter.expression(mapper.planLayout.plan),
                plumbing: true))
        let doc = ([spec.title + " protocol, version \(spec.version)."] + [spec.description?.trimmingTrailingNewlines()].compactMap { $0 }).joined(
            separator: "\n\n")
        return [.type(TypeDeclaration(kind: .enum, doc: doc, access: access, name: namespace, members: members))]
    }

    // MARK: Constants

    private func constantsEnum() -> TypeDeclaration {
        let members: [SwiftDeclaration] = spec.constants.map { constant in
            let limit = constant.providerLimit ? "A limit of the provider that wrote the spec, not a rule of the contract." : nil
            let doc = [constant.description?.trimmingTrailingNewlines(), limit, "Written in the spec as `\(constant.written)`."].compactMap { $0 }
                .joined(separator: "\n\n")
            let name = SwiftNames.escaped(SwiftNames.lowerCamel(constant.name))
            switch (constant.kind, constant.value) {
            case (.duration, .integer(let milliseconds)):
                return self.constant(doc, name, "Swift.Duration", ".milliseconds(\(milliseconds))")
            case (.bytes, .integer(let bytes)), (.count, .integer(let bytes)):
                return self.constant(doc, name, "Swift.Int", String(bytes))
            case (.number, .number(let number)):
                return self.constant(doc, name, "Swift.Double", SwiftNames.doubleLiteral(number))
            case (_, let value):
                return self.constant(doc, name, "Swift.String", SwiftNames.literal(value.plainText))
            }
        }
        return TypeDeclaration(
            kind: .enum, doc: "The protocol's constants: durations as `Duration`, sizes in bytes, counts.", access: access, name: "Constants",
            members: members)
    }

    // MARK: Rate limits

    /// The runtime's table types, with the protocol's error code enum.
    private var errorCodeType: String { ProtocolSpec.errorCodeTypeName }
    private var rateLimitType: String { "WireRuntime.RateLimitRule<\(errorCodeType)>" }
    private var endpointType: String { "WireRuntime.HTTPEndpoint<\(errorCodeType)>" }

    private func scopeLiteral(_ scope: RateLimitScope) -> String {
        [.connection, .device].contains(scope) ? ".\(scope)" : "WireRuntime.RateLimitScope(rawValue: \(SwiftNames.literal(scope.rawValue)))"
    }

    private func rateLimitsEnum() -> TypeDeclaration {
        var members: [SwiftDeclaration] = spec.rateLimits.map { limit in
            let counts: String
            switch limit.counts {
            case .frames(let refs): counts = ".frames([" + refs.map(Self.frameKeyLiteral).joined(separator: ", ") + "])"
            case .violations(let codes):
                counts =
                    ".violations([" + codes.map { "." + mapper.naming.caseName($0, inEnum: ProtocolSpec.errorCodeTypeName) }.joined(separator: ", ")
                    + "])"
            }
            var arguments = [
                "name: \(SwiftNames.literal(limit.name))", "counts: \(counts)", "limit: \(limit.limit)",
                "window: " + (limit.windowMilliseconds.map { ".milliseconds(\($0))" } ?? "nil"),
                "scope: \(scopeLiteral(limit.scope))", "answer: \(optionalAnswer(limit.answer))",
            ]
            if let action = limit.clientAction { arguments.append("clientAction: \(SwiftNames.literal(action))") }
            return constant(
                limit.description, SwiftNames.escaped(SwiftNames.lowerCamel(limit.name)), rateLimitType,
                "\(rateLimitType)(" + arguments.joined(separator: ", ") + ")")
        }
        members.append(
            constant(
                "Every rate limit, in spec order.", "all", "[\(rateLimitType)]",
                "[" + spec.rateLimits.map { SwiftNames.escaped(SwiftNames.lowerCamel($0.name)) }.joined(separator: ", ") + "]"))
        return TypeDeclaration(kind: .enum, doc: "The protocol's rate limits.", access: access, name: "RateLimits", members: members)
    }

    // MARK: Endpoints

    private func endpointsEnum() -> TypeDeclaration {
        var members: [SwiftDeclaration] = []
        for endpoint in spec.endpoints {
            let name = SwiftNames.escaped(SwiftNames.lowerCamel(endpoint.name))
            let errors =
                "[" + endpoint.errors.map { "." + mapper.naming.caseName($0, inEnum: ProtocolSpec.errorCodeTypeName) }.joined(separator: ", ") + "]"
            let method = ".\(endpoint.method.rawValue.lowercased())"
            let value =
                "\(endpointType)(name: \(SwiftNames.literal(endpoint.name)), method: \(method), path: \(SwiftNames.literal(endpoint.path)), "
                + "requiresBearerToken: \(endpoint.auth == .bearer), errorCodes: \(errors))"
            let doc = [endpoint.description?.trimmingTrailingNewlines(), "`\(endpoint.method) \(endpoint.path)`"].compactMap { $0 }.joined(
                separator: "\n\n")
            members.append(constant(doc, name, endpointType, value))
            guard !endpoint.parameters.isEmpty || !endpoint.query.isEmpty else { continue }
            func argument(_ field: Field) -> String { SwiftNames.escaped(SwiftNames.lowerCamel(field.name)) }
            // Path parameters first, then the query's (an optional one defaults to nil and is left out of the URL).
            let parameters =
                (endpoint.parameters.map { "\(argument($0)): Swift.String" }
                + endpoint.query.map { "\(argument($0)): Swift.String\($0.required ? "" : "? = nil")" }).joined(separator: ", ")
            let dictionary = endpoint.parameters.map { "\(SwiftNames.literal($0.name)): \(argument($0))" }.joined(separator: ", ")
            let call =
                endpoint.query.isEmpty
                ? "\(name).path([\(dictionary)])"
                : "\(name).path([\(dictionary.isEmpty ? ":" : dictionary)], query: ["
                    + endpoint.query.map { "\(SwiftNames.literal($0.name)): \(argument($0))" }.joined(separator: ", ") + "])"
            members.append(
                .function(
                    FunctionDeclaration(
                        doc: "The path of `\(endpoint.method) \(endpoint.path)` with its parameters filled in and percent-encoded"
                            + (endpoint.query.isEmpty ? "." : ", then its query."),
                        access: access, isStatic: true, signature: "\(SwiftNames.lowerCamel(endpoint.name))Path(\(parameters)) -> Swift.String",
                        body: [.line(call)]
                    )))
        }
        members.append(
            constant(
                "Every endpoint, in spec order.", "all", "[\(endpointType)]",
                "[" + spec.endpoints.map { SwiftNames.escaped(SwiftNames.lowerCamel($0.name)) }.joined(separator: ", ") + "]"))
        return TypeDeclaration(kind: .enum, doc: "The protocol's HTTP endpoints.", access: access, name: "Endpoints", members: members)
    }

    // MARK: Session rules

    private func optionalAnswer(_ answer: Answer?) -> String {
        answer.map(mapper.answerLiteral) ?? "nil"
    }

    private static func frameKeyLiteral(_ key: FrameKey) -> String {
        "WireRuntime.FrameKey(.\(key.direction.rawValue), \(SwiftNames.literal(key.tag)))"
    }

    private static func conditionsLiteral(_ conditions: [SessionRuleSet.Condition]) -> String {
        "["
            + conditions.map {
                "WireRuntime.SessionRuleSet.Condition(\(SwiftNames.literal($0.field)), ["
                    + $0.values.map(SwiftNames.jsonLiteral).joined(separator: ", ") + "])"
            }.joined(separator: ", ") + "]"
    }

    /// A literal of the shapes of a uniqueness rule's fields, keys sorted.
    private static func shapesLiteral(_ shapes: [String: ValueShape]) -> String {
        "[" + shapes.sorted { $0.key < $1.key }.map { "\(SwiftNames.literal($0.key)): \(shapeLiteral($0.value))" }.joined(separator: ", ") + "]"
    }

    private static func shapeLiteral(_ shape: ValueShape) -> String {
        switch shape {
        case .base64: return ".base64"
        case .array(let element): return ".array(\(shapeLiteral(element)))"
        case .map(let element): return ".map(\(shapeLiteral(element)))"
        case .object(let members): return ".object(\(shapesLiteral(members)))"
        case .union(let tag, let cases):
            let sorted = cases.map { (SpecValue($0.key), $0.value) }.sorted { $0.0.description < $1.0.description }
            return ".union(tag: \(SwiftNames.literal(tag)), cases: ["
                + sorted.map { "\(SwiftNames.jsonLiteral($0.0)): \(shapesLiteral($0.1))" }.joined(separator: ", ") + "])"
        }
    }

    /// The spec's session rules as code: a printout of the one projection the runtime checks
    /// (`ProtocolSpec.sessionRuleSet`), which `wire validate` builds at run time.
    private func sessionRules() -> SwiftDeclaration {
        let rules = spec.sessionRuleSet
        var lines: [String] = ["WireRuntime.SessionRuleSet("]
        lines.append("    initialPhase: \(rules.initialPhase.map(SwiftNames.literal) ?? "nil"),")
        lines.append("    phases: [")
        for phase in rules.phases {
            var arguments =
                "name: \(SwiftNames.literal(phase.name)), allowedClient: \(SwiftNames.listLiteral(phase.allowedClient)), "
                + "allowedServer: \(SwiftNames.listLiteral(phase.allowedServer)), otherwise: \(SwiftTypeMapper.answerLiteral(phase.otherwise))"
            if !phase.otherwiseFor.isEmpty {
                let entries = phase.otherwiseFor.sorted { $0.key < $1.key }.map {
                    "\(SwiftNames.literal($0.key)): \(SwiftTypeMapper.answerLiteral($0.value))"
                }
                arguments += ", otherwiseFor: [\(entries.joined(separator: ", "))]"
            }
            lines.append("        .init(\(arguments)),")
        }
        lines.append("    ],")
        lines.append("    transitions: [")
        for transition in rules.transitions {
            let flags =
                transition.setFlags.isEmpty
                ? "[:]"
                : "["
                    + transition.setFlags.sorted { $0.key < $1.key }.map { "\(SwiftNames.literal($0.key)): \(SwiftNames.literal($0.value))" }
                    .joined(separator: ", ") + "]"
            // `from` is written only when it names phases, so specs without it generate what they did before.
            let from = transition.from.isEmpty ? "" : "from: \(SwiftNames.listLiteral(transition.from)), "
            lines.append(
                "        .init(on: \(Self.frameKeyLiteral(transition.on)), \(from)when: \(Self.conditionsLiteral(transition.when)), to: "
                    + "\(SwiftNames.literal(transition.to)), setFlags: \(flags), closeCode: \(transition.closeCode.map(String.init) ?? "nil")),"
            )
        }
        lines.append("    ],")
        lines.append("    flags: \(SwiftNames.listLiteral(rules.flags)),")
        lines.append("    guards: [")
        for rule in rules.guards {
            lines.append(
                "        .init(name: \(SwiftNames.literal(rule.name)), frame: \(Self.frameKeyLiteral(rule.frame)), requiredFlag: "
                    + "\(SwiftNames.literal(rule.requiredFlag)), otherwise: \(SwiftTypeMapper.answerLiteral(rule.otherwise))),"
            )
        }
        lines.append("    ],")
        lines.append("    correlations: [")
        for rule in rules.correlations {
            lines.append(
                "        .init(name: \(SwiftNames.literal(rule.name)), frame: \(Self.frameKeyLiteral(rule.frame)), field: "
                    + "\(SwiftNames.literal(rule.field)), answers: \(Self.frameKeyLiteral(rule.answers)), answersField: "
                    + "\(SwiftNames.literal(rule.answersField)), otherwise: \(SwiftTypeMapper.answerLiteral(rule.otherwise))"
                    + (rule.scope == .connection ? "" : ", scope: .\(rule.scope.rawValue)") + "),"
            )
        }
        lines.append("    ],")
        lines.append("    uniqueness: [")
        for rule in rules.uniqueness {
            var arguments =
                "name: \(SwiftNames.literal(rule.name)), frame: \(Self.frameKeyLiteral(rule.frame)), key: \(SwiftNames.literal(rule.key)), "
                + "sameFields: \(SwiftNames.listLiteral(rule.sameFields))"
            if rule.comparison != .exact { arguments += ", comparison: .\(rule.comparison.rawValue)" }
            if !rule.grows.isEmpty { arguments += ", grows: \(SwiftNames.listLiteral(rule.grows))" }
            arguments += ", final: \(Self.conditionsLiteral(rule.final)), otherwise: \(SwiftTypeMapper.answerLiteral(rule.otherwise))"
            if !rule.shapes.isEmpty { arguments += ", shapes: \(Self.shapesLiteral(rule.shapes))" }
            lines.append("        .init(\(arguments)),")
        }
        lines.append("    ],")
        lines.append("    runs: [")
        for run in rules.runs {
            lines.append(
                "        .init(name: \(SwiftNames.literal(run.name)), after: \(Self.frameKeyLiteral(run.after)), when: "
                    + "\(Self.conditionsLiteral(run.when)), countField: \(SwiftNames.literal(run.countField)), frame: "
                    + "\(Self.frameKeyLiteral(run.frame)), each: \(Self.conditionsLiteral(run.each)), otherwise: "
                    + "\(SwiftTypeMapper.answerLiteral(run.otherwise))),"
            )
        }
        lines.append("    ]")
        lines.append(")")
        return .variable(
            VariableDeclaration(
                doc: "The rules across the frames of one connection: phases, transitions, guards, correlations, uniqueness and runs.",
                access: access, isStatic: true, name: "sessionRules", type: "WireRuntime.SessionRuleSet", initializer: lines.joined(separator: "\n")
            ))
    }
}
