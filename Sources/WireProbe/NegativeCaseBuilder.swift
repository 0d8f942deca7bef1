import Foundation
import WireRuntime
import WireSpec
import WireValidator

/// Builds, for one client message, a frame per rule the spec states about it that breaks exactly
/// that rule, starting from the message's example. The spec's own engine judges every frame
/// built: a frame that breaks a second rule as well is not a case (the rule becomes a gap).
struct NegativeCaseBuilder {
    let spec: ProtocolSpec
    let validator: FrameValidator
    var synthesizer: ValueSynthesizer
    /// The server message that carries an error code, and its field naming the client message.
    let errorCorrelation: (answersTag: String, answersField: String)?

    private(set) var cases: [ProbeCase] = []
    private(set) var gaps: [ProbeGap] = []

    init(spec: ProtocolSpec, validator: FrameValidator, random: ProbeRandom) {
        self.spec = spec
        self.validator = validator
        synthesizer = ValueSynthesizer(spec: spec, random: random, boundaries: false)
        let errorTags = Set(
            spec.messages(.server).filter { $0.shape.fields.contains { $0.type == .named(ProtocolSpec.errorCodeTypeName) } }.map(\.tag))
        errorCorrelation = spec.session?.correlations.first { errorTags.contains($0.frame.tag) && $0.frame.direction == .server }
            .map { ($0.answers.tag, $0.answersField) }
    }

    /// The message's cases in `phase`.
    mutating func build(_ message: Message, base: JSONValue, phase: String) {
        walk(message.shape, at: [], in: base, message: message, phase: phase)
        for rule in message.shape.rules { ruleCases(rule, message: message, base: base, phase: phase) }
    }

    // MARK: Objects and fields

    private mutating func walk(_ shape: ObjectShape, at path: [JSONStep], in base: JSONValue, message: Message, phase: String) {
        let name = ([message.tag] + (path.isEmpty ? [] : [path.dotted])).joined(separator: ".")
        for rejected in shape.rejectFields {
            add(
                "\(name).\(rejected) rejected", "'\(rejected)' must not appear", message.location, phase, message,
                base.setting(path + [.key(rejected)], to: .string("probe")), rules: ["rejectedField"])
        }
        if shape.unknownFields == .reject {
            add(
                "\(name) unknown field", "no field the spec does not declare", message.location, phase, message,
                base.setting(path + [.key("probeUnknownField")], to: .string("probe")), rules: ["unknownField"])
        }
        for field in shape.fields { fieldCases(field, at: path + [.key(field.name)], in: base, message: message, phase: phase) }
        if !path.isEmpty {
            for rule in shape.rules { ruleCases(rule, message: message, base: base, phase: phase, at: path) }
        }
    }

    private mutating func fieldCases(_ field: Field, at path: [JSONStep], in base: JSONValue, message: Message, phase: String) {
        let name = "\(message.tag).\(path.dotted)"
        let type = ResolvedType(field.type, constraints: field.constraints, in: spec)
        let place = field.location
        if field.required {
            add("\(name) required", "'\(path.dotted)' is required", place, phase, message, base.setting(path, to: nil), rules: ["required"])
        }
        if !field.nullable {
            add(
                "\(name) null", "'\(path.dotted)' must not be null", place, phase, message, base.setting(path, to: .null),
                rules: ["type", "required"])
        }
        if let wrong = type.wrongKindValue {
            add("\(name) type", "'\(path.dotted)' is \(field.type)", place, phase, message, base.setting(path, to: wrong), rules: ["type"])
        }
        for (rule, words, value) in constraintBreaks(type) {
            add("\(name) \(rule)", "'\(path.dotted)': \(words)", place, phase, message, base.setting(path, to: value), rules: [rule])
        }
        // Into nested objects, union cases and the items of arrays of them.
        let current = base.value(at: path)
        switch type.shape {
        case .object(let object):
            if case .object? = current { walk(object, at: path, in: base, message: message, phase: phase) }
        case .union(let union):
            unionCases(union, at: path, current: current, in: base, message: message, phase: phase)
        case .array(let element):
            let item = ResolvedType(element, in: spec)
            switch item.shape {
            case .object(let object):
                guard let made = firstItem(current, item) else { return }
                let withItem = base.setting(path, to: .array([made]))
                walk(object, at: path + [.index(0)], in: withItem, message: message, phase: phase)
            case .union(let union):
                for unionCase in union.cases {
                    guard case .object(let shape)? = spec.type(named: unionCase.type)?.kind, var members = synthesizer.object(shape, depth: 1) else {
                        continue
                    }
                    members[union.tag] = JSONValue(spec: unionCase.tagValue)
                    let withItem = base.setting(path, to: .array([.object(members)]))
                    walk(shape, at: path + [.index(0)], in: withItem, message: message, phase: phase)
                }
            default: break
            }
        case .map(let key, let value):
            mapCases(key: key, value: value, at: path, current: current, in: base, message: message, phase: phase, place: place)
        default: break
        }
    }

