extension SpecReader {
    /// Reads `session:`, the rules across the frames of one connection.
    func session(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> SessionRules? {
        let keys = ["flags", "phases", "transitions", "guards", "correlations", "uniqueness", "runs"]
        guard let map = mapping(node, in: "'session'", allowedKeys: keys) else { return nil }
        var rules = SessionRules()
        if let node = map["flags"] {
            rules.flags = (entries(node, in: "session 'flags'") ?? []).compactMap { entry in
                string(entry.value, "the description of flag '\(entry.key)'").map {
                    SessionRules.Flag(name: entry.key, description: $0, location: entry.keyLocation)
                }
            }
        }
        let flagNames = rules.flags.map(\.name)
        if let node = map["phases"] {
            rules.phases = phases(node, index: index, messages: messages)
        }
        let phaseNames = rules.phases.map(\.name)
        if !rules.phases.isEmpty {
            let initial = rules.phases.filter(\.initial)
            if initial.isEmpty {
                error(
                    "session 'phases' has no initial phase; mark the phase connections start in with 'initial: true'",
                    at: map.keyLocation("phases") ?? node.location)
            }
            for extra in initial.dropFirst() {
                error(
                    "phase '\(extra.name)' is initial, but phase '\(initial[0].name)' already is; exactly one phase starts a connection",
                    at: extra.location)
            }
        }
        if let node = map["transitions"] {
            rules.transitions = transitions(node, index: index, messages: messages, phases: phaseNames, flags: flagNames)
        }
        if let node = map["guards"] {
            rules.guards = (entries(node, in: "session 'guards'") ?? []).compactMap { entry in
                let context = "guard '\(entry.key)'"
                guard let map = mapping(entry.value, in: context, allowedKeys: ["description", "frame", "requires", "otherwise"]),
                    let (frame, _) = requiredMessage("frame", in: map, context: context, messages: messages),
                    let requires = require("requires", in: map, context: context).flatMap({
                        reference($0, "'requires' in \(context)", kind: "flag", in: flagNames)
                    })
                else { return nil }
                return SessionRules.Guard(
                    name: entry.key, frame: frame, requires: requires,
                    otherwise: map["otherwise"].flatMap { answer($0, "'otherwise' in \(context)", index: index) },
                    description: map["description"].flatMap { string($0, "'description' in \(context)") }, location: entry.keyLocation
                )
            }
        }
        if let node = map["correlations"] {
            rules.correlations = correlations(node, index: index, messages: messages)
        }
        if let node = map["uniqueness"] {
            rules.uniqueness = uniqueness(node, index: index, messages: messages)
        }
        if let node = map["runs"] {
            rules.runs = runs(node, index: index, messages: messages)
        }
        return rules
    }

    private func phases(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> [SessionRules.Phase] {
        (entries(node, in: "session 'phases'") ?? []).compactMap { entry in
            let context = "phase '\(entry.key)'"
            guard
                let map = mapping(entry.value, in: context, allowedKeys: ["description", "initial", "client", "server", "otherwise", "otherwiseFor"])
            else {
                return nil
            }
            func tags(_ direction: Direction) -> [String] {
                guard let node = map[direction.rawValue] else { return [] }
                let known = messages.filter { $0.direction == direction }.map(\.tag)
                return (stringList(node, "'\(direction.rawValue)' in \(context)") ?? []).compactMap { tag, location in
                    guard known.contains(tag) else {
                        error(
                            "'\(direction.rawValue)' in \(context) lists '\(tag)', but there is no \(direction.rawValue) message "
                                + "'\(tag)'\(Suggestions.hint(for: tag, in: known))",
                            at: location)
                        return nil
                    }
                    return tag
                }
            }
            let allowedClient = tags(.client)
            return SessionRules.Phase(
                name: entry.key, description: map["description"].flatMap { string($0, "'description' in \(context)") },
                initial: map["initial"].flatMap { bool($0, "'initial' in \(context)") } ?? false,
                allowedClient: allowedClient, allowedServer: tags(.server),
                otherwise: map["otherwise"].flatMap { answer($0, "'otherwise' in \(context)", index: index) },
                otherwiseFor: map["otherwiseFor"].map {
                    frameAnswers($0, context: context, allowed: allowedClient, index: index, messages: messages)
                } ?? [],
                location: entry.keyLocation
            )
        }
    }

    /// Reads a phase's `otherwiseFor`: client tags the phase does not allow, each with its own answer.
    private func frameAnswers(
        _ node: YAMLNode, context: String, allowed: [String], index: SpecIndex, messages: [Message]
    ) -> [SessionRules.Phase.FrameAnswer] {
        let known = messages.filter { $0.direction == .client }.map(\.tag)
        return (entries(node, in: "'otherwiseFor' in \(context)") ?? []).compactMap { entry in
            guard known.contains(entry.key) else {
                error(
                    "'otherwiseFor' in \(context) names '\(entry.key)', but there is no client message '\(entry.key)'"
                        + Suggestions.hint(for: entry.key, in: known),
                    at: entry.keyLocation)
                return nil
            }
            guard !allowed.contains(entry.key) else {
                error(
                    "'otherwiseFor' in \(context) names '\(entry.key)', which the phase allows in 'client'; "
                        + "only a frame the phase refuses can have an answer of its own",
                    at: entry.keyLocation)
                return nil
            }
            return answer(entry.value, "'otherwiseFor' '\(entry.key)' in \(context)", index: index).map {
                SessionRules.Phase.FrameAnswer(tag: entry.key, answer: $0, location: entry.keyLocation)
            }
        }
    }

    private func transitions(_ node: YAMLNode, index: SpecIndex, messages: [Message], phases: [String], flags: [String]) -> [SessionRules.Transition]
    {
        guard case .sequence(let items) = node.kind else {
            error("expected a list of transitions for session 'transitions', found \(node.kindDescription)", at: node.location)
            return []
        }
        return items.enumerated().compactMap { offset, item in
            let context = "transition \(offset + 1)"
            guard let map = mapping(item, in: context, allowedKeys: ["description", "on", "from", "when", "to", "set", "closeCode"]),
                let (on, message) = requiredMessage("on", in: map, context: context, messages: messages)
            else { return nil }
            let to = require("to", in: map, context: context).flatMap { reference($0, "'to' in \(context)", kind: "phase", in: phases) }
            let from = map["from"].map { phaseList($0, "'from' in \(context)", phases: phases) } ?? []
            let check = fieldChecker(of: message, context: context)
            let when = map["when"].map { conditions($0, in: context, check: check) } ?? []
            var assignments: [SessionRules.FlagAssignment] = []
            if let node = map["set"] {
                for entry in entries(node, in: "'set' in \(context)") ?? [] {
                    guard
                        reference(
                            YAMLNode(kind: .scalar(entry.key, plain: false), location: entry.keyLocation), "'set' in \(context)", kind: "flag",
                            in: flags) != nil,
                        let field = string(entry.value, "the field for flag '\(entry.key)' in \(context)"),
                        check(field, entry.value.location)
                    else { continue }
                    assignments.append(SessionRules.FlagAssignment(flag: entry.key, field: field))
                }
            }
            guard let to, let when else { return nil }
            return SessionRules.Transition(
                on: on, from: from, when: when, to: to, set: assignments,
                closeCode: map["closeCode"].flatMap { closeCodeValue($0, "'closeCode' in \(context)") },
                description: map["description"].flatMap { string($0, "'description' in \(context)") }, location: map.node.location
            )
        }
    }

    private func correlations(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> [SessionRules.Correlation] {
        (entries(node, in: "session 'correlations'") ?? []).compactMap { entry in
            let context = "correlation '\(entry.key)'"
            guard
                let map = mapping(
                    entry.value, in: context, allowedKeys: ["description", "frame", "field", "answers", "answersField", "scope", "otherwise"]),
                let (frame, frameMessage) = requiredMessage("frame", in: map, context: context, messages: messages),
                let (answers, answersMessage) = requiredMessage("answers", in: map, context: context, messages: messages),
                let fieldNode = require("field", in: map, context: context), let field = string(fieldNode, "'field' in \(context)")
            else { return nil }
            let answersFieldNode = map["answersField"] ?? fieldNode
            guard let answersField = string(answersFieldNode, "'answersField' in \(context)"),
                fieldChecker(of: frameMessage, context: context)(field, fieldNode.location),
                fieldChecker(of: answersMessage, context: context)(answersField, answersFieldNode.location)
            else { return nil }
            let scope =
                map["scope"].flatMap { oneOf($0, "'scope' in \(context)", SessionRules.Scope.self, allowed: [.connection, .peer]) } ?? .connection
            return SessionRules.Correlation(
                name: entry.key, frame: frame, field: field, answers: answers, answersField: answersField,
                otherwise: map["otherwise"].flatMap { answer($0, "'otherwise' in \(context)", index: index) }, scope: scope,
                description: map["description"].flatMap { string($0, "'description' in \(context)") }, location: entry.keyLocation
            )
        }
    }

    private func uniqueness(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> [SessionRules.Uniqueness] {
        (entries(node, in: "session 'uniqueness'") ?? []).compactMap { entry in
            let context = "uniqueness rule '\(entry.key)'"
            let keys = ["description", "frame", "key", "sameFields", "compare", "grows", "final", "otherwise"]
            guard let map = mapping(entry.value, in: context, allowedKeys: keys),
                let (frame, message) = requiredMessage("frame", in: map, context: context, messages: messages),
                let keyNode = require("key", in: map, context: context), let key = string(keyNode, "'key' in \(context)")
            else { return nil }
            let check = fieldChecker(of: message, context: context)
            let keyValid = check(key, keyNode.location)
            let same = (map["sameFields"].flatMap { stringList($0, "'sameFields' in \(context)") } ?? []).filter { check($0.0, $0.1) }.map(\.0)
            let grows = (map["grows"].flatMap { stringList($0, "'grows' in \(context)") } ?? []).filter { name, location in
                guard check(name, location) else { return false }
                if same.contains(name) {
                    error(
                        "'grows' in \(context) names '\(name)', which 'sameFields' also names; a field either stays the same or grows", at: location)
                    return false
                }
                return true
            }.map(\.0)
            let comparison =
                map["compare"].flatMap {
                    oneOf($0, "'compare' in \(context)", SessionRules.Comparison.self, allowed: [.exact, .normalized])
                } ?? .exact
            if let node = map["compare"], map["sameFields"] == nil {
                error("'compare' in \(context) says how 'sameFields' are compared, but the rule has no 'sameFields'", at: node.location)
            }
            let final = map["final"].map { conditions($0, in: context, key: "final", check: check) } ?? []
            if map["sameFields"] == nil && map["final"] == nil && map["grows"] == nil {
                error(
                    "\(context) needs 'sameFields' (a repeated key must repeat these fields), 'grows' (a repeat extends these fields) or 'final' "
                        + "(no frame may repeat the key after a final one)",
                    at: entry.keyLocation)
                return nil
            }
            guard keyValid, let final else { return nil }
            return SessionRules.Uniqueness(
                name: entry.key, frame: frame, key: key, sameFields: same, comparison: comparison, grows: grows, final: final,
                otherwise: map["otherwise"].flatMap { answer($0, "'otherwise' in \(context)", index: index) },
                description: map["description"].flatMap { string($0, "'description' in \(context)") }, location: entry.keyLocation
            )
        }
    }

    private func runs(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> [SessionRules.Run] {
        (entries(node, in: "session 'runs'") ?? []).compactMap { entry in
            let context = "run '\(entry.key)'"
            let keys = ["description", "after", "when", "count", "frame", "each", "otherwise"]
            guard let map = mapping(entry.value, in: context, allowedKeys: keys),
                let (after, afterMessage) = requiredMessage("after", in: map, context: context, messages: messages),
                let (frame, frameMessage) = requiredMessage("frame", in: map, context: context, messages: messages),
                let countNode = require("count", in: map, context: context), let count = string(countNode, "'count' in \(context)")
            else { return nil }
            let checkAfter = fieldChecker(of: afterMessage, context: context)
            let valid = checkAfter(count, countNode.location)
            let when = map["when"].map { conditions($0, in: context, check: checkAfter) } ?? []
            let each = map["each"].map { conditions($0, in: context, key: "each", check: fieldChecker(of: frameMessage, context: context)) } ?? []
            guard valid, let when, let each else { return nil }
            return SessionRules.Run(
                name: entry.key, after: after, when: when, count: count, frame: frame, each: each,
                otherwise: map["otherwise"].flatMap { answer($0, "'otherwise' in \(context)", index: index) },
                description: map["description"].flatMap { string($0, "'description' in \(context)") }, location: entry.keyLocation
            )
        }
    }

    /// The message a rule names under a required `key` (`client message`), and its reference;
    /// `nil` after reporting a missing key or a message the spec does not have.
    private func requiredMessage(_ key: String, in map: Mapping, context: String, messages: [Message]) -> (MessageRef, Message)? {
        guard let ref = require(key, in: map, context: context).flatMap({ messageRef($0, "'\(key)' in \(context)", messages: messages) }),
            let message = messages.first(where: { $0.direction == ref.direction && $0.tag == ref.tag })
        else { return nil }
        return (ref, message)
    }

    /// A check that a field name belongs to a message, reporting it otherwise.
    private func fieldChecker(of message: Message, context: String) -> (String, SourceLocation) -> Bool {
        let names = message.allFields(types: readTypes).map(\.name)
        let label = "\(message.direction.rawValue) \(message.tag)"
        return { [self] name, location in
            guard names.contains(name) else {
                error(
                    "\(context) names field '\(name)', which message '\(label)' does not declare\(Suggestions.hint(for: name, in: names))",
                    at: location)
                return false
            }
            return true
        }
    }

    /// A phase name or a list of them, each declared under `phases`.
    private func phaseList(_ node: YAMLNode, _ what: String, phases: [String]) -> [String] {
        (stringList(node, what) ?? []).compactMap { name, location in
            reference(YAMLNode(kind: .scalar(name, plain: false), location: location), what, kind: "phase", in: phases)
        }
    }

    /// A reference to a name declared elsewhere in the spec (a phase or a flag).
    private func reference(_ node: YAMLNode, _ what: String, kind: String, in names: [String]) -> String? {
        guard let name = string(node, what) else { return nil }
        guard names.contains(name) else {
            error("\(what) names \(kind) '\(name)', which is not declared\(Suggestions.hint(for: name, in: names))", at: node.location)
            return nil
        }
        return name
    }
}
