import WireSpec

extension AsyncAPISpecBuilder {
    /// The `messages` section. Frames of one direction that share a tag value become one union
    /// message when a second property tells them apart (Slack's `emoji_changed` by `subtype`), and
    /// an error otherwise.
    mutating func messages(_ frames: [Frame], tag: String) -> [(String, SpecYAML)] {
        var groups: [(direction: String, value: String, frames: [Frame])] = []
        for frame in frames {
            guard let value = frame.schema.constValue(of: tag) else {
                report(
                    .error,
                    "frame '\(frame.messageName)' does not fix '\(tag)' to a string, so it cannot be told apart from the others; "
                        + "add `\(tag): {const: \(frame.messageName)}` to its payload",
                    at: frame.location)
                continue
            }
            if let index = groups.firstIndex(where: { $0.direction == frame.direction && $0.value == value }) {
                groups[index].frames.append(frame)
            } else {
                groups.append((frame.direction, value, [frame]))
            }
        }
        var sections: [String: [(String, SpecYAML)]] = [:]
        for (direction, value, members) in groups {
            let frame = sharedTagFrame(members, direction: direction, tag: tag, value: value)
            var body: [(String, SpecYAML)] = []
            let typeName = translator.freshName(frame.messageName)
            if SchemaTranslator.lowerCamel(frame.messageName) != SchemaTranslator.lowerCamel(value) { body.append(("typeName", .string(typeName))) }
            if let description = frame.description { body.append(("description", .string(description))) }
            if let violation = frame.schema.wire("violation") { body.append(("violation", SpecYAML(violation.node))) }
            if frame.cases.isEmpty {
                body += translator.objectBody(frame.schema, context: typeName, skipping: [tag]).filter { $0.0 != "description" }
            } else {
                body += unionMessage(frame, typeName: typeName, tag: tag)
            }
            for example in frame.examples where example[tag]?.text == value {
                exampleSites.append(ExampleCheck.Site(direction: direction == "client" ? .client : .server, tag: value, example: example))
            }
            for key in Set(members.map(\.messageKey)) { framesByMessage[key, default: []].append((direction, value)) }
            sections[direction, default: []].append((value, .mapping(body)))
        }
        return ["client", "server"].compactMap { direction in sections[direction].map { (direction, .mapping($0)) } }
    }

    /// The one frame for every frame of a direction with one tag value: itself when alone, a union
    /// message of them when a second property tells them apart, else the first (with an error).
    private mutating func sharedTagFrame(_ members: [Frame], direction: String, tag: String, value: String) -> Frame {
        guard members.count > 1 else { return members[0] }
        let shapes = members.map(\.schema)
        guard members.allSatisfy({ $0.cases.isEmpty }), Self.discriminator(of: shapes, besides: tag) != nil else {
            for other in members.dropFirst() {
                report(
                    .error,
                    "\(direction) frames '\(members[0].messageName)' and '\(other.messageName)' both have \(tag) '\(value)' and nothing else "
                        + "tells them apart on the wire; give them different values, or a second property each fixes to a value of its own",
                    at: other.location)
            }
            return members[0]
        }
        return Frame(
            direction: direction, schema: members[0].schema, messageName: value, messageKey: members[0].messageKey, description: nil,
            examples: members.flatMap(\.examples), location: members[0].location,
            cases: members.map { Case(schema: $0.schema, name: $0.messageName, description: $0.description) })
    }

    /// The property (other than the tag) that every shape fixes to a value of its own, booleans
    /// included: a union message's second tag.
    static func discriminator(of shapes: [MergedSchema], besides tag: String) -> String? {
        let candidates = Set(shapes.flatMap { $0.properties.map(\.name) }).subtracting([tag]).filter { name in
            let values = shapes.map { $0.constValue(of: name, booleans: true) }
            return values.allSatisfy { $0 != nil } && Set(values.compactMap { $0 }).count == shapes.count
        }
        return SchemaTranslator.preferredTag(among: candidates)
    }

