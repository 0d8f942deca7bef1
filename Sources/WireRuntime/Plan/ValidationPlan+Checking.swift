/// The engine: one walk of a parsed frame against a plan, in a fixed order of checks, reporting
/// every broken rule through its validation context. Values are only built where a rule needs one
/// (a string with constraints, a number, a tag), so checking a frame allocates little.
/// The outcome of checking one frame against a protocol's rules.
public enum FrameCheckOutcome: Sendable {
    /// Bytes that are not JSON.
    case notJSON(JSONSyntaxError)
    /// JSON that is not an object or has no string tag.
    case notAFrame(String)
    /// A tag this direction does not have.
    case unknownType(tag: String)
    /// A frame of a known message: every issue, errors and warnings (none when it is valid).
    case checked(tag: String, issues: [ValidationIssue])
}

extension ValidationPlan {
    /// Checks the value at `index` of a parsed document as a frame of `direction`; also returns
    /// the id of its message in the plan when the tag is known.
    public func check(_ tape: JSONTape.View, at index: Int, direction: FrameDirection) -> (outcome: FrameCheckOutcome, message: Int?) {
        let plan = self
        guard tape.kind(index) == .object else { return (.notAFrame("a frame must be a JSON object, found \(tape.kindDescription(index))"), nil) }
        // Frames put their tag first, as a rule: the search starts at the first member.
        let key = plan.tagKey.bytes
        var firstMember = index + 1
        guard let tag = tape.member(of: index, key: key, signature: plan.tagKey.signature, cursor: &firstMember) else {
            return (.notAFrame("a frame must carry a '\(tagField)' field"), nil)
        }
        guard tape.kind(tag) == .string else { return (.notAFrame("'\(tagField)' must be a string, found \(tape.kindDescription(tag))"), nil) }
        guard let id = plan.message(direction, tagAt: tag, in: tape) else { return (.unknownType(tag: tape.string(tag)), nil) }
        let tagText = plan.messagePlans[id]._withUnsafeGuaranteedRef { $0.tag }
        return (.checked(tag: tagText, issues: checkMessage(id, at: index, in: tape)), id)
    }

    /// Every issue of the value at `index` as the body of message `id` (its tag is the caller's).
    func checkMessage(_ id: Int, at index: Int, in tape: JSONTape.View) -> [ValidationIssue] {
        // The message is borrowed from `messages`, which the plan keeps, without counting a reference.
        messagePlans[id]._withUnsafeGuaranteedRef { message in
            var context = ValidationContext(borrowingSizeAnswer: sizeAnswerRef)
            if let variants = message.variants {
                check(index, in: tape, named: variants, at: .root, in: &context, answer: message.answer, ignoring: tagField)
            } else if tape.kind(index) != .object {
                _ = context.object(tape.value(index), at: .root, answer: message.answer)
            } else {
                check(object: index, in: tape, plan: message.object, at: .root, in: &context, answer: message.answer, ignoring: tagField)
            }
            return context.issues
        }
    }

    /// The position of the first of `variants` the value at `index` passes, trying each on a
    /// scratch context; `nil` when it passes none.
    func firstPassingVariant(_ variants: [Node], at index: Int, in tape: JSONTape.View, answer: ViolationAnswer) -> Int? {
        let context = ValidationContext(borrowingSizeAnswer: sizeAnswerRef)
        return variants.indices.first { position in
            context.attempt { scratch -> Bool? in
                check(index, in: tape, variants[position], at: .root, in: &scratch, answer: answer, sizeAnswer: nil)
                return true
            } != nil
        }
    }

    // MARK: Interpreting the plan

