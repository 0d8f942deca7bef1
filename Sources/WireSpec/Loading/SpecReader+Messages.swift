extension SpecReader {
    private static let messageKeys = ["description", "typeName", "violation", "examples", "tag", "cases", "open"] + objectKeys

    /// Reads `messages:` with its `client`, `server` and `both` blocks.
    func messages(_ node: YAMLNode, index: SpecIndex) -> [Message] {
        guard let map = mapping(node, in: "'messages'", allowedKeys: ["client", "server", "both"]) else { return [] }
        var declared: [MessageRef: (block: String, location: SourceLocation)] = [:]
        var result: [Message] = []
        for block in ["client", "server", "both"] {
            guard let blockNode = map[block],
                let entries = entries(blockNode, in: "\(block) messages", duplicate: { "duplicate message tag '\($0)' in direction \(block)" })
            else { continue }
            let directions: [Direction] = block == "both" ? [.client, .server] : [Direction(rawValue: block)!]
            for entry in entries {
                var clash = false
                for direction in directions {
                    let ref = MessageRef(direction: direction, tag: entry.key)
                    if let first = declared[ref] {
                        error(
                            "duplicate message tag '\(entry.key)' in direction \(direction.rawValue): already declared under '\(first.block)' at "
                                + "line \(first.location.line)",
                            at: entry.keyLocation)
                        clash = true
                    }
                    declared[ref] = declared[ref] ?? (block, entry.keyLocation)
                }
                guard !clash else { continue }
                // A message under `both` is read once (so its problems are reported once) and used for each direction.
                guard
                    let message = message(
                        tag: entry.key, direction: directions[0], both: block == "both", location: entry.keyLocation, node: entry.value, index: index)
                else { continue }
                for direction in directions {
                    var copy = message
                    copy.direction = direction
                    result.append(copy)
                }
            }
        }
        return result
    }

    private func message(tag: String, direction: Direction, both: Bool, location: SourceLocation, node: YAMLNode, index: SpecIndex) -> Message? {
        let context = "message '\(both ? "" : direction.rawValue + " ")\(tag)'"
        guard let map = mapping(node, in: context, allowedKeys: Self.messageKeys) else { return nil }
        var variants: UnionType?
        if map.has("tag") || map.has("cases") {
            // A union message: the fields belong to the case types, so the object keys do not apply.
            for key in Self.objectKeys where map.has(key) {
                error(
                    "\(context) is a union of cases ('tag' and 'cases'), so '\(key)' belongs on its case types, not on the message",
                    at: map.keyLocation(key) ?? location)
            }
            variants = union(map, context: context, index: index)
            if let variants, variants.tag == index.tagField {
                error(
                    "'tag' in \(context) is '\(variants.tag)', the frame's own tag field; name the field that selects the case",
                    at: map.keyLocation("tag") ?? location)
            }
        }
        let shape = variants == nil ? objectShape(map, owner: context, index: index, isMessage: true) : ObjectShape(fields: [])
        let typeName = map["typeName"].flatMap { identifier($0, "'typeName' in \(context)") }
        var examples: [SpecValue] = []
        if let node = map["examples"] {
            if case .sequence(let items) = node.kind {
                for item in items {
                    let example = value(item)
                    guard case .object = example else {
                        error("an example of \(context) must be a frame object, found \(example.kindDescription)", at: item.location)
                        continue
                    }
                    if example[index.tagField] != .string(tag) {
                        error("an example of \(context) must carry \"\(index.tagField)\": \"\(tag)\"", at: item.location)
                        continue
                    }
                    examples.append(example)
                }
            } else {
                error("expected a list of example frames for 'examples' in \(context), found \(node.kindDescription)", at: node.location)
            }
        }
        return Message(
            tag: tag, direction: direction, declaredForBoth: both, typeName: typeName,
            description: map["description"].flatMap { string($0, "'description' in \(context)") },
            shape: shape, variants: variants, violation: map["violation"].flatMap { answer($0, "'violation' in \(context)", index: index) },
            examples: examples, location: location
        )
    }

    /// Reads a message reference, `client message` or `server auth_result`, and checks that it exists.
    func messageRef(_ node: YAMLNode, _ what: String, messages: [Message]) -> MessageRef? {
        guard let text = string(node, what) else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count == 2, let direction = Direction(rawValue: words[0]) else {
            error("\(what) must name a direction and a message tag, like 'client message' or 'server ack'; found '\(text)'", at: node.location)
            return nil
        }
        let ref = MessageRef(direction: direction, tag: words[1])
        guard messages.contains(where: { $0.direction == direction && $0.tag == ref.tag }) else {
            let tags = messages.filter { $0.direction == direction }.map(\.tag)
            error(
                "\(what) names '\(text)', but there is no \(direction.rawValue) message '\(ref.tag)'\(Suggestions.hint(for: ref.tag, in: tags))",
                at: node.location)
            return nil
        }
        return ref
    }
}
