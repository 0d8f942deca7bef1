import WireRuntime

extension ProtocolSpec {
    /// The spec's session rules as the runtime checks them: what the generated `sessionRules`
    /// table holds and what `wire validate` runs, made in one place.
    public var sessionRuleSet: SessionRuleSet {
        let session = self.session ?? SessionRules()
        func answer(_ answer: Answer?) -> ViolationAnswer? { answer.map(resolved) }
        return SessionRuleSet(
            initialPhase: session.initialPhase?.name,
            phases: session.phases.map { phase in
                .init(
                    name: phase.name, allowedClient: phase.allowedClient, allowedServer: phase.allowedServer, otherwise: answer(phase.otherwise),
                    otherwiseFor: Dictionary(phase.otherwiseFor.map { ($0.tag, resolved($0.answer)) }, uniquingKeysWith: { first, _ in first }))
            },
            transitions: session.transitions.map {
                .init(
                    on: $0.on, from: $0.from, when: $0.when.map(\.runtimeCondition), to: $0.to,
                    setFlags: Dictionary($0.set.map { ($0.flag, $0.field) }, uniquingKeysWith: { first, _ in first }), closeCode: $0.closeCode)
            },
            flags: session.flags.map(\.name),
            guards: session.guards.map { .init(name: $0.name, frame: $0.frame, requiredFlag: $0.requires, otherwise: answer($0.otherwise)) },
            correlations: session.correlations.map {
                .init(
                    name: $0.name, frame: $0.frame, field: $0.field, answers: $0.answers, answersField: $0.answersField,
                    otherwise: answer($0.otherwise), scope: $0.scope)
            },
            uniqueness: session.uniqueness.map { rule in
                .init(
                    name: rule.name, frame: rule.frame, key: rule.key, sameFields: rule.sameFields,
                    comparison: rule.comparison, grows: rule.grows, final: rule.final.map(\.runtimeCondition),
                    otherwise: answer(rule.otherwise), shapes: rule.comparison == .normalized ? shapes(of: rule.sameFields, in: rule.frame) : [:])
            },
            runs: session.runs.map {
                .init(
                    name: $0.name, after: $0.after, when: $0.when.map(\.runtimeCondition), countField: $0.count, frame: $0.frame,
                    each: $0.each.map(\.runtimeCondition), otherwise: answer($0.otherwise))
            }
        )
    }

    /// The spec's rate limits as the runtime counts them, with error codes as text.
    public var rateLimitRules: [RateLimitRule<String>] {
        rateLimits.map { limit in
            let counts: RateLimitRule<String>.Counted =
                switch limit.counts {
                case .frames(let refs): .frames(refs)
                case .violations(let codes): .violations(codes)
                }
            return RateLimitRule(
                name: limit.name, counts: counts, limit: limit.limit, window: limit.windowMilliseconds.map { .milliseconds($0) },
                scope: limit.scope, answer: limit.answer.map(resolved), clientAction: limit.clientAction)
        }
    }

    // MARK: Where base64 strings are

    /// The shapes of a message's fields that hold base64 strings somewhere, by field name.
    private func shapes(of fields: [String], in ref: MessageRef) -> [String: ValueShape] {
        guard let message = message(ref) else { return [:] }
        let caseShapes = message.variants?.cases.compactMap { type(named: $0.type) }.compactMap { named -> ObjectShape? in
            if case .object(let object) = named.kind { return object } else { return nil }
        }
        var result: [String: ValueShape] = [:]
        for name in fields {
            let field = message.shape.fields.first { $0.name == name } ?? caseShapes?.lazy.compactMap { $0.fields.first { $0.name == name } }.first
            if let field, let shape = shape(of: field.type, constraints: field.constraints, visiting: []) { result[name] = shape }
        }
        return result
    }

    /// Where a value of `type` holds base64 strings; `nil` when it holds none. A type met again
    /// inside itself is not followed (its strings compare as they are).
    private func shape(of type: TypeRef, constraints: Constraints, visiting: Set<String>) -> ValueShape? {
        switch type {
        case .string: return constraints.format == .base64 ? .base64 : nil
        case .integer, .number, .boolean, .json: return nil
        case .array(let element): return shape(of: element, constraints: Constraints(), visiting: visiting).map(ValueShape.array)
        case .map(_, let element): return shape(of: element, constraints: Constraints(), visiting: visiting).map(ValueShape.map)
        case .named(let name):
            guard !visiting.contains(name), let named = self.type(named: name) else { return nil }
            let visiting = visiting.union([name])
            switch named.kind {
            case .object(let object):
                let members = memberShapes(object, visiting: visiting)
                return members.isEmpty ? nil : .object(members)
            case .union(let union):
                var cases: [JSONValue: [String: ValueShape]] = [:]
                for unionCase in union.cases {
                    guard case .object(let object)? = self.type(named: unionCase.type)?.kind else { continue }
                    let members = memberShapes(object, visiting: visiting.union([unionCase.type]))
                    if !members.isEmpty { cases[JSONValue(spec: unionCase.tagValue)] = members }
                }
                return cases.isEmpty ? nil : .union(tag: union.tag, cases: cases)
            case .alias(let alias):
                return shape(of: alias.type, constraints: alias.constraints, visiting: visiting)
            case .enumeration, .oneOf:
                return nil
            }
        }
    }

    private func memberShapes(_ object: ObjectShape, visiting: Set<String>) -> [String: ValueShape] {
        var members: [String: ValueShape] = [:]
        for field in object.fields {
            if let shape = shape(of: field.type, constraints: field.constraints, visiting: visiting) { members[field.name] = shape }
        }
        return members
    }
}

extension Condition {
    /// The condition as the runtime checks it.
    public var runtimeCondition: SessionRuleSet.Condition {
        SessionRuleSet.Condition(field, values.map(JSONValue.init(spec:)))
    }
}