    func check(
        object index: Int, in tape: JSONTape.View, plan objectPlan: ObjectPlan, at path: @autoclosure () -> JSONPath,
        in context: inout ValidationContext, answer: ViolationAnswer, ignoring: String?
    ) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(objectPlan.fields.count, 1)) { found in
            // `found[position]`: the value of each declared field, or -1 when it is absent.
            let quickFields = objectPlan.quickFields
            // Every field is found first, then checked in the spec's order, which is the order
            // its issues are reported in.
            if tape.hasExactKeySketch(index) {
                // One walk over the members: each key's signature slot names the fields it can be.
                found.initialize(repeating: -1)
                objectPlan.keySlots.place(membersOf: index, in: tape, into: found)
            } else {
                // Escaped keys, or a large object: each field is looked up, in key order (the
                // tape's, when it is canonical).
                var cursor = index + 1
                for position in objectPlan.lookupOrder {
                    let field = quickFields[position]
                    found[position] = tape.member(of: index, key: field.keyUTF8, signature: field.signature, cursor: &cursor) ?? -1
                }
            }
            for (position, field) in quickFields.enumerated() {
                // The same outcomes as `ValidationContext.member`: a value to check, a missing required
                // key, or a null where null is not allowed; a value of a plain kind needs no more.
                let member = found[position]
                guard member >= 0 else {
                    if field.required {
                        let plan = objectPlan.fields[position]
                        _ = context.check(
                            MemberPresence.absent, of: plan.key, at: path(), required: true, nullable: field.nullable,
                            answer: plan.answer ?? answer)
                    }
                    continue
                }
                let kind = tape.kind(member)
                if kind == .null {
                    if !field.nullable {
                        let plan = objectPlan.fields[position]
                        _ = context.check(
                            MemberPresence.null, of: plan.key, at: path(), required: field.required, nullable: false,
                            answer: plan.answer ?? answer)
                    }
                    continue
                }
                if field.plainKinds & 1 << kind.rawValue != 0 { continue }
                // So is a string that surely passes its rules (most strings), decided before the
                // field's answers are read for the check below.
                if kind == .string, let rules = field.stringRules, let bytes = tape.plainStringBytes(member),
                    rules._withUnsafeGuaranteedRef({ $0.surelyPasses(bytes) })
                {
                    continue
                }
                if kind == .integer, let rules = field.numberRules,
                    rules._withUnsafeGuaranteedRef({ $0.surelyPasses(integer: tape.integer(member)) })
                {
                    continue
                }
                if field.named >= 0, isEnumerationValue(member, in: tape, named: field.named) { continue }
                // The plan outlives the check (the validator holds it); skip counting the references
                // to the field plan and to its node (borrowed from `QuickField`).
                unowned(unsafe) let plan = field.plan.takeUnretainedValue()
                // The inherited answer is passed through untouched when the field has none of its own:
                // `plan.answer ?? answer` alone copies it for every field (measurably slower).
                field.node._withUnsafeGuaranteedRef { node in
                    if field.hasOwnAnswer {
                        check(
                            member, in: tape, node, at: path().appending(plan.key), in: &context, answer: plan.answer ?? answer,
                            sizeAnswer: plan.answer)
                    } else {
                        check(member, in: tape, node, at: path().appending(plan.key), in: &context, answer: answer, sizeAnswer: nil)
                    }
                }
            }
            for conditional in objectPlan.quickConditionals {
                conditional._withUnsafeGuaranteedRef {
                    check($0, of: index, in: tape, found: UnsafeBufferPointer(found), at: path(), in: &context, answer: answer)
                }
            }
        }
        if objectPlan.hasBudgets {
            for budget in objectPlan.quickBudgets {
                budget._withUnsafeGuaranteedRef { context.check($0, in: tape, object: index, at: path()) }
            }
        }
        if objectPlan.checksKeys {
            var keys: [String] = []
            if objectPlan.rejectUnknown {
                tape.forEachMember(of: index) { key, _ in
                    keys.append(tape.string(key))
                    return true
                }
            } else if objectPlan.rejectedKeys.contains(where: { tape.member(of: index, key: $0) != nil }) {
                // Most objects hold none of their rejected keys: that is settled by the keys'
                // bytes, and then there is nothing to report.
                keys = objectPlan.rejected.filter { tape.member(of: index, key: $0) != nil }
            }
            if objectPlan.rejectUnknown || !keys.isEmpty {
                context.checkKeys(
                    keys, known: objectPlan.rejectUnknown ? objectPlan.knownKeys : [], rejectUnknown: objectPlan.rejectUnknown,
                    rejected: objectPlan.rejected, ignoring: ignoring, at: path(), answer: answer)
            }
        }
    }

    /// Checks one conditional rule of the object at `index`, whose declared fields were found at
    /// `found` (-1: absent).
    private func check(
        _ conditional: ConditionalPlan, of index: Int, in tape: JSONTape.View, found: UnsafeBufferPointer<Int>,
        at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer
    ) {
        /// The value of a key the rule reads, found by the object's walk when it is a declared field.
        func member(_ position: Int, _ key: @autoclosure () -> String) -> Int? {
            guard position >= 0 else { return tape.member(of: index, key: key()) }
            return found[position] >= 0 ? found[position] : nil
        }
        func presence(_ position: Int, _ key: @autoclosure () -> String) -> MemberPresence {
            guard let value = member(position, key()) else { return .absent }
            return tape.kind(value) == .null ? .null : .present
        }
        // Whether the rule applies is decided on the tape, without building the values.
        let applies = conditional.quickConditions.indices.allSatisfy { position in
            let condition = conditional.quickConditions[position]
            guard let value = member(condition.field, conditional.rule.conditions[position].key) else { return false }
            return conditional.matches(value, condition, in: tape)
        }
        guard applies else { return }
        // Most frames keep a rule that applies: that is decided in place too, and only a frame that
        // may break it is checked (and reported on) below.
        if conditional.holds(found: found, in: tape) { return }
        // As for fields: the inherited answer is passed through untouched when the rule has
        // none of its own (`conditional.answer ?? answer` alone would copy it every time).
        func checkConsequences(answer: ViolationAnswer) {
            context.checkConsequences(
                of: conditional.rule, at: path(), answer: answer,
                requiredPresence: { presence(conditional.requiredFields[$0], conditional.rule.required[$0]) },
                forbiddenPresence: { presence(conditional.forbiddenFields[$0], conditional.rule.forbidden[$0]) },
                expectedValue: { member(conditional.expectedFields[$0], conditional.rule.expected[$0].key).map { tape.value($0) } }
            )
        }
        if conditional.hasOwnAnswer { checkConsequences(answer: conditional.answer ?? answer) } else { checkConsequences(answer: answer) }
    }

    /// Checks a value against a node. Values without constraints are judged by their kind alone; a
    /// value is built only for the WireRuntime check that reports on it or needs its content.
    func check(
        _ index: Int, in tape: JSONTape.View, _ node: Node, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext,
        answer: ViolationAnswer, sizeAnswer: ViolationAnswer?
    ) {
        let kind = tape.kind(index)
        if node.plainKinds & 1 << kind.rawValue != 0 { return }
        switch node.kind {
        case .string:
            guard kind == .string, let rules = node.stringRulesRef else {
                _ = context.string(tape.value(index), at: path(), rules: node.stringRules, answer: answer, sizeAnswer: sizeAnswer)
                return
            }
            // The rules are borrowed from the node (which the plan keeps): binding them to a local
            // would count a reference to them for every string checked.
            rules._withUnsafeGuaranteedRef { rules in
                tape.withStringBytes(index) { bytes in
                    _ = context.check(utf8: bytes, text: { tape.string(index) }, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer)
                }
            }
        case .integer:
            // As for strings, the rules are borrowed from the node.
            guard let rules = node.numberRulesRef else {
                _ = context.integer(tape.value(index), at: path(), rules: nil, answer: answer)
                return
            }
            rules._withUnsafeGuaranteedRef { _ = context.integer(tape.value(index), at: path(), rules: $0, answer: answer) }
        case .number:
            guard let rules = node.numberRulesRef else {
                _ = context.number(tape.value(index), at: path(), rules: nil, answer: answer)
                return
            }
            rules._withUnsafeGuaranteedRef { _ = context.number(tape.value(index), at: path(), rules: $0, answer: answer) }
        case .boolean:
            _ = context.bool(tape.value(index), at: path(), constant: node.booleanConstant, answer: answer)
        case .json, .unresolved:
            break
        case .array:
            guard kind == .array, let element = node.element else {
                _ = context.array(tape.value(index), at: path(), rules: node.collectionRules, answer: answer, sizeAnswer: sizeAnswer) {
                    _, _, _ -> Bool? in nil
                }
                return
            }
            if let rules = node.collectionRules {
                context.checkCount(tape.count(index), at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer, noun: "items")
            }
            tape.forEachItem(of: index) { position, item in
                check(item, in: tape, element, at: path().appending(position), in: &context, answer: answer, sizeAnswer: sizeAnswer)
            }
        case .map:
            guard kind == .object, let element = node.element else {
                _ = context.map(tape.value(index), at: path(), rules: node.collectionRules, answer: answer, sizeAnswer: sizeAnswer) {
                    _, _, _ -> Bool? in nil
                }
                return
            }
            if let rules = node.collectionRules {
                context.checkCount(tape.count(index), at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer, noun: "entries")
            }
            var entries: [(key: String, keyIndex: Int, value: Int)] = []
            tape.forEachMember(of: index) { key, value in
                entries.append((tape.string(key), key, value))
                return true
            }
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                if let keyNode = node.key {
                    // A key is a string on the tape like any other, so its type checks it; the path names the key itself.
                    check(
                        entry.keyIndex, in: tape, keyNode, at: path().appendingKeyName(entry.key), in: &context, answer: answer,
                        sizeAnswer: sizeAnswer)
                }
                check(entry.value, in: tape, element, at: path().appending(entry.key), in: &context, answer: answer, sizeAnswer: sizeAnswer)
            }
        case .constant:
            guard kind == .string, let rules = node.stringRules, let inner = node.element else {
                _ = context.string(tape.value(index), at: path(), rules: node.stringRules, answer: answer)
                return
            }
            let passed = tape.withStringBytes(index) { bytes in
                context.check(utf8: bytes, text: { tape.string(index) }, at: path(), rules: rules, answer: answer, sizeAnswer: nil)
            }
            if passed {
                check(index, in: tape, inner, at: path(), in: &context, answer: answer, sizeAnswer: sizeAnswer)
            }
        case .named:
            check(index, in: tape, named: node.named, at: path(), in: &context, answer: answer, ignoring: nil)
        }
    }

    func check(
        _ index: Int, in tape: JSONTape.View, named: Int, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext,
        answer: ViolationAnswer, ignoring: String?
    ) {
        if let objectPlan = namedObjects[named] {
            // An object, the most common named type, is borrowed from `named` without copying the enum.
            guard tape.kind(index) == .object else {
                _ = context.object(tape.value(index), at: path(), answer: answer)
                return
            }
            objectPlan._withUnsafeGuaranteedRef {
                check(object: index, in: tape, plan: $0, at: path(), in: &context, answer: answer, ignoring: ignoring)
            }
            return
        }
        // A string that is one of an enumeration's values passes, decided without copying the
        // enumeration out of `named`; anything else is reported below.
        if isEnumerationValue(index, in: tape, named: named) { return }
        switch self.named[named] {
        case .object:
            // Every object plan is in `namedObjects` too (the plan's init puts it there), so the
            // branch above has checked it.
            assertionFailure("the object plan \(named) is missing from namedObjects")
        case .closedEnum(let allowed, _):
            guard tape.kind(index) == .string else {
                context.fail(path(), "type", answer, "expected a string, found \(tape.kindDescription(index))")
                return
            }
            // A string that is one of the values has passed above (`namedEnumValues`).
            context.fail(
                path(), "enum", answer,
                "\(JSONWriter.string(tape.value(index))) is not one of \(allowed.map { JSONWriter.string(.string($0)) }.joined(separator: ", "))")
        case .openEnum(let name, let known, _):
            // As for a closed enumeration, a known value has passed above.
            _ = context.openEnum(tape.value(index), at: path(), known: known, typeName: name, answer: answer)
        case .union(let tag, let cases, let open, let typeName):
            guard tape.kind(index) == .object else {
                _ = context.object(tape.value(index), at: path(), answer: answer)
                return
            }
            guard let tagIndex = tape.member(of: index, key: tag) else {
                context.fail(path().appending(tag), "required", answer, "missing required field '\(tag)'")
                return
            }
            if let match = cases.first(where: { tape.equals(tagIndex, $0.value) }) {
                check(index, in: tape, named: match.plan, at: path(), in: &context, answer: answer, ignoring: tag)
                return
            }
            let tagValue = tape.value(tagIndex)
            if open {
                context.report(
                    ValidationIssue(
                        severity: .warning, path: path().appending(tag), rule: "unknownCase", answer: answer,
                        message: "\(tagValue) is not a known \(typeName) case; it is kept as unknown"))
            } else {
                context.unknownTag(tagValue, tag: tag, at: path(), allowed: cases.map { JSONWriter.string($0.value) }, answer: answer)
            }
        case .oneOf(let variants, let expected):
            if firstPassingVariant(variants, at: index, in: tape, answer: answer) != nil { return }
            context.noVariant(tape.value(index), at: path(), expected: expected, answer: answer)
        }
    }
}