    /// A map's keys and values: a key that breaks one rule of a typed key's type, a value that
    /// breaks one of the value type's, and the fields of an object value. Each frame holds one
    /// entry beside the map's others, so nothing else breaks.
    private mutating func mapCases(
        key: TypeRef, value: TypeRef, at path: [JSONStep], current: JSONValue?, in base: JSONValue, message: Message, phase: String,
        place: SourceLocation
    ) {
        let name = "\(message.tag).\(path.dotted)"
        let valueType = ResolvedType(value, in: spec)
        // An entry to start from: the example's first, or one made.
        let entry: (String, JSONValue)
        if case .object(let members)? = current, let first = members.min(by: { $0.key < $1.key }) {
            entry = (first.key, first.value)
        } else {
            guard let madeKey = synthesizer.mapKey(key, index: 0), let madeValue = synthesizer.value(valueType, depth: 1) else { return }
            entry = (madeKey, madeValue)
        }
        let withEntry = base.setting(path, to: .object([entry.0: entry.1]))
        if key != .string {
            let keyType = ResolvedType(key, in: spec)
            for (rule, words, broken) in constraintBreaks(keyType) {
                guard case .string(let brokenKey) = broken else { continue }
                add(
                    "\(name) key \(rule)", "each key of '\(path.dotted)': \(words)", place, phase, message,
                    base.setting(path, to: .object([brokenKey: entry.1])), rules: [rule])
            }
        }
        let valuePath = path + [.key(entry.0)]
        if let wrong = valueType.wrongKindValue {
            add(
                "\(name) value type", "each value of '\(path.dotted)' is \(value)", place, phase, message,
                withEntry.setting(valuePath, to: wrong), rules: ["type"])
        }
        for (rule, words, broken) in constraintBreaks(valueType) {
            add(
                "\(name) value \(rule)", "each value of '\(path.dotted)': \(words)", place, phase, message,
                withEntry.setting(valuePath, to: broken), rules: [rule])
        }
        if case .object(let object) = valueType.shape, case .object = entry.1 {
            walk(object, at: valuePath, in: withEntry, message: message, phase: phase)
        }
    }

    private mutating func unionCases(
        _ union: UnionType, at path: [JSONStep], current: JSONValue?, in base: JSONValue, message: Message, phase: String
    ) {
        guard case .object(let members)? = current, let tag = members[union.tag] else { return }
        guard let chosen = union.cases.first(where: { JSONValue(spec: $0.tagValue) == tag }),
            case .object(let shape)? = spec.type(named: chosen.type)?.kind
        else { return }
        walk(shape, at: path, in: base, message: message, phase: phase)
    }

    private mutating func firstItem(_ current: JSONValue?, _ item: ResolvedType) -> JSONValue? {
        if case .array(let items)? = current, let first = items.first { return first }
        return synthesizer.value(item, depth: 1)
    }

