import WireSpec

extension AsyncAPISpecBuilder {
    /// Every frame: each message an operation names, split into one frame per tagged `oneOf`
    /// variant of its payload. The direction is the provider's: `receive` is a client frame,
    /// `send` a server frame.
    mutating func collectFrames() -> [Frame] {
        var directions: [String: Set<String>] = [:]
        var messages: [String: (Located, SourceLocation)] = [:]
        var order: [String] = []
        func add(_ key: String, _ message: Located, _ location: SourceLocation, _ direction: String?) {
            if messages[key] == nil {
                messages[key] = (message, location)
                order.append(key)
            }
            if let direction { directions[key, default: []].insert(direction) }
        }
        for (name, location, operation) in root["operations"]?.entries ?? [] {
            guard let operation = translator.resolved(operation) else { continue }
            let action = operation["action"]?.text
            guard action == "send" || action == "receive" else {
                report(.error, "operation '\(name)' has action '\(action ?? "none")'; it must be 'send' or 'receive'", at: location)
                continue
            }
            var listed = operation["messages"]?.items ?? []
            if listed.isEmpty, let channel = operation["channel"].flatMap({ translator.resolved($0) }) {
                listed = channel["messages"]?.entries.map(\.value) ?? []
            }
            for message in listed {
                guard let resolved = translator.resolved(message) else { continue }
                add(messageKey(resolved), resolved, message.location, action == "receive" ? "client" : "server")
            }
            if let reply = operation["reply"] { replyFrames(reply, of: name, into: add) }
        }
        for (channelName, _, channel) in root["channels"]?.entries ?? [] {
            guard let channel = translator.resolved(channel) else { continue }
            for (_, location, message) in channel["messages"]?.entries ?? [] {
                guard let resolved = translator.resolved(message) else { continue }
                let key = messageKey(resolved)
                if messages[key] == nil {
                    report(.warning, "message '\(key)' of channel '\(channelName)' is in no operation; imported as a server frame", at: location)
                    add(key, resolved, location, "server")
                }
            }
        }
        var frames: [Frame] = []
        for key in order {
            let (message, location) = messages[key]!
            for direction in directions[key, default: ["server"]].sorted() {
                frames += messageFrames(message, named: key, direction: direction, at: location)
            }
        }
        return frames
    }

    /// The reply's messages, sent the other way from the operation's own.
    private mutating func replyFrames(_ reply: Located, of operation: String, into add: (String, Located, SourceLocation, String?) -> Void) {
        guard let reply = translator.resolved(reply), let action = root["operations"]?[operation]?["action"]?.text else { return }
        for message in reply["messages"]?.items ?? [] {
            guard let resolved = translator.resolved(message) else { continue }
            add(messageKey(resolved), resolved, message.location, action == "receive" ? "server" : "client")
        }
    }

    /// A message's name: the component it was reached through, else its `name`.
    func messageKey(_ message: Located) -> String {
        message.reference.flatMap(SchemaTranslator.componentName) ?? message["name"]?.text ?? "message\(message.location.line)"
    }

    private mutating func messageFrames(_ message: Located, named name: String, direction: String, at location: SourceLocation) -> [Frame] {
        if let type = message["contentType"]?.text ?? root["defaultContentType"]?.text, !type.contains("json") {
            report(.error, "message '\(name)' has content type '\(type)'; only JSON payloads are imported", at: message.location)
            return []
        }
        for key in ["headers", "correlationId", "bindings", "traits"] {
            if let value = message[key] {
                report(.warning, "message '\(name)': '\(key)' is not modelled by the spec language; it is left out", at: value.location)
            }
        }
        guard let payload = message["payload"] else {
            report(.error, "message '\(name)' has no payload", at: message.location)
            return []
        }
        let description = message["description"]?.text ?? message["summary"]?.text
        let examples = (message["examples"]?.items ?? []).compactMap { $0["payload"] }
        if let schemaFormat = payload["schemaFormat"] {
            report(
                .error, "message '\(name)' states its payload in '\(schemaFormat.text ?? "?")'; only JSON Schema payloads are imported",
                at: schemaFormat.location)
            return []
        }
        let schema = translator.merged(payload)
        let fixesItsTag = schema.properties.contains { schema.constValue(of: $0.name) != nil }
        if let variants = schema.keywords["oneOf"] ?? schema.keywords["anyOf"], fixesItsTag {
            var frame = Frame(
                direction: direction, schema: schema, messageName: name, description: description, examples: examples, location: location)
            frame.cases = variants.items
            return [frame]
        }
        if let variants = schema.keywords["oneOf"] ?? schema.keywords["anyOf"] {
            return variants.items.enumerated().map { index, variant in
                let shape = translator.merged(variant)
                // A variant named by its component (`update`), its own description before the message's.
                let target = translator.resolved(variant)
                let variantName = target?.reference.flatMap(SchemaTranslator.componentName) ?? "\(name) \(index + 1)"
                return Frame(
                    direction: direction, schema: shape, messageName: variantName, description: target?["description"]?.text ?? description,
                    examples: examples, location: variant.location)
            }
        }
        return [Frame(direction: direction, schema: schema, messageName: name, description: description, examples: examples, location: location)]
    }

