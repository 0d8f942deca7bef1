import WireSpec

/// Compares two versions of a spec: every difference, with a verdict for old clients against a
/// new server and old servers against a new client. Renames show as a removal and an addition.
public enum SpecDiff {
    /// The changes from `old` to `new`, in the order of NEW's file (messages, types, tables, session).
    public static func changes(from old: ProtocolSpec, to new: ProtocolSpec) -> [SpecChange] {
        var collector = ChangeCollector(old: old, new: new)
        collector.compareHeader()
        collector.compareMessages()
        collector.compareTypes()
        collector.compareErrorCodes()
        collector.compareRateLimits()
        collector.compareEndpoints()
        collector.compareConstants()
        collector.compareSession()
        collector.checkVersionBump()
        return collector.changes
    }
}

/// Gathers the changes of one comparison.
struct ChangeCollector {
    let old: ProtocolSpec
    let new: ProtocolSpec
    private(set) var changes: [SpecChange] = []
    /// The directions whose frames use each named type, in OLD and NEW together.
    let typeDirections: [String: Set<Direction>]

    init(old: ProtocolSpec, new: ProtocolSpec) {
        self.old = old
        self.new = new
        var directions: [String: Set<Direction>] = [:]
        for spec in [old, new] {
            for (name, found) in TypeUsage.directions(in: spec) { directions[name, default: []].formUnion(found) }
        }
        typeDirections = directions
    }

    /// Records a change; `effect` and `directions` decide the verdicts.
    mutating func record(
        _ group: String, _ subject: String, _ kind: ChangeKind, _ summary: String, old oldValue: String? = nil, new newValue: String? = nil,
        effect: Effect, directions: Set<Direction>, at location: SourceLocation
    ) {
        let verdicts = effect.verdicts(directions)
        changes.append(
            SpecChange(
                group: group, subject: subject, kind: kind, summary: summary, old: oldValue, new: newValue,
                oldClientsWithNewServer: verdicts.oldClients, oldServersWithNewClient: verdicts.oldServers, isDescription: false,
                location: location))
    }

    /// Records a change whose verdicts are worked out by the caller rather than from an effect.
    mutating func recordVerdicts(
        _ group: String, _ subject: String, _ kind: ChangeKind, _ summary: String, old oldValue: String? = nil, new newValue: String? = nil,
        oldClients: Verdict, oldServers: Verdict, at location: SourceLocation
    ) {
        changes.append(
            SpecChange(
                group: group, subject: subject, kind: kind, summary: summary, old: oldValue, new: newValue, oldClientsWithNewServer: oldClients,
                oldServersWithNewClient: oldServers, isDescription: false, location: location))
    }

    /// Records a changed description (`info`, no verdict).
    mutating func recordDescription(_ group: String, _ subject: String, old oldText: String?, new newText: String?, at location: SourceLocation) {
        // A YAML block scalar's closing newline is not a change of the text.
        func trimmed(_ text: String?) -> String? { text.map { String($0.reversed().drop { $0.isWhitespace }.reversed()) } }
        guard trimmed(oldText) != trimmed(newText) else { return }
        changes.append(
            SpecChange(
                group: group, subject: subject, kind: .changed, summary: "description changed", old: oldText.map(Self.short),
                new: newText.map(Self.short), oldClientsWithNewServer: .compatible, oldServersWithNewClient: .compatible, isDescription: true,
                location: location))
    }

    static func short(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 80 ? String(flat.prefix(77)) + "..." : flat
    }

    // MARK: Header

    mutating func compareHeader() {
        let location = SourceLocation(file: new.sourceFile, line: 1, column: 1)
        let both: Set<Direction> = [.client, .server]
        if old.tagField != new.tagField {
            record(
                "protocol", "tag field", .changed, "the key that names every frame changed", old: old.tagField, new: new.tagField,
                effect: .replaces, directions: both, at: location)
        }
        if old.keyStyle != new.keyStyle {
            record(
                "protocol", "key style", .changed, "changed", old: old.keyStyle.rawValue, new: new.keyStyle.rawValue,
                effect: .replaces, directions: both, at: location)
        }
        if old.transport.path != new.transport.path || old.transport.kind != new.transport.kind {
            record(
                "protocol", "transport", .changed, "where or how frames travel changed",
                old: "\(old.transport.kind.rawValue) \(old.transport.path)", new: "\(new.transport.kind.rawValue) \(new.transport.path)",
                effect: .replaces, directions: both, at: location)
        }
        if old.version != new.version {
            record(
                "protocol", "the version", .changed, "changed", old: String(old.version), new: String(new.version),
                effect: .none, directions: [], at: location)
        }
        recordDescription("protocol", "the protocol", old: old.description, new: new.description, at: location)
        compareValidation(at: location)
    }

