extension SpecReader {
    /// Reads `flows:`, the sequences drawn as diagrams in the docs.
    func flows(_ node: YAMLNode, messages: [Message]) -> [Flow] {
        (entries(node, in: "'flows'") ?? []).compactMap { entry in
            let context = "flow '\(entry.key)'"
            guard let map = mapping(entry.value, in: context, allowedKeys: ["title", "description", "participants", "steps"]),
                let stepsNode = require("steps", in: map, context: context)
            else { return nil }
            let participants = map["participants"].flatMap { stringList($0, "'participants' in \(context)") }?.map(\.0) ?? ["client", "server"]
            guard case .sequence(let items) = stepsNode.kind else {
                error("expected a list of steps for 'steps' in \(context), found \(stepsNode.kindDescription)", at: stepsNode.location)
                return nil
            }
            let steps = items.enumerated().compactMap { offset, item in
                step(item, context: "step \(offset + 1) of \(context)", participants: participants, messages: messages)
            }
            return Flow(
                name: entry.key, title: map["title"].flatMap { string($0, "'title' in \(context)") } ?? entry.key,
                description: map["description"].flatMap { string($0, "'description' in \(context)") },
                participants: participants, steps: steps, location: entry.keyLocation
            )
        }
    }

    private func step(_ node: YAMLNode, context: String, participants: [String], messages: [Message]) -> Flow.Step? {
        guard let map = mapping(node, in: context, allowedKeys: ["from", "to", "frame", "label", "note"]) else { return nil }
        func participant(_ key: String) -> String? {
            guard let node = map[key], let name = string(node, "'\(key)' in \(context)") else { return nil }
            guard participants.contains(name) else {
                error(
                    "'\(key)' in \(context) names '\(name)', which is not a participant "
                        + "(\(participants.joined(separator: ", ")))\(Suggestions.hint(for: name, in: participants))",
                    at: node.location)
                return nil
            }
            return name
        }
        let from = participant("from")
        let to = participant("to")
        let frame = map["frame"].flatMap { messageRef($0, "'frame' in \(context)", messages: messages) }
        let label = map["label"].flatMap { string($0, "'label' in \(context)") }
        let note = map["note"].flatMap { string($0, "'note' in \(context)") }
        if map.has("from") || map.has("to") {
            guard map.has("from") && map.has("to") else {
                error("\(context) needs both 'from' and 'to' for an arrow", at: map.node.location)
                return nil
            }
            guard from != nil, to != nil else { return nil }
        } else if note == nil {
            error("\(context) needs 'from' and 'to' (an arrow) or 'note'", at: map.node.location)
            return nil
        }
        return Flow.Step(from: from, to: to, frame: frame, label: label, note: note, location: map.node.location)
    }
}
