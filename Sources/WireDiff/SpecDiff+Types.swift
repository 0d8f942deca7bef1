import WireSpec

extension ChangeCollector {
    // MARK: Rules

    /// Conditional rules and byte budgets, matched by their content (conditionals) or their name (budgets).
    mutating func compareRules(_ before: [Rule], _ after: [Rule], group: String, directions: Set<Direction>, at location: SourceLocation) {
        func conditionals(_ rules: [Rule]) -> [ConditionalRule] {
            rules.compactMap { if case .conditional(let rule) = $0 { return rule } else { return nil } }
        }
        func budgets(_ rules: [Rule]) -> [ByteBudget] {
            rules.compactMap { if case .byteBudget(let budget) = $0 { return budget } else { return nil } }
        }
        func same(_ lhs: ConditionalRule, _ rhs: ConditionalRule) -> Bool {
            lhs.when == rhs.when && lhs.require == rhs.require && lhs.forbid == rhs.forbid && lhs.then == rhs.then
        }
        let oldRules = conditionals(before)
        let newRules = conditionals(after)
        for rule in newRules where !oldRules.contains(where: { same($0, rule) }) {
            record(
                group, "rule when \(Self.conditionText(rule.when))", .added, "added", new: ruleText(rule),
                effect: .tightens, directions: directions, at: rule.location)
        }
        for rule in oldRules where !newRules.contains(where: { same($0, rule) }) {
            record(
                group, "rule when \(Self.conditionText(rule.when))", .removed, "removed", old: ruleText(rule),
                effect: .loosens, directions: directions, at: location)
        }
        let oldBudgets = budgets(before)
        let newBudgets = budgets(after)
        for budget in newBudgets {
            let subject = "budget '\(budget.name)'"
            guard let previous = oldBudgets.first(where: { $0.name == budget.name }) else {
                record(group, subject, .added, "added", new: "\(budget.max) bytes", effect: .tightens, directions: directions, at: budget.location)
                continue
            }
            if previous.max != budget.max || previous.paths != budget.paths {
                let effect: Effect = previous.paths != budget.paths ? .replaces : budget.max < previous.max ? .tightens : .loosens
                record(
                    group, subject, .changed,
                    previous.paths != budget.paths ? "summed paths changed" : budget.max < previous.max ? "tightened" : "loosened",
                    old: "\(previous.paths.joined(separator: " + ")) <= \(previous.max)",
                    new: "\(budget.paths.joined(separator: " + ")) <= \(budget.max)",
                    effect: effect, directions: directions, at: budget.location)
            }
        }
        for budget in oldBudgets where !newBudgets.contains(where: { $0.name == budget.name }) {
            record(group, "budget '\(budget.name)'", .removed, "removed", effect: .loosens, directions: directions, at: location)
        }
    }