    /// The answers to frames no message rule covers, and what clients do with unknown server frames.
    private mutating func compareValidation(at location: SourceLocation) {
        for (subject, before, after) in [
            ("answer to bytes that are not JSON", old.notJSONAnswer, new.notJSONAnswer),
            ("answer to JSON that is not a frame", old.notAFrameAnswer, new.notAFrameAnswer),
        ] where !sameAnswer(before, after) {
            record(
                "validation", subject, .changed, "changed", old: answerText(before), new: answerText(after), effect: .changesBehaviour,
                directions: [.client, .server], at: location)
        }
        if old.unknownServerFrames != new.unknownServerFrames {
            // Ignoring accepts more from servers; rejecting accepts less.
            record(
                "validation", "server frames of unknown types", .changed, "clients now \(new.unknownServerFrames.rawValue) them",
                old: old.unknownServerFrames.rawValue, new: new.unknownServerFrames.rawValue,
                effect: new.unknownServerFrames == .ignore ? .loosens : .tightens, directions: [.server], at: location)
        }
    }

    /// A breaking change without a version bump is itself a finding.
    mutating func checkVersionBump() {
        guard old.version == new.version, changes.contains(where: { $0.severity == .breaking }) else { return }
        let breaking = changes.filter { $0.severity == .breaking }.count
        changes.append(
            SpecChange(
                group: "protocol", subject: "the version", kind: .changed,
                summary: "is still \(new.version) after \(breaking) breaking change\(breaking == 1 ? "" : "s"); raise 'version'",
                old: nil, new: nil, oldClientsWithNewServer: .breaks, oldServersWithNewClient: .breaks,
                isDescription: false, location: SourceLocation(file: new.sourceFile, line: 1, column: 1)))
    }

    // MARK: Messages

    mutating func compareMessages() {
        for message in new.messages where !(message.declaredForBoth && message.direction == .server) {
            let ref = MessageRef(direction: message.direction, tag: message.tag)
            let directions = directionsOf(message)
            let group = groupName(message)
            guard let before = old.message(ref) else {
                if directions == [.server], old.unknownServerFrames == .ignore {
                    record(
                        group, "the message", .added, "added: old clients ignore it, as a type they do not know", effect: .none, directions: [],
                        at: message.location)
                } else {
                    record(
                        group, "the message", .added, "added: old receivers answer it as an unknown type", effect: .loosens,
                        directions: directions, at: message.location)
                }
                continue
            }
            recordDescription(group, "the message", old: before.description, new: message.description, at: message.location)
            if !sameAnswer(before.violation, message.violation) {
                record(
                    group, "answer to a broken rule", .changed, "changed", old: before.violation.map(answerText),
                    new: message.violation.map(answerText),
                    effect: .changesBehaviour, directions: directions, at: message.location)
            }
            compareBody(before, message, group: group, directions: directions)
        }
        for message in old.messages where !(message.declaredForBoth && message.direction == .server) {
            guard new.message(MessageRef(direction: message.direction, tag: message.tag)) == nil else { continue }
            if directionsOf(message) == [.server], new.unknownServerFrames == .ignore {
                // New clients drop it; old clients that waited for it may miss what it said.
                recordVerdicts(
                    groupName(message), "the message", .removed, "removed: new clients ignore it; old clients no longer get it",
                    oldClients: .mayBreak, oldServers: .compatible, at: message.location)
                continue
            }
            record(
                groupName(message), "the message", .removed, "removed: new receivers answer it as an unknown type", effect: .tightens,
                directions: directionsOf(message), at: message.location)
        }
    }

    private func directionsOf(_ message: Message) -> Set<Direction> {
        message.declaredForBoth ? [.client, .server] : [message.direction]
    }

    private func groupName(_ message: Message) -> String {
        "\(message.declaredForBoth ? "both" : message.direction.rawValue) message \(message.tag)"
    }

    private mutating func compareBody(_ before: Message, _ after: Message, group: String, directions: Set<Direction>) {
        switch (before.variants, after.variants) {
        case (nil, nil):
            compareShape(before.shape, after.shape, group: group, directions: directions, at: after.location)
        case (let oldUnion?, let newUnion?):
            compareUnion(oldUnion, newUnion, group: group, directions: directions, at: after.location)
        default:
            // The wire form is one flat object either way: compare the fields a frame may carry.
            record(
                group, "the message's shape", .changed,
                after.variants == nil ? "cases became fields (same wire form)" : "fields became cases (same wire form)",
                effect: .none, directions: [], at: after.location)
            compareShape(
                ObjectShape(fields: before.allFields(types: old.types)), ObjectShape(fields: after.allFields(types: new.types)), group: group,
                directions: directions, at: after.location)
        }
    }