extension ValidationPlan {
    /// Whether the value at `index` is a string that is one of the values of the named type
    /// `named`, an enumeration (`false` for any other named type), decided without copying the
    /// enumeration out of `named`.
    @inline(__always)
    func isEnumerationValue(_ index: Int, in tape: JSONTape.View, named: Int) -> Bool {
        guard let values = namedEnumValues[named], tape.kind(index) == .string else { return false }
        return values.position(ofString: index, in: tape) >= 0
    }
}

extension ValidationPlan.ConditionalPlan {
    /// Whether the value at `index` is one of the values of `condition` (a condition of the rule,
    /// or one of its expectations), compared in place.
    @inline(__always)
    func matches(_ index: Int, _ condition: ValidationPlan.QuickCondition, in tape: JSONTape.View) -> Bool {
        quickMatches[condition.matches].contains { tape.matches(index, $0) { matchValues[$0][$1] } }
    }

    /// Whether every consequence of the rule (which applies) holds for an object whose declared
    /// fields were found at `found` (-1: absent): each required field present and not `null`, each
    /// forbidden one absent, each expected one of its values. Decided in place, and only where it is
    /// sure: `false` also when a consequence names a key that is not a declared field, or a string
    /// differs in its bytes only (canonically equivalent text), and then the full check decides.
    func holds(found: UnsafeBufferPointer<Int>, in tape: JSONTape.View) -> Bool {
        for position in quickRequired {
            guard position >= 0, found[position] >= 0, tape.kind(found[position]) != .null else { return false }
        }
        for position in quickForbidden {
            guard position >= 0, found[position] < 0 else { return false }
        }
        for expectation in quickExpectations {
            guard expectation.field >= 0, case let value = found[expectation.field], value >= 0, tape.kind(value) != .null,
                matches(value, expectation, in: tape)
            else { return false }
        }
        return true
    }
}