    /// Values that break one constraint each: (rule, the rule in words, the value).
    private mutating func constraintBreaks(_ type: ResolvedType) -> [(String, String, JSONValue)] {
        let limits = type.constraints
        var breaks: [(String, String, JSONValue)] = []
        let prefix = limits.prefix ?? ""
        func text(_ length: Int) -> String {
            prefix.count <= length ? prefix + String(repeating: "a", count: length - prefix.count) : String(repeating: "a", count: length)
        }
        if let least = limits.minLength, least > 0 { breaks.append(("minLength", "at least \(least) characters", .string(text(least - 1)))) }
        if let most = limits.maxLength { breaks.append(("maxLength", "at most \(most) characters", .string(text(most + 1)))) }
        if let least = limits.minBytes, least > 0 { breaks.append(("minBytes", "at least \(least) bytes", .string(text(least - 1)))) }
        if let most = limits.maxBytes { breaks.append(("maxBytes", "at most \(most) bytes", .string(text(most + 1)))) }
        if limits.notBlank { breaks.append(("notBlank", "not blank", .string("   "))) }
        if let required = limits.prefix {
            breaks.append(("prefix", "starts with '\(required)'", .string("zz" + String(repeating: "a", count: max(limits.minLength ?? 0, 3)))))
        }
        if let pattern = limits.pattern {
            // Within the other limits, so that only the pattern breaks: `!probe!`, or `!`s after the prefix.
            var others = limits
            others.pattern = nil
            let fitted = prefix + String(repeating: "!", count: max(1, (limits.minLength ?? 1) - prefix.count))
            breaks.append(("pattern", "matches \(pattern)", .string(ValueSynthesizer.meets(others, "!probe!") ? "!probe!" : fitted)))
        }
        if let format = limits.format {
            let wrong: JSONValue
            switch format {
            case .uuid: wrong = .string("not-a-uuid")
            case .uuidv4: wrong = .string("6f1c2d3e-4b5a-1c6d-8e7f-9a0b1c2d3e4f")
            case .base64: wrong = .string("!!not base64!!")
            case .iso8601: wrong = .string("2024-13-45 25:61")
            case .epochMillis: wrong = .number(1.5)
            default: wrong = .string("not a uri")
            }
            breaks.append(("format", "is \(format.rawValue)", wrong))
        }
        if let most = limits.maxDecodedBytes {
            breaks.append(("maxDecodedBytes", "at most \(most) bytes decoded", .string(Data(count: most + 1).base64EncodedString())))
        }
        if let constant = limits.const {
            let wrong: JSONValue
            switch JSONValue(spec: constant) {
            case .integer(let number): wrong = .integer(number + 1)
            case .number(let number): wrong = .number(number + 0.5)
            case .string(let text): wrong = .string(text + "x")
            case .bool(let flag): wrong = .bool(!flag)
            default: wrong = .string("probe")
            }
            breaks.append(("const", "must be \(JSONValue(spec: constant).text)", wrong))
        }
        if let least = limits.minimum { breaks.append(("minimum", "at least \(least)", JSONValue(least - 1))) }
        if let most = limits.maximum { breaks.append(("maximum", "at most \(most)", JSONValue(most + 1))) }
        if case .enumeration(let values) = type.shape, !values.open, !values.isErrorCodeTable {
            breaks.append(("enum", "one of \(values.values.map(\.value).joined(separator: ", "))", .string("probe_unlisted_value")))
        }
        if case .map(let key, let value) = type.shape {
            let item = ResolvedType(value, in: spec)
            if let least = limits.minItems, least > 0, let made = mapOf(least - 1, key: key, value: item) {
                breaks.append(("minItems", "at least \(least) entries", made))
            }
            if let most = limits.maxItems, let made = mapOf(most + 1, key: key, value: item) {
                breaks.append(("maxItems", "at most \(most) entries", made))
            }
        }
        if case .array(let element) = type.shape {
            let item = ResolvedType(element, in: spec)
            if let least = limits.minItems, least > 0, let made = synthesizer.value(item, depth: 1) {
                breaks.append(("minItems", "at least \(least) items", .array(Array(repeating: made, count: least - 1))))
            }
            if let most = limits.maxItems, let made = synthesizer.value(item, depth: 1) {
                breaks.append(("maxItems", "at most \(most) items", .array(Array(repeating: made, count: most + 1))))
            }
        }
        return breaks
    }