    /// A frame whose fields depend on one of them: `tag` and `cases`, each case an object type
    /// without the frame's tag and the case's own. Variants that nothing tells apart are joined
    /// into one object, with a warning.
    mutating func unionMessage(_ frame: Frame, typeName: String, tag: String) -> [(String, SpecYAML)] {
        let shapes = frame.cases.map(\.schema)
        guard let discriminator = Self.discriminator(of: shapes, besides: tag) else {
            report(
                .warning,
                "frame '\(frame.messageName)': nothing tells its \(shapes.count) oneOf variants apart (no property each fixes to a value of "
                    + "its own), so they are joined into one frame with the fields of every variant, required where all of them require it; "
                    + "the spec checks less than the document",
                at: frame.location)
            return translator.objectBody(MergedSchema.joined(shapes, onto: frame.schema), context: typeName, skipping: [tag])
                .filter { $0.0 != "description" }
        }
        var cases: [(String, SpecYAML)] = []
        for shape in frame.cases {
            let value = shape.schema.constValue(of: discriminator, booleans: true)!
            let fallback = shape.name ?? "\(typeName) \(value == "true" ? "success" : value == "false" ? "failure" : value)"
            let caseType = translator.caseType(shape.schema, fallback: fallback) { translator, name in
                var caseBody = translator.objectBody(shape.schema, context: name, skipping: [tag, discriminator])
                if let description = shape.description, !caseBody.contains(where: { $0.0 == "description" }) {
                    caseBody.insert(("description", .string(description)), at: 0)
                }
                // A case type may not refuse unknown fields: the frame's tag is in every object.
                caseBody.removeAll { $0.0 == "unknownFields" && $0.1 == .string("reject") }
                return .mapping(caseBody)
            }
            cases.append((value, .string(caseType)))
        }
        let open: [(String, SpecYAML)] = frame.schema.wire("open")?.text == "true" ? [("open", .literal("true"))] : []
        return [("tag", .string(discriminator))] + open + [("cases", .mapping(cases))]
    }

    // MARK: Correlations

    /// `session.correlations` from replies: a reply that states a `correlationId` answers the one
    /// request of its operation that states one. Every `correlationId` this cannot carry over is
    /// a warning that says why.
    mutating func correlations() -> [(String, SpecYAML)] {
        var requestsByReply: [(reply: String, requests: [String])] = []
        for exchange in exchanges {
            for reply in exchange.replies {
                if let index = requestsByReply.firstIndex(where: { $0.reply == reply }) {
                    requestsByReply[index].requests += exchange.requests.filter { !requestsByReply[index].requests.contains($0) }
                } else {
                    requestsByReply.append((reply, exchange.requests))
                }
            }
        }
        var result: [(String, SpecYAML)] = []
        var used: Set<String> = []
        for (reply, requests) in requestsByReply where messageNodes[reply]?["correlationId"] != nil {
            used.insert(reply)
            guard let replyField = correlationField(reply) else { continue }
            guard requests.count == 1, let request = requests.first else {
                report(
                    .warning,
                    "message '\(reply)' answers \(requests.count) messages (\(requests.joined(separator: ", "))) and a correlation names one; "
                        + "its correlationId is left out",
                    at: replyField.location)
                continue
            }
            let requestStatesOne = messageNodes[request]?["correlationId"] != nil
            if requestStatesOne { used.insert(request) }
            guard let requestField = correlationField(request) else {
                report(
                    .warning,
                    "message '\(reply)' answers '\(request)', whose correlationId \(requestStatesOne ? "cannot be carried over" : "is not stated"); "
                        + "its correlationId is left out",
                    at: replyField.location)
                continue
            }
            for answer in framesByMessage[reply] ?? [] {
                for asked in framesByMessage[request] ?? [] where asked.direction != answer.direction {
                    var body: [(String, SpecYAML)] = [
                        ("frame", .string("\(answer.direction) \(answer.tag)")), ("field", .string(replyField.name)),
                        ("answers", .string("\(asked.direction) \(asked.tag)")),
                    ]
                    if requestField.name != replyField.name { body.append(("answersField", .string(requestField.name))) }
                    result.append(("\(Self.snakeCase(answer.tag))_answers_\(Self.snakeCase(asked.tag))", .mapping(body)))
                }
            }
        }
        for key in messageNodes.keys.sorted() where !used.contains(key) && messageNodes[key]?["correlationId"] != nil {
            guard let field = correlationField(key) else { continue }
            let replies = exchanges.filter { $0.requests.contains(key) }.flatMap(\.replies)
            let why =
                replies.isEmpty
                ? "no operation's reply answers it" : "its reply (\(replies.joined(separator: ", "))) states no correlationId to match"
            report(.warning, "message '\(key)': its correlationId is left out: \(why)", at: field.location)
        }
        return result
    }

    /// The payload field a message's `correlationId` names (`$message.payload#/reqid`); another
    /// location is reported and gives `nil`.
    private mutating func correlationField(_ key: String) -> (name: String, location: SourceLocation)? {
        guard let message = messageNodes[key], let node = message["correlationId"], let correlation = translator.resolved(node) else {
            return nil
        }
        let prefix = "$message.payload#/"
        guard let location = correlation["location"]?.text, location.hasPrefix(prefix),
            case let field = String(location.dropFirst(prefix.count)), !field.isEmpty, !field.contains("/")
        else {
            report(
                .warning, "message '\(key)': its correlationId is left out: only a top-level payload field ('\(prefix)field') can be correlated",
                at: node.location)
            return nil
        }
        return (field, node.location)
    }

    /// `subscriptionStatus` → `subscription_status`, for rule names.
    static func snakeCase(_ text: String) -> String {
        var result = ""
        for character in text {
            if character.isUppercase, !result.isEmpty, result.last != "_" { result.append("_") }
            result.append(character.isLetter || character.isNumber ? Character(character.lowercased()) : "_")
        }
        return result
    }
}