    // MARK: Objects and fields

    mutating func compareShape(_ before: ObjectShape, _ after: ObjectShape, group: String, directions: Set<Direction>, at location: SourceLocation) {
        for field in after.fields {
            let subject = "field '\(field.name)'"
            guard let previous = before.field(named: field.name) else {
                // An old receiver sees an unknown key: harmless unless it rejects unknown keys.
                let effect: Effect = field.required ? .tightens : (before.unknownFields == .reject ? .loosens : .none)
                record(
                    group, subject, .added, field.required ? "added, required" : "added, optional", new: typeText(field),
                    effect: effect, directions: directions, at: field.location)
                if field.required && before.unknownFields == .reject {
                    record(group, subject, .added, "old receivers reject the new key", effect: .loosens, directions: directions, at: field.location)
                }
                continue
            }
            compareField(previous, field, group: group, subject: subject, directions: directions)
        }
        for field in before.fields where after.field(named: field.name) == nil {
            // New senders leave it out: an old receiver that required it breaks; a new receiver that rejects unknown keys rejects old senders.
            let effect: Effect = field.required ? .loosens : (after.unknownFields == .reject ? .tightens : .none)
            if effect == .none {
                // Still valid both ways, but what old senders put in it is now dropped: whether that matters is the field's meaning.
                recordVerdicts(
                    group, "field '\(field.name)'", .removed, "removed: new receivers ignore it when old senders send it", old: typeText(field),
                    oldClients: directions.contains(.client) ? .mayBreak : .compatible,
                    oldServers: directions.contains(.server) ? .mayBreak : .compatible, at: field.location)
                continue
            }
            record(
                group, "field '\(field.name)'", .removed, field.required ? "removed (it was required)" : "removed",
                old: typeText(field), effect: effect, directions: directions, at: field.location)
        }
        if before.unknownFields != after.unknownFields {
            let effect: Effect
            switch (before.unknownFields, after.unknownFields) {
            case (_, .reject): effect = .tightens
            case (.reject, _): effect = .loosens
            default: effect = .changesBehaviour
            }
            record(
                group, "unknown fields", .changed, "handling changed", old: before.unknownFields.rawValue, new: after.unknownFields.rawValue,
                effect: effect, directions: directions, at: location)
        }
        for key in after.rejectFields where !before.rejectFields.contains(key) {
            record(group, "field '\(key)'", .added, "rejected when present", effect: .tightens, directions: directions, at: location)
        }
        for key in before.rejectFields where !after.rejectFields.contains(key) {
            record(group, "field '\(key)'", .removed, "no longer rejected", effect: .loosens, directions: directions, at: location)
        }
        compareRules(before.rules, after.rules, group: group, directions: directions, at: location)
    }

    private mutating func compareField(_ before: Field, _ after: Field, group: String, subject: String, directions: Set<Direction>) {
        let location = after.location
        // A field whose type changed is compared by the constraints in force: its own over its
        // named type's, so moving `minLength: 1` from a field into a named type changes nothing.
        var beforeConstraints = before.constraints
        var afterConstraints = after.constraints
        if before.type != after.type {
            beforeConstraints = before.constraints.merged(over: old.resolve(before.type).constraints)
            afterConstraints = after.constraints.merged(over: new.resolve(after.type).constraints)
            let same = WireForm.same(before.type, in: old, after.type, in: new, comparingConstraints: false)
            record(
                group, subject, .changed, same ? "type renamed (same wire form)" : "type changed", old: before.type.description,
                new: after.type.description, effect: same ? .none : .replaces, directions: directions, at: location)
        }
        if before.required != after.required {
            record(
                group, subject, .changed, after.required ? "made required" : "made optional",
                old: before.required ? "required" : "optional", new: after.required ? "required" : "optional",
                effect: after.required ? .tightens : .loosens, directions: directions, at: location)
        }
        if before.nullable != after.nullable {
            record(
                group, subject, .changed, after.nullable ? "made nullable" : "no longer nullable",
                effect: after.nullable ? .loosens : .tightens, directions: directions, at: location)
        }
        if before.defaultValue != after.defaultValue {
            record(
                group, subject, .changed, "default changed", old: before.defaultValue?.description, new: after.defaultValue?.description,
                effect: .changesBehaviour, directions: directions, at: location)
        }
        if !sameAnswer(before.violation, after.violation) {
            record(
                group, subject, .changed, "answer to a broken rule changed", old: before.violation.map(answerText),
                new: after.violation.map(answerText), effect: .changesBehaviour, directions: directions, at: location)
        }
        if before.deprecated != after.deprecated {
            record(group, subject, .changed, after.deprecated ? "deprecated" : "no longer deprecated", effect: .none, directions: [], at: location)
        }
        compareConstraints(beforeConstraints, afterConstraints, group: group, subject: subject, directions: directions, at: location)
        recordDescription(group, subject, old: before.description, new: after.description, at: location)
    }