    /// A map of exactly `count` entries with distinct valid keys, or `nil` when the key type has
    /// fewer values than that.
    private mutating func mapOf(_ count: Int, key: TypeRef, value: ResolvedType) -> JSONValue? {
        var members: [String: JSONValue] = [:]
        for index in 0..<count * 8 where members.count < count {
            guard let name = synthesizer.mapKey(key, index: index, depth: 1), members[name] == nil else { continue }
            guard let made = synthesizer.value(value, depth: 1) else { return nil }
            members[name] = made
        }
        return members.count == count ? .object(members) : nil
    }

    // MARK: Rules

    private mutating func ruleCases(_ rule: Rule, message: Message, base: JSONValue, phase: String, at path: [JSONStep] = []) {
        switch rule {
        case .conditional(let conditional): conditionalCases(conditional, message: message, base: base, phase: phase, at: path)
        case .byteBudget(let budget): budgetCase(budget, message: message, base: base, phase: phase)
        }
    }

    private mutating func conditionalCases(_ rule: ConditionalRule, message: Message, base: JSONValue, phase: String, at path: [JSONStep]) {
        var meeting = base
        for condition in rule.when {
            if let first = condition.values.first { meeting = meeting.setting(path + [.key(condition.field)], to: JSONValue(spec: first)) }
        }
        let name = "\(message.tag).\(([path.dotted] + rule.when.map { "\($0.field)" }).filter { !$0.isEmpty }.joined(separator: "."))"
        let when = rule.when.map { "\($0.field) is \($0.values.map { JSONValue(spec: $0).text }.joined(separator: " or "))" }.joined(
            separator: " and ")
        for field in rule.require {
            add(
                "\(name) requires \(field)", "'\(field)' is required when \(when)", rule.location, phase, message,
                meeting.setting(path + [.key(field)], to: nil), rules: ["conditional"])
        }
        for field in rule.forbid {
            add(
                "\(name) forbids \(field)", "'\(field)' must be absent when \(when)", rule.location, phase, message,
                meeting.setting(path + [.key(field)], to: .string("probe")), rules: ["conditional"])
        }
        for condition in rule.then {
            let allowed = condition.values.map { JSONValue(spec: $0) }
            let other: JSONValue? =
                allowed.contains(.bool(true)) && !allowed.contains(.bool(false))
                ? .bool(false) : allowed.contains(.bool(false)) && !allowed.contains(.bool(true)) ? .bool(true) : nil
            guard let other else { continue }
            add(
                "\(name) then \(condition.field)", "'\(condition.field)' must be \(allowed.map(\.text).joined(separator: " or ")) when \(when)",
                rule.location, phase, message, meeting.setting(path + [.key(condition.field)], to: other), rules: ["conditional"])
        }
    }

    /// A frame over a byte budget with every value within its own limits: the budget's paths are
    /// filled in turn, each to its own limit, until the sum is over.
    private mutating func budgetCase(_ budget: ByteBudget, message: Message, base: JSONValue, phase: String) {
        let name = "\(message.tag).\(budget.name) budget"
        for order in [budget.paths, budget.paths.reversed()] {
            var frame = base
            var remaining = budget.max + 1
            for path in order where remaining > 0 {
                guard let (filled, added) = fill(path, in: frame, upTo: remaining, message: message) else { continue }
                frame = filled
                remaining -= added
            }
            if remaining <= 0, accept(frame, rules: ["budget"], naming: budget.name) != nil {
                add(
                    name, "\(budget.paths.joined(separator: " + ")) total at most \(budget.max) bytes", budget.location, phase, message, frame,
                    rules: ["budget"], naming: budget.name)
                return
            }
        }
        gaps.append(
            ProbeGap(
                name: name, location: budget.location,
                reason: "no frame is over it with every value within its own limits and no other budget broken (the others are stricter)"))
    }