    /// The property that tells frames apart: the option, else a property every frame fixes to a
    /// string of its own.
    mutating func tagField(_ frames: [Frame]) -> String {
        if let given = options.tagField { return given }
        if frames.count == 1, let only = frames.first {
            if let name = only.schema.properties.first(where: { only.schema.constValue(of: $0.name) != nil })?.name { return name }
        }
        if let found = SchemaTranslator.sharedTag(frames.map(\.schema)) { return found }
        // Fixed in every frame, though not to distinct values: the frames that share one are reported.
        let fixed = Set(frames.flatMap { $0.schema.properties.map(\.name) }).filter { name in
            frames.allSatisfy { $0.schema.constValue(of: name) != nil }
        }
        if let name = SchemaTranslator.preferredTag(among: fixed) { return name }
        // Distinct per direction is enough: the same tag may name a frame each way.
        for direction in ["client", "server"] {
            let these = frames.filter { $0.direction == direction }
            if these.count >= 2, SchemaTranslator.sharedTag(these.map(\.schema)) == nil {
                report(
                    .error,
                    "no property tells the \(direction) frames apart (\(these.map(\.messageName).joined(separator: ", "))): "
                        + "give each a property fixed to a string of its own (for example `type: {const: \(these[0].messageName)}`), "
                        + "or name the property with --tag-field",
                    at: these[0].location)
                return "type"
            }
        }
        return "type"
    }

    /// The `messages` section, and a diagnostic for each frame that cannot be told apart.
    mutating func messages(_ frames: [Frame], tag: String) -> [(String, SpecYAML)] {
        var sections: [String: [(String, SpecYAML)]] = [:]
        for frame in frames {
            guard let value = frame.schema.constValue(of: tag) else {
                report(
                    .error,
                    "frame '\(frame.messageName)' does not fix '\(tag)' to a string, so it cannot be told apart from the others; "
                        + "add `\(tag): {const: \(frame.messageName)}` to its payload",
                    at: frame.location)
                continue
            }
            if sections[frame.direction, default: []].contains(where: { $0.0 == value }) {
                report(
                    .error, "two \(frame.direction) frames have \(tag) '\(value)' and cannot be told apart on the wire; give them different values",
                    at: frame.location)
                continue
            }
            var body: [(String, SpecYAML)] = []
            let typeName = translator.freshName(frame.messageName)
            if SchemaTranslator.lowerCamel(frame.messageName) != SchemaTranslator.lowerCamel(value) { body.append(("typeName", .string(typeName))) }
            if let description = frame.description { body.append(("description", .string(description))) }
            if frame.cases.isEmpty {
                body += translator.objectBody(frame.schema, context: typeName, skipping: [tag]).filter { $0.0 != "description" }
            } else {
                body += unionMessage(frame, typeName: typeName, tag: tag)
            }
            for example in frame.examples where example[tag]?.text == value {
                exampleSites.append(ExampleCheck.Site(direction: frame.direction == "client" ? .client : .server, tag: value, example: example))
            }
            sections[frame.direction, default: []].append((value, .mapping(body)))
        }
        return ["client", "server"].compactMap { direction in sections[direction].map { (direction, .mapping($0)) } }
    }

    /// A frame whose fields depend on one of them: `tag` and `cases`, each case an object type
    /// without the frame's tag and the case's own.
    mutating func unionMessage(_ frame: Frame, typeName: String, tag: String) -> [(String, SpecYAML)] {
        let shapes = frame.cases.map { translator.merged($0) }
        let candidates = Set(shapes.flatMap { $0.properties.map(\.name) }).subtracting([tag]).sorted().filter { name in
            let values = shapes.map { $0.constValue(of: name, booleans: true) }
            return values.allSatisfy { $0 != nil } && Set(values.compactMap { $0 }).count == shapes.count
        }
        guard let discriminator = candidates.first else {
            report(
                .error, "frame '\(frame.messageName)': no property tells its oneOf variants apart; give each a property fixed to a value of its own",
                at: frame.location)
            return translator.objectBody(frame.schema, context: typeName, skipping: [tag]).filter { $0.0 != "description" }
        }
        var cases: [(String, SpecYAML)] = []
        for shape in shapes {
            let value = shape.constValue(of: discriminator, booleans: true)!
            let caseType = translator.freshName("\(typeName) \(value == "true" ? "success" : value == "false" ? "failure" : value)")
            var caseBody = translator.objectBody(shape, context: caseType, skipping: [tag, discriminator])
            // A case type may not refuse unknown fields: the frame's tag is in every object.
            caseBody.removeAll { $0.0 == "unknownFields" && $0.1 == .string("reject") }
            translator.addType(caseType, .mapping(caseBody))
            cases.append((value, .string(caseType)))
        }
        return [("tag", .string(discriminator)), ("cases", .mapping(cases))]
    }
}
