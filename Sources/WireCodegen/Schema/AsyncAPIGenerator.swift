import WireSpec

/// Exports a spec as an AsyncAPI 3.0 document: one channel, a send and a receive operation, each
/// message with its payload schema; error codes, rate limits, constants and session rules as `x-` extensions.
public enum AsyncAPIGenerator {
    public static func document(for spec: ProtocolSpec) -> String {
        var builder = SchemaBuilder(spec: spec, refPrefix: "#/components/schemas/")
        builder.annotated = true
        var root = JSONObject()
        root["asyncapi"] = .string("3.0.0")
        var info = JSONObject()
        info["title"] = .string(spec.title)
        info["version"] = .string(String(spec.version))
        if let description = spec.description { info["description"] = .string(description.trimmingTrailingNewlines()) }
        root["info"] = info.value
        root["defaultContentType"] = .string("application/json")

        let channelName = spec.name
        var channelMessages = JSONObject()
        var componentMessages = JSONObject()
        var schemas = JSONObject()
        for message in spec.messages {
            let key = SchemaBuilder.messageKey(message)
            channelMessages[key] = .object([.init(key: "$ref", value: .string("#/components/messages/\(key)"))])
            var entry = JSONObject()
            entry["name"] = .string(message.tag)
            entry["title"] = .string("\(message.direction.rawValue) \(message.tag)")
            if let description = message.description { entry["summary"] = .string(description.firstSentence()) }
            if let description = message.description { entry["description"] = .string(description.trimmingTrailingNewlines()) }
            entry["payload"] = .object([.init(key: "$ref", value: .string("#/components/schemas/\(key)"))])
            if !message.examples.isEmpty {
                entry["examples"] = .array(message.examples.map { .object([.init(key: "payload", value: $0)]) })
            }
            componentMessages[key] = entry.value
            schemas[key] = builder.messageSchema(message)
        }
        // The endpoints' types join the components, so they are read first.
        let endpoints = Self.endpoints(spec, builder: &builder)
        for (name, schema) in builder.definitions() { schemas[name] = schema }

        var channel = JSONObject()
        channel["address"] = .string(spec.transport.path)
        if let description = spec.transport.description { channel["description"] = .string(description.trimmingTrailingNewlines()) }
        channel["messages"] = channelMessages.value
        root["channels"] = .object([.init(key: channelName, value: channel.value)])

        var operations = JSONObject()
        for direction in Direction.allCases where !spec.messages(direction).isEmpty {
            // From the provider's side: it receives what clients send and sends what servers send.
            var operation = JSONObject()
            operation["action"] = .string(direction == .client ? "receive" : "send")
            operation["channel"] = .object([.init(key: "$ref", value: .string("#/channels/\(channelName)"))])
            operation["summary"] = .string(direction == .client ? "Frames clients send to the server." : "Frames the server sends to clients.")
            operation["messages"] = .array(
                spec.messages(direction).map {
                    .object([.init(key: "$ref", value: .string("#/channels/\(channelName)/messages/\(SchemaBuilder.messageKey($0))"))])
                })
            operations[direction == .client ? "receiveClientFrames" : "sendServerFrames"] = operation.value
        }
        root["operations"] = operations.value
        root["components"] = .object([.init(key: "messages", value: componentMessages.value), .init(key: "schemas", value: schemas.value)])
        root["x-transport"] = .object([
            .init(key: "kind", value: .string(spec.transport.kind.rawValue)), .init(key: "path", value: .string(spec.transport.path)),
        ])
        root["x-error-codes"] = .array(spec.errorCodes.map(errorCode))
        var validation = JSONObject()
        validation["errorCode"] = .string(spec.defaultErrorCode)
        validation["sizeErrorCode"] = .string(spec.sizeErrorCode)
        validation["notJSON"] = spec.notJSON.map(builder.answer) ?? .null
        validation["notAFrame"] = spec.notAFrame.map(builder.answer) ?? .null
        validation["unknownServerFrames"] = .string(spec.unknownServerFrames.rawValue)
        root["x-validation"] = validation.value
        root["x-rate-limits"] = .array(spec.rateLimits.map { rateLimit($0, spec: spec) })
        if !spec.endpoints.isEmpty { root["x-endpoints"] = endpoints }
        root["x-constants"] = .array(
            spec.constants.map { constant in
                var entries: [SpecValue.Member] = [
                    .init(key: "name", value: .string(constant.name)), .init(key: "kind", value: .string(constant.kind.rawValue)),
                    .init(key: "value", value: constant.value), .init(key: "written", value: .string(constant.written)),
                    .init(key: "description", value: constant.description.map(SpecValue.string) ?? .null),
                ]
                if constant.providerLimit { entries.append(.init(key: "providerLimit", value: .bool(true))) }
                return .object(entries)
            })
        if let session = spec.session { root["x-session-rules"] = sessionRules(session, spec: spec) }
        return PrettyJSON.render(root.value)
    }

    private static func answer(_ answer: Answer?, spec: ProtocolSpec) -> SpecValue {
        guard let answer else { return .null }
        let resolved = spec.resolved(answer)
        var object = JSONObject()
        object["error"] = resolved.code.map(SpecValue.string) ?? .null
        object["close"] = .bool(resolved.closesConnection)
        if let code = resolved.closeCode { object["closeCode"] = .integer(code) }
        return object.value
    }