    /// Fills `dotted` (a top-level string, or a string field of the items of a top-level array)
    /// with up to `bytes` bytes; returns the frame and how many bytes it added.
    private mutating func fill(_ dotted: String, in frame: JSONValue, upTo bytes: Int, message: Message) -> (JSONValue, Int)? {
        let parts = dotted.split(separator: ".").map(String.init)
        guard let field = message.shape.fields.first(where: { $0.name == parts[0] }) else { return nil }
        let type = ResolvedType(field.type, constraints: field.constraints, in: spec)
        if parts.count == 1 {
            let most = min(type.constraints.maxBytes ?? bytes, type.constraints.maxLength ?? bytes, bytes)
            return (frame.setting([.key(parts[0])], to: .string(String(repeating: "a", count: most))), most)
        }
        guard parts.count == 2, case .array(let element) = type.shape else { return nil }
        let item = ResolvedType(element, in: spec)
        var shapes: [(ObjectShape, (String, JSONValue)?)] = []
        switch item.shape {
        case .object(let shape): shapes = [(shape, nil)]
        case .union(let union):
            for unionCase in union.cases {
                if case .object(let shape)? = spec.type(named: unionCase.type)?.kind {
                    shapes.append((shape, (union.tag, JSONValue(spec: unionCase.tagValue))))
                }
            }
        default: return nil
        }
        guard let (shape, tag) = shapes.first(where: { $0.0.fields.contains { $0.name == parts[1] } }),
            let leaf = shape.fields.first(where: { $0.name == parts[1] })
        else { return nil }
        let leafType = ResolvedType(leaf.type, constraints: leaf.constraints, in: spec)
        let decoded = leafType.constraints.format == .base64
        let perItem = decoded ? (leafType.constraints.maxDecodedBytes ?? bytes) : (leafType.constraints.maxBytes ?? bytes)
        let slots = type.constraints.maxItems ?? 1
        var items: [JSONValue] = []
        var added = 0
        while added < bytes, items.count < slots {
            guard var members = synthesizer.object(shape, depth: 1) else { return nil }
            if let (key, value) = tag { members[key] = value }
            let size = min(perItem, bytes - added)
            members[parts[1]] = .string(decoded ? Data(count: size).base64EncodedString() : String(repeating: "a", count: size))
            items.append(.object(members))
            added += size
        }
        return (frame.setting([.key(parts[0])], to: .array(items)), added)
    }

    // MARK: Judging a built frame

    /// The spec's answer to `frame` when it breaks only rules named in `rules` (and, for a budget,
    /// only the budget `naming`), all with one answer.
    func accept(_ frame: JSONValue, rules: Set<String>, naming budget: String? = nil) -> ViolationAnswer? {
        let errors = errors(of: frame)
        guard let first = errors.first, errors.allSatisfy({ rules.contains($0.rule) && $0.answer == first.answer }) else { return nil }
        if let budget, errors.contains(where: { !$0.message.hasPrefix("\(budget) ") }) { return nil }
        return first.answer
    }

    private func errors(of frame: JSONValue) -> [ValidationIssue] {
        guard case .checked(_, let issues) = validator.check(Array(frame.text.utf8), direction: .client) else { return [] }
        return issues.errors
    }

    private mutating func add(
        _ name: String, _ rule: String, _ location: SourceLocation, _ phase: String, _ message: Message, _ frame: JSONValue, rules: Set<String>,
        naming budget: String? = nil
    ) {
        guard let answer = accept(frame, rules: rules, naming: budget) else {
            let broken = errors(of: frame).map { "\($0.rule) at \($0.path)" }
            let why =
                broken.isEmpty
                ? "the frame built to break it breaks nothing" : "the frame built to break it also breaks \(broken.joined(separator: ", "))"
            gaps.append(ProbeGap(name: name, location: location, reason: why))
            return
        }
        var correlated: String?
        if let (tag, field) = errorCorrelation, tag == message.tag, case .string(let id)? = frame.value(at: [.key(field)]) { correlated = id }
        cases.append(
            ProbeCase(
                name: name, kind: .negative, rule: rule, location: location, phase: phase, frames: [frame.text], expected: answer,
                correlatedID: correlated))
    }
}