extension JSONTape.View {
    /// Whether the value at `index` equals `value`, as `JSONValue`'s `==` says. A string (a
    /// union's tag, say) is compared with the tape's bytes in place, so no value is built; only
    /// unequal bytes with non-ASCII text on either side are compared again as `String`s, which
    /// equate canonically equivalent text.
    func equals(_ index: Int, _ value: JSONValue) -> Bool {
        guard case .string(let text) = value else { return self.value(index) == value }
        guard kind(index) == .string else { return false }
        if text.utf8.withContiguousStorageIfAvailable({ stringEquals(index, $0) }) == true { return true }
        if isASCII(index) && text.utf8.allSatisfy({ $0 < 0x80 }) { return false }
        return string(index) == text
    }

    /// Whether the value at `index` matches a plain match; a `.value` match is compared with the
    /// value `value(list, index)` gives for it (conditional rules and the session rules' field
    /// conditions both decide with it).
    @inline(__always)
    func matches(_ index: Int, _ match: ValidationPlan.QuickMatch, value: (_ list: Int, _ index: Int) -> ValidationPlan.ValueMatch) -> Bool {
        switch match {
        case .bytes(let bytes): kind(index) == .string && stringEquals(index, bytes)
        case .kind(let expected): kind(index) == expected
        case .value(let list, let position): matches(index, value(list, position))
        }
    }

    /// Whether the value at `index` equals a rule's value, compared in place.
    func matches(_ index: Int, _ match: ValidationPlan.ValueMatch) -> Bool {
        switch match {
        case .string(let key): return kind(index) == .string && stringEquals(index, key.bytes)
        case .kind(let expected): return kind(index) == expected
        case .value(let expected): return value(index) == expected
        }
    }
}