    /// Each constraint tightened, loosened, added, removed or replaced.
    mutating func compareConstraints(
        _ before: Constraints, _ after: Constraints, group: String, subject: String, directions: Set<Direction>, at location: SourceLocation
    ) {
        // Lower bounds (`raisingTightens`): raising one tightens. Upper bounds: lowering one tightens.
        let bounds: [(key: String, raisingTightens: Bool, was: Double?, now: Double?)] = [
            ("minLength", true, before.minLength.map(Double.init), after.minLength.map(Double.init)),
            ("minBytes", true, before.minBytes.map(Double.init), after.minBytes.map(Double.init)),
            ("minItems", true, before.minItems.map(Double.init), after.minItems.map(Double.init)),
            ("minimum", true, before.minimum, after.minimum),
            ("maxLength", false, before.maxLength.map(Double.init), after.maxLength.map(Double.init)),
            ("maxBytes", false, before.maxBytes.map(Double.init), after.maxBytes.map(Double.init)),
            ("maxDecodedBytes", false, before.maxDecodedBytes.map(Double.init), after.maxDecodedBytes.map(Double.init)),
            ("maxItems", false, before.maxItems.map(Double.init), after.maxItems.map(Double.init)),
            ("maximum", false, before.maximum, after.maximum),
        ]
        for (key, raisingTightens, was, now) in bounds where was != now {
            // Adding a bound tightens; removing one loosens.
            let tighter = was.map { previous in now.map { raisingTightens ? $0 > previous : $0 < previous } ?? false } ?? true
            record(
                group, subject, was == nil ? .added : now == nil ? .removed : .changed, "\(key) \(tighter ? "tightened" : "loosened")",
                old: was.map(NumberText.compact), new: now.map(NumberText.compact), effect: tighter ? .tightens : .loosens,
                directions: directions, at: location)
        }
        let exact: [(String, String?, String?)] = [
            ("prefix", before.prefix, after.prefix), ("pattern", before.pattern, after.pattern),
            ("format", before.format?.rawValue, after.format?.rawValue), ("const", before.const?.description, after.const?.description),
        ]
        for (key, was, now) in exact where was != now {
            let effect: Effect = was == nil ? .tightens : now == nil ? .loosens : .replaces
            record(
                group, subject, was == nil ? .added : now == nil ? .removed : .changed,
                "\(key) \(was == nil ? "added" : now == nil ? "removed" : "changed")",
                old: was, new: now, effect: effect, directions: directions, at: location)
        }
        if before.notBlank != after.notBlank {
            record(
                group, subject, after.notBlank ? .added : .removed, after.notBlank ? "notBlank added" : "notBlank removed",
                effect: after.notBlank ? .tightens : .loosens, directions: directions, at: location)
        }
    }

    func typeText(_ field: Field) -> String {
        field.type.description + (field.required ? "" : ", optional") + (field.nullable ? ", nullable" : "")
    }

    /// Whether two answers do the same on the wire once each spec's error table has filled in what
    /// they leave to it (`{error: auth_failed}` and `{error: auth_failed, close: true, closeCode:
    /// 1008}` are one answer when the code closes with 1008). An absent answer is not a present one.
    func sameAnswer(_ before: Answer?, _ after: Answer?) -> Bool {
        if before == after { return true }
        guard let before, let after else { return false }
        let (was, now) = (old.resolved(before), new.resolved(after))
        return was.code == now.code && was.closesConnection == now.closesConnection && was.closeCode == now.closeCode
    }

    func answerText(_ answer: Answer) -> String {
        var text = answer.errorCode ?? "nothing"
        if let close = answer.close { text += close ? ", close" : ", stay open" }
        if let code = answer.closeCode { text += " \(code)" }
        return text
    }
}
