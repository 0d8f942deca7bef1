import WireSpec

extension AsyncAPISpecBuilder {
    /// Which application the document describes: the option, else judged from the operations. A
    /// document whose every operation with a reply sends its request is a client's (it asks, the
    /// provider answers); any other is the provider's. A note says which, and how to choose.
    mutating func judgePerspective() -> AsyncAPIImporter.Perspective {
        if let given = options.describes { return given }
        let location = root.entries.first { $0.key == "operations" }?.keyLocation ?? root.location
        var actions: [String?] = []
        for (_, _, operation) in root["operations"]?.entries ?? [] {
            guard let operation = try? translator.source.resolve(operation), operation["reply"] != nil else { continue }
            actions.append(operation["action"]?.text)
        }
        if !actions.isEmpty, actions.allSatisfy({ $0 == "send" }) {
            report(
                .note,
                "every operation with a reply sends its request, so the document is read as a client's: 'send' is a client frame, "
                    + "'receive' a server frame (--describes provider reads it the other way)",
                at: location)
            return .client
        }
        report(
            .note,
            "the document is read as the provider's: 'receive' is a client frame, 'send' a server frame "
                + "(--describes client reads it the other way)",
            at: location)
        return .provider
    }

    /// The direction of an operation's messages (or, with `reply`, of its reply's).
    func direction(of action: String, reply: Bool = false) -> String {
        let clientSends = (action == "receive") == (perspective == .provider)
        return clientSends != reply ? "client" : "server"
    }

    /// Every frame: each message an operation names, split into one frame per tagged `oneOf`
    /// variant of its payload, in the direction `perspective` gives the operation's action.
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
            guard let action = operation["action"]?.text, action == "send" || action == "receive" else {
                report(
                    .error, "operation '\(name)' has action '\(operation["action"]?.text ?? "none")'; it must be 'send' or 'receive'", at: location)
                continue
            }
            var requests: [String] = []
            for message in operationMessages(operation) {
                guard let resolved = translator.resolved(message) else { continue }
                requests.append(messageKey(resolved))
                add(messageKey(resolved), resolved, message.location, direction(of: action))
            }
            guard let reply = operation["reply"].flatMap({ translator.resolved($0) }) else { continue }
            if let address = reply["address"] {
                report(
                    .warning, "operation '\(name)': the reply's address is not modelled; replies are frames on the same connection",
                    at: address.location)
            }
            var replies: [String] = []
            for message in operationMessages(reply) {
                guard let resolved = translator.resolved(message) else { continue }
                replies.append(messageKey(resolved))
                add(messageKey(resolved), resolved, message.location, direction(of: action, reply: true))
            }
            exchanges.append(Exchange(operation: name, location: location, requests: requests, replies: replies))
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
            messageNodes[key] = message
            for direction in directions[key, default: ["server"]].sorted() {
                frames += messageFrames(message, named: key, direction: direction, at: location)
            }
        }
        return frames
    }

    /// The messages an operation (or a reply) lists, else every message of its channel.
    private mutating func operationMessages(_ operation: Located) -> [Located] {
        if let listed = operation["messages"]?.items, !listed.isEmpty { return listed }
        guard let channel = operation["channel"].flatMap({ translator.resolved($0) }) else { return [] }
        return channel["messages"]?.entries.map(\.value) ?? []
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
        for key in ["headers", "bindings", "traits"] {
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
        var frame = Frame(
            direction: direction, schema: schema, messageName: name, messageKey: name, description: description, examples: examples,
            location: location)
        guard let variants = (schema.keywords["oneOf"] ?? schema.keywords["anyOf"])?.items else { return [frame] }
        let shapes = variants.map { translator.merged($0) }
        let fixesItsTag = schema.properties.contains { schema.constValue(of: $0.name) != nil }
        if fixesItsTag || (SchemaTranslator.sharedTag(shapes) == nil && MergedSchema.sameFixedValue(in: shapes) != nil) {
            // One frame whose fields depend on a second property (or on nothing, and are joined).
            if !fixesItsTag { frame.schema = MergedSchema.joined(shapes, onto: schema) }
            frame.cases = zip(variants, shapes).map { variant, shape in
                let target = fixesItsTag ? nil : translator.resolved(variant)
                return Case(
                    schema: shape, name: shape.wire("name")?.text ?? target?.reference.flatMap(SchemaTranslator.componentName),
                    description: target?["description"]?.text)
            }
            return [frame]
        }
        return zip(variants, shapes).enumerated().map { index, pair in
            // A variant named by its component (`update`), its own description before the message's.
            let target = translator.resolved(pair.0)
            let variantName = target?.reference.flatMap(SchemaTranslator.componentName) ?? "\(name) \(index + 1)"
            return Frame(
                direction: direction, schema: pair.1, messageName: variantName, messageKey: name,
                description: target?["description"]?.text ?? description, examples: examples, location: pair.0.location)
        }
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
}