    static func conditionText(_ conditions: [Condition]) -> String {
        // An empty string is written `""`, so that it shows.
        conditions.map { condition in
            "\(condition.field) is " + condition.values.map { $0.plainText.isEmpty ? #""""# : $0.plainText }.joined(separator: " or ")
        }.joined(separator: " and ")
    }

    private func ruleText(_ rule: ConditionalRule) -> String {
        var parts: [String] = []
        if !rule.require.isEmpty { parts.append("require " + rule.require.joined(separator: ", ")) }
        if !rule.forbid.isEmpty { parts.append("forbid " + rule.forbid.joined(separator: ", ")) }
        if !rule.then.isEmpty { parts.append("then " + Self.conditionText(rule.then)) }
        return parts.joined(separator: "; ")
    }

    // MARK: Unions

    mutating func compareUnion(_ before: UnionType, _ after: UnionType, group: String, directions: Set<Direction>, at location: SourceLocation) {
        if before.tag != after.tag {
            record(
                group, "the case tag", .changed, "changed", old: before.tag, new: after.tag, effect: .replaces, directions: directions, at: location)
            return
        }
        for unionCase in after.cases {
            let subject = "case '\(unionCase.tagValue.plainText)'"
            guard let previous = before.cases.first(where: { $0.tagValue == unionCase.tagValue }) else {
                record(
                    group, subject, .added, before.open ? "added (old receivers keep it as unknown)" : "added",
                    new: unionCase.type, effect: before.open ? .none : .loosens, directions: directions, at: unionCase.location)
                continue
            }
            if previous.type != unionCase.type {
                record(
                    group, subject, .changed, "case type changed", old: previous.type, new: unionCase.type, effect: .replaces,
                    directions: directions, at: unionCase.location)
            }
        }
        for unionCase in before.cases where !after.cases.contains(where: { $0.tagValue == unionCase.tagValue }) {
            record(
                group, "case '\(unionCase.tagValue.plainText)'", .removed, "removed", old: unionCase.type,
                effect: after.open ? .none : .tightens, directions: directions, at: location)
        }
        if before.open != after.open {
            record(
                group, "unknown cases", .changed, after.open ? "now kept (open)" : "now rejected (closed)",
                effect: after.open ? .loosens : .tightens, directions: directions, at: location)
        }
    }

    // MARK: Named types

    mutating func compareTypes() {
        for type in new.types where !type.isErrorCodeTable {
            let group = "type \(type.name)"
            let directions = typeDirections[type.name] ?? []
            guard let previous = old.types.first(where: { $0.name == type.name }) else {
                record(group, "the type", .added, "added", effect: .none, directions: [], at: type.location)
                continue
            }
            recordDescription(group, "the type", old: previous.description, new: type.description, at: type.location)
            switch (previous.kind, type.kind) {
            case (.object(let before), .object(let after)):
                compareShape(before, after, group: group, directions: directions, at: type.location)
            case (.enumeration(let before), .enumeration(let after)):
                compareEnum(before, after, group: group, directions: directions, at: type.location)
            case (.union(let before), .union(let after)):
                compareUnion(before, after, group: group, directions: directions, at: type.location)
            case (.oneOf(let before), .oneOf(let after)):
                for variant in after.variants where !before.variants.contains(where: { $0.name == variant.name }) {
                    record(group, "variant '\(variant.name)'", .added, "added", effect: .loosens, directions: directions, at: variant.location)
                }
                for variant in before.variants where !after.variants.contains(where: { $0.name == variant.name }) {
                    record(group, "variant '\(variant.name)'", .removed, "removed", effect: .tightens, directions: directions, at: type.location)
                }
            case (.alias(let before), .alias(let after)):
                if before.type != after.type {
                    record(
                        group, "the type", .changed, "aliased type changed", old: before.type.description, new: after.type.description,
                        effect: .replaces, directions: directions, at: type.location)
                }
                compareConstraints(
                    before.constraints, after.constraints, group: group, subject: "the value", directions: directions, at: type.location)
            default:
                record(group, "the type", .changed, "kind changed", effect: .replaces, directions: directions, at: type.location)
            }
        }
        for type in old.types where !type.isErrorCodeTable && !new.types.contains(where: { $0.name == type.name }) {
            record("type \(type.name)", "the type", .removed, "removed", effect: .none, directions: [], at: type.location)
        }
    }

    private mutating func compareEnum(_ before: EnumType, _ after: EnumType, group: String, directions: Set<Direction>, at location: SourceLocation) {
        for value in after.values where !before.values.contains(where: { $0.value == value.value }) {
            record(
                group, "value '\(value.value)'", .added, before.open ? "added (old receivers keep it as unknown)" : "added",
                effect: before.open ? .none : .loosens, directions: directions, at: location)
        }
        for value in before.values where !after.values.contains(where: { $0.value == value.value }) {
            record(
                group, "value '\(value.value)'", .removed, after.open ? "removed (still kept as unknown)" : "removed",
                effect: after.open ? .none : .tightens, directions: directions, at: location)
        }
        if before.open != after.open {
            record(
                group, "unknown values", .changed, after.open ? "now kept (open)" : "now rejected (closed)",
                effect: after.open ? .loosens : .tightens, directions: directions, at: location)
        }
    }
}

/// Which directions' frames use each named type.
enum TypeUsage {
    static func directions(in spec: ProtocolSpec) -> [String: Set<Direction>] {
        var result: [String: Set<Direction>] = [:]
        func visit(_ type: TypeRef, _ direction: Direction, seen: inout Set<String>) {
            switch type {
            case .array(let element): visit(element, direction, seen: &seen)
            case .map(let key, let value):
                visit(key, direction, seen: &seen)
                visit(value, direction, seen: &seen)
            case .named(let name):
                result[name, default: []].insert(direction)
                guard seen.insert(name).inserted, let named = spec.type(named: name) else { return }
                switch named.kind {
                case .object(let shape): for field in shape.fields { visit(field.type, direction, seen: &seen) }
                case .union(let union): for unionCase in union.cases { visit(.named(unionCase.type), direction, seen: &seen) }
                case .oneOf(let oneOf): for variant in oneOf.variants { visit(variant.type, direction, seen: &seen) }
                case .alias(let alias): visit(alias.type, direction, seen: &seen)
                case .enumeration: break
                }
            default: break
            }
        }
        for message in spec.messages {
            var seen: Set<String> = []
            for field in message.shape.fields { visit(field.type, message.direction, seen: &seen) }
            for unionCase in message.variants?.cases ?? [] { visit(.named(unionCase.type), message.direction, seen: &seen) }
        }
        for endpoint in spec.endpoints {
            var seen: Set<String> = []
            if case .json(let type)? = endpoint.request { visit(type, .client, seen: &seen) }
            if case .json(let type)? = endpoint.response.body { visit(type, .server, seen: &seen) }
            if let body = endpoint.errorBody { visit(body, .server, seen: &seen) }
            for parameter in endpoint.parameters + endpoint.query { visit(parameter.type, .client, seen: &seen) }
        }
        return result
    }
}

/// Whether two type references, each in its own spec, carry the same JSON: the same built-in type,
/// or named types of the same shape (a rename).
enum WireForm {
    /// `comparingConstraints: false` leaves the outermost named types' constraints to the caller.
    static func same(
        _ lhs: TypeRef, in left: ProtocolSpec, _ rhs: TypeRef, in right: ProtocolSpec, comparingConstraints: Bool = true, depth: Int = 0
    ) -> Bool {
        guard depth < 8 else { return false }
        let (a, aConstraints) = left.resolve(lhs)
        let (b, bConstraints) = right.resolve(rhs)
        guard !comparingConstraints || aConstraints == bConstraints else { return false }
        switch (a, b) {
        case (.string, .string), (.integer, .integer), (.number, .number), (.boolean, .boolean), (.json, .json): return true
        case (.array(let x), .array(let y)): return same(x, in: left, y, in: right, depth: depth + 1)
        case (.map(let xKey, let x), .map(let yKey, let y)):
            return same(xKey, in: left, yKey, in: right, depth: depth + 1) && same(x, in: left, y, in: right, depth: depth + 1)
        case (.enumeration(_, let x), .enumeration(_, let y)): return x.open == y.open && x.values.map(\.value) == y.values.map(\.value)
        case (.object(_, let x), .object(_, let y)):
            return x.unknownFields == y.unknownFields && x.fields.count == y.fields.count
                && zip(x.fields, y.fields).allSatisfy { f, g in
                    f.name == g.name && f.required == g.required && f.nullable == g.nullable && f.constraints == g.constraints
                        && same(f.type, in: left, g.type, in: right, depth: depth + 1)
                }
        default: return false
        }
    }
}