    private static func errorCode(_ code: ErrorCode) -> SpecValue {
        var object = JSONObject()
        object["code"] = .string(code.code)
        object["httpStatus"] = code.httpStatus.map(SpecValue.integer) ?? .null
        object["closes"] = .string(code.closes.rawValue)
        object["closeCode"] = code.closeCode.map(SpecValue.integer) ?? .null
        object["description"] = code.description.map { .string($0.trimmingTrailingNewlines()) } ?? .null
        object["clientAction"] = code.clientAction.map(SpecValue.string) ?? .null
        return object.value
    }

    private static func rateLimit(_ limit: RateLimit, spec: ProtocolSpec) -> SpecValue {
        var object = JSONObject()
        object["name"] = .string(limit.name)
        switch limit.counts {
        case .frames(let refs): object["frames"] = .strings(refs.map(\.description))
        case .violations(let codes): object["violations"] = .strings(codes)
        }
        object["limit"] = .integer(limit.limit)
        object["windowMilliseconds"] = limit.windowMilliseconds.map(SpecValue.integer) ?? .null
        object["scope"] = .string(limit.scope.rawValue)
        object["answer"] = answer(limit.answer, spec: spec)
        object["description"] = limit.description.map(SpecValue.string) ?? .null
        object["clientAction"] = limit.clientAction.map(SpecValue.string) ?? .null
        return object.value
    }

    private static func conditions(_ conditions: [Condition]) -> SpecValue {
        .object(conditions.map { .init(key: $0.field, value: $0.values.count == 1 ? $0.values[0] : .array($0.values)) })
    }

    private static func sessionRules(_ session: SessionRules, spec: ProtocolSpec) -> SpecValue {
        var object = JSONObject()
        object["flags"] = .object(session.flags.map { .init(key: $0.name, value: $0.description.map(SpecValue.string) ?? .null) })
        object["phases"] = .array(
            session.phases.map { phase in
                var members: [SpecValue.Member] = [
                    .init(key: "name", value: .string(phase.name)), .init(key: "initial", value: .bool(phase.initial)),
                    .init(key: "client", value: .strings(phase.allowedClient)), .init(key: "server", value: .strings(phase.allowedServer)),
                    .init(key: "otherwise", value: answer(phase.otherwise, spec: spec)),
                ]
                if !phase.otherwiseFor.isEmpty {
                    members.append(
                        .init(
                            key: "otherwiseFor", value: .object(phase.otherwiseFor.map { .init(key: $0.tag, value: answer($0.answer, spec: spec)) })))
                }
                return .object(members)
            })
        object["transitions"] = .array(
            session.transitions.map { transition in
                var members: [SpecValue.Member] = [.init(key: "on", value: .string(transition.on.description))]
                if !transition.from.isEmpty { members.append(.init(key: "from", value: .strings(transition.from))) }
                members += [
                    .init(key: "when", value: conditions(transition.when)), .init(key: "to", value: .string(transition.to)),
                    .init(key: "set", value: .object(transition.set.map { .init(key: $0.flag, value: .string($0.field)) })),
                    .init(key: "closeCode", value: transition.closeCode.map(SpecValue.integer) ?? .null),
                ]
                return .object(members)
            })
        object["guards"] = .array(
            session.guards.map { rule in
                .object([
                    .init(key: "name", value: .string(rule.name)), .init(key: "frame", value: .string(rule.frame.description)),
                    .init(key: "requires", value: .string(rule.requires)), .init(key: "otherwise", value: answer(rule.otherwise, spec: spec)),
                ])
            })
        object["correlations"] = .array(
            session.correlations.map { rule in
                .object([
                    .init(key: "name", value: .string(rule.name)), .init(key: "frame", value: .string(rule.frame.description)),
                    .init(key: "field", value: .string(rule.field)), .init(key: "answers", value: .string(rule.answers.description)),
                    .init(key: "answersField", value: .string(rule.answersField)), .init(key: "scope", value: .string(rule.scope.rawValue)),
                    .init(key: "otherwise", value: answer(rule.otherwise, spec: spec)),
                ])
            })
        object["uniqueness"] = .array(
            session.uniqueness.map { rule in
                .object([
                    .init(key: "name", value: .string(rule.name)), .init(key: "frame", value: .string(rule.frame.description)),
                    .init(key: "key", value: .string(rule.key)), .init(key: "sameFields", value: .strings(rule.sameFields)),
                    .init(key: "compare", value: .string(rule.comparison.rawValue)), .init(key: "grows", value: .strings(rule.grows)),
                    .init(key: "final", value: conditions(rule.final)), .init(key: "otherwise", value: answer(rule.otherwise, spec: spec)),
                ])
            })
        object["runs"] = .array(
            session.runs.map { run in
                .object([
                    .init(key: "name", value: .string(run.name)), .init(key: "after", value: .string(run.after.description)),
                    .init(key: "when", value: conditions(run.when)), .init(key: "count", value: .string(run.count)),
                    .init(key: "frame", value: .string(run.frame.description)), .init(key: "each", value: conditions(run.each)),
                    .init(key: "otherwise", value: answer(run.otherwise, spec: spec)),
                ])
            })
        return object.value
    }
}
