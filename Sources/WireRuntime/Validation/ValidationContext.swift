/// Collects the issues found while decoding one frame.
///
/// Generated decoders and spec-driven validators call these checks, so the rules are written
/// once here. Paths are passed as autoclosures and only built when an issue is reported.
@_spi(Generated) public struct ValidationContext: Sendable {
    /// Every issue, in the order found.
    public private(set) var issues: [ValidationIssue] = []
    /// How many of them are errors.
    public private(set) var errorCount = 0
    /// The answer to size violations (`maxBytes`, `maxDecodedBytes`, byte budgets) when a field does not say otherwise.
    public var sizeAnswer: ViolationAnswer {
        switch storedSizeAnswer {
        case .own(let answer): answer
        case .borrowed(let box): box._withUnsafeGuaranteedRef { $0.answer }
        }
    }
    private let storedSizeAnswer: StoredAnswer

    /// Where a context's size answer is: its own copy, or borrowed from a plan that outlives the
    /// context (a copy of an answer whose code is longer than a small string counts a reference
    /// to the code's text, once for every frame checked).
    private enum StoredAnswer: @unchecked Sendable {
        case own(ViolationAnswer)
        /// Unchecked: the box is immutable, and whoever made the context keeps it alive.
        case borrowed(Unmanaged<AnswerBox>)
    }

    public init(sizeAnswer: ViolationAnswer) {
        storedSizeAnswer = .own(sizeAnswer)
    }

    /// A context whose size answer is the one in `box`, which the caller keeps alive for as long as
    /// the context is used.
    init(borrowingSizeAnswer box: Unmanaged<AnswerBox>) {
        storedSizeAnswer = .borrowed(box)
    }

    private init(storedSizeAnswer: StoredAnswer) {
        self.storedSizeAnswer = storedSizeAnswer
    }

    /// Records an issue.
    public mutating func report(_ issue: ValidationIssue) {
        if issue.severity == .error { errorCount += 1 }
        issues.append(issue)
    }

    /// Records an error.
    @inlinable public mutating func fail(_ path: JSONPath, _ rule: String, _ answer: ViolationAnswer, _ message: String) {
        report(ValidationIssue(path: path, rule: rule, answer: answer, message: message))
    }

    // MARK: Presence

    /// Reports a missing required key and a `null` where `null` is not allowed; returns whether
    /// there is a value to check further (the key is present and not `null`).
    @inlinable
    public mutating func check(
        _ presence: MemberPresence, of key: String, at path: @autoclosure () -> JSONPath, required: Bool, nullable: Bool, answer: ViolationAnswer
    ) -> Bool {
        switch presence {
        case .absent:
            if required { fail(path().appending(key), "required", answer, "missing required field '\(key)'") }
            return false
        case .null:
            if !nullable { fail(path().appending(key), "type", answer, "'\(key)' must not be null") }
            return false
        case .present:
            return true
        }
    }

    /// Reports keys an object must not carry, given the object's keys.
    public mutating func checkKeys(
        _ keys: [String], known: Set<String>, rejectUnknown: Bool, rejected: [String], ignoring: String?, at path: @autoclosure () -> JSONPath,
        answer: ViolationAnswer
    ) {
        for key in rejected where keys.contains(key) {
            fail(path().appending(key), "rejectedField", answer, "'\(key)' is not allowed here")
        }
        guard rejectUnknown else { return }
        for key in keys.sorted() where !known.contains(key) && key != ignoring && !rejected.contains(key) {
            fail(path().appending(key), "unknownField", answer, "unknown field '\(key)'")
        }
    }

    // MARK: Kinds

    /// The members of an object value.
    @inlinable
    public mutating func object(_ value: JSONValue, at path: @autoclosure () -> JSONPath, answer: ViolationAnswer) -> [String: JSONValue]? {
        if case .object(let members) = value { return members }
        fail(path(), "type", answer, "expected an object, found \(value.kindDescription)")
        return nil
    }

    /// A boolean value.
    @inlinable
    public mutating func bool(_ value: JSONValue, at path: @autoclosure () -> JSONPath, constant: Bool? = nil, answer: ViolationAnswer) -> Bool? {
        guard case .bool(let flag) = value else {
            fail(path(), "type", answer, "expected a boolean, found \(value.kindDescription)")
            return nil
        }
        if let constant, flag != constant {
            fail(path(), "const", answer, "must be \(constant), found \(flag)")
            return nil
        }
        return flag
    }

    /// A string value and its constraints.
    @inlinable
    public mutating func string(
        _ value: JSONValue, at path: @autoclosure () -> JSONPath, rules: StringRules?, answer: ViolationAnswer, sizeAnswer: ViolationAnswer? = nil
    ) -> String? {
        guard case .string(let text) = value else {
            fail(path(), "type", answer, "expected a string, found \(value.kindDescription)")
            return nil
        }
        guard let rules else { return text }
        return check(text, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer) ? text : nil
    }

    /// Checks a string against its rules; returns whether it passed. `sizeAnswer` answers size
    /// violations; `nil` uses the context's.
    public mutating func check(
        _ text: String, at path: @autoclosure () -> JSONPath, rules: StringRules, answer: ViolationAnswer, sizeAnswer: ViolationAnswer?
    ) -> Bool {
        WireFormats.withUTF8(text) { bytes in
            check(utf8: bytes, text: { text }, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer)
        }
    }

    /// Checks a string given as its UTF-8 bytes against its rules; returns whether it passed.
    /// `text` builds the string only where a rule needs it (patterns, dates, URIs, value lists,
    /// non-ASCII blanks) or an issue quotes it.
    /// `sizeAnswer` answers size violations; `nil` uses the context's.
    public mutating func check(
        utf8 bytes: UnsafeBufferPointer<UInt8>, text: () -> String, at path: @autoclosure () -> JSONPath, rules: StringRules, answer: ViolationAnswer,
        sizeAnswer: ViolationAnswer?
    ) -> Bool {
        // Most strings of a frame pass by their byte count and at most one quick check.
        if rules.surelyPasses(bytes) { return true }
        let before = errorCount
        if let constant = rules.constant, let key = rules.constantKey, !JSONTape.equalBytes(bytes, key.bytes) {
            fail(path(), "const", answer, "must be \(JSONWriter.string(.string(constant))), found \(JSONWriter.string(.string(text())))")
        }
        if let allowed = rules.allowedValues, !allowed.contains(text()) {
            let list = allowed.sorted().map { JSONWriter.string(.string($0)) }.joined(separator: ", ")
            fail(path(), "enum", answer, "\(JSONWriter.string(.string(text()))) is not one of \(list)")
        }
        // A string has at most one scalar per byte and at least one per four bytes: its scalars
        // are counted only when that range reaches past a limit.
        if rules.maxLength.map({ bytes.count > $0 }) ?? false || rules.minLength.map({ (bytes.count + 3) / 4 < $0 }) ?? false {
            let length = WireFormats.scalarCount(bytes)
            if let minimum = rules.minLength, length < minimum {
                fail(path(), "minLength", answer, minimum == 1 ? "must not be empty" : "is \(length) characters, fewer than the \(minimum) required")
            }
            if let maximum = rules.maxLength, length > maximum {
                fail(path(), "maxLength", answer, "is \(length) characters, more than the \(maximum) allowed")
            }
        }
        if let minimum = rules.minBytes, bytes.count < minimum {
            fail(path(), "minBytes", answer, "is \(bytes.count) UTF-8 bytes, fewer than the \(minimum) required")
        }
        if let maximum = rules.maxBytes, bytes.count > maximum {
            fail(path(), "maxBytes", sizeAnswer ?? self.sizeAnswer, "is \(bytes.count) UTF-8 bytes, more than the \(maximum) allowed")
        }
        if rules.notBlank, WireFormats.isBlank(bytes, text: text) {
            fail(path(), "notBlank", answer, bytes.isEmpty ? "must not be empty" : "must not be blank")
        }
        if let prefix = rules.prefix, !WireFormats.hasPrefix(bytes, prefix) {
            fail(path(), "prefix", answer, "must start with '\(prefix)', found \(JSONWriter.string(.string(text())))")
        }
        if let pattern = rules.pattern, !pattern.matches(utf8: bytes, text: text) {
            fail(path(), "pattern", answer, "\(JSONWriter.string(.string(text()))) does not match the pattern \(pattern.source)")
        }
        if let format = rules.format {
            checkFormat(bytes, text: text, format, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer)
        }
        return errorCount == before
    }

    private mutating func checkFormat(
        _ bytes: UnsafeBufferPointer<UInt8>, text: () -> String, _ format: ValueFormat, at path: @autoclosure () -> JSONPath, rules: StringRules,
        answer: ViolationAnswer, sizeAnswer: ViolationAnswer?
    ) {
        let valid: Bool
        switch format {
        case .uuid: valid = WireFormats.isUUID(bytes)
        case .uuidv4: valid = WireFormats.isUUIDv4(bytes)
        case .iso8601: valid = WireFormats.isISO8601DateTime(text())
        case .uri: valid = WireFormats.isAbsoluteURI(text())
        case .epochMillis: valid = false
        case .base64:
            guard let length = WireFormats.decodedBase64Length(bytes: bytes) else {
                valid = false
                break
            }
            valid = true
            if let maximum = rules.maxDecodedBytes, length > maximum {
                fail(path(), "maxDecodedBytes", sizeAnswer ?? self.sizeAnswer, "decodes to \(length) bytes, more than the \(maximum) allowed")
            }
        }
        if !valid {
            let text = text()
            let shown = text.count > 60 ? JSONWriter.string(.string(String(text.prefix(57)))) + "..." : JSONWriter.string(.string(text))
            fail(path(), "format", answer, "\(shown) is not \(format.expectation)")
        }
    }

    /// An integer value (a decimal such as `1.0` is not one) and its constraints.
    @inlinable
    public mutating func integer(_ value: JSONValue, at path: @autoclosure () -> JSONPath, rules: NumberRules?, answer: ViolationAnswer) -> Int? {
        guard case .integer(let number) = value else {
            if case .number(let number) = value, let constant = rules?.constant {
                fail(path(), "const", answer, "must be the integer \(constant), found \(number)")
            } else {
                fail(path(), "type", answer, "expected an integer, found \(value.kindDescription)\(value.doubleValue.map { " (\($0))" } ?? "")")
            }
            return nil
        }
        guard let rules else { return number }
        return check(value, Double(number), at: path(), rules: rules, answer: answer) ? number : nil
    }

    /// A number value (integer or decimal) and its constraints.
    @inlinable
    public mutating func number(_ value: JSONValue, at path: @autoclosure () -> JSONPath, rules: NumberRules?, answer: ViolationAnswer) -> Double? {
        guard let number = value.doubleValue else {
            fail(path(), "type", answer, "expected a number, found \(value.kindDescription)")
            return nil
        }
        guard let rules else { return number }
        return check(value, number, at: path(), rules: rules, answer: answer) ? number : nil
    }

    /// Checks a number against its rules; returns whether it passed.
    public mutating func check(
        _ value: JSONValue, _ number: Double, at path: @autoclosure () -> JSONPath, rules: NumberRules, answer: ViolationAnswer
    ) -> Bool {
        let before = errorCount
        if let constant = rules.constant, constant != value {
            fail(path(), "const", answer, "must be \(constant), found \(value)")
        }
        if let minimum = rules.minimum, number < minimum {
            fail(path(), "minimum", answer, "must be at least \(Self.format(minimum)), found \(value)")
        }
        if let maximum = rules.maximum, number > maximum {
            fail(path(), "maximum", answer, "must be at most \(Self.format(maximum)), found \(value)")
        }
        if rules.format == .epochMillis, !(value.integerValue.map(WireFormats.isEpochMillis) ?? false) {
            fail(path(), "format", answer, "\(value) is not \(ValueFormat.epochMillis.expectation)")
        }
        return errorCount == before
    }

    static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    /// An array value, its item-count constraints and each element. Too many items is a size
    /// violation, answered with `sizeAnswer` (`nil`: the context's).
    @inlinable
    public mutating func array<Element>(
        _ value: JSONValue, at path: @autoclosure () -> JSONPath, rules: CollectionRules?, answer: ViolationAnswer,
        sizeAnswer: ViolationAnswer? = nil,
        element: (JSONValue, _ index: Int, inout ValidationContext) -> Element?
    ) -> [Element]? {
        guard case .array(let items) = value else {
            fail(path(), "type", answer, "expected an array, found \(value.kindDescription)")
            return nil
        }
        let before = errorCount
        if let rules { checkCount(items.count, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer, noun: "items") }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let decoded = element(item, index, &self) { result.append(decoded) }
        }
        return errorCount == before ? result : nil
    }

    /// A map value (an object with arbitrary keys), its entry-count constraints and each value.
    /// Too many entries is a size violation, answered with `sizeAnswer` (`nil`: the context's).
    @inlinable
    public mutating func map<Value>(
        _ value: JSONValue, at path: @autoclosure () -> JSONPath, rules: CollectionRules?, answer: ViolationAnswer,
        sizeAnswer: ViolationAnswer? = nil,
        value decodeValue: (JSONValue, _ key: String, inout ValidationContext) -> Value?
    ) -> [String: Value]? {
        guard case .object(let members) = value else {
            fail(path(), "type", answer, "expected an object, found \(value.kindDescription)")
            return nil
        }
        let before = errorCount
        if let rules { checkCount(members.count, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer, noun: "entries") }
        var result: [String: Value] = [:]
        result.reserveCapacity(members.count)
        for key in members.keys.sorted() {
            if let decoded = decodeValue(members[key]!, key, &self) { result[key] = decoded }
        }
        return errorCount == before ? result : nil
    }

    /// Checks an item or entry count; `maxItems` is a size limit, answered with `sizeAnswer` (`nil`: the context's).
    public mutating func checkCount(
        _ count: Int, at path: @autoclosure () -> JSONPath, rules: CollectionRules, answer: ViolationAnswer, sizeAnswer: ViolationAnswer?,
        noun: String
    ) {
        if let minimum = rules.minItems, count < minimum {
            fail(path(), "minItems", answer, "has \(count) \(noun), fewer than the \(minimum) required")
        }
        if let maximum = rules.maxItems, count > maximum {
            fail(path(), "maxItems", sizeAnswer ?? self.sizeAnswer, "has \(count) \(noun), more than the \(maximum) allowed")
        }
    }

    /// The text of an open enum; a value it does not list is a warning, not an error.
    @inlinable
    public mutating func openEnum(
        _ value: JSONValue, at path: @autoclosure () -> JSONPath, known: Set<String>, typeName: String, answer: ViolationAnswer
    ) -> String? {
        guard case .string(let text) = value else {
            fail(path(), "type", answer, "expected a string, found \(value.kindDescription)")
            return nil
        }
        if !known.contains(text) {
            report(
                ValidationIssue(
                    severity: .warning, path: path(), rule: "unknownEnumValue", answer: answer,
                    message: "\(JSONWriter.string(value)) is not a known \(typeName) value; it is kept as unknown"))
        }
        return text
    }

    // MARK: Rules across fields

    /// Checks a conditional requirement given lookups by position: `conditionValue(i)` is the
    /// value of the key of `requirement.conditions[i]`, and `requiredPresence(i)` and
    /// `forbiddenPresence(i)` say whether `requirement.required[i]` and `requirement.forbidden[i]`
    /// are present, and `expectedValue(i)` is the value of `requirement.expected[i]`'s key, so
    /// callers can find each key once.
    public mutating func check(
        _ requirement: ConditionalRequirement, at path: @autoclosure () -> JSONPath, answer: ViolationAnswer,
        conditionValue: (Int) -> JSONValue?, requiredPresence: (Int) -> MemberPresence, forbiddenPresence: (Int) -> MemberPresence,
        expectedValue: (Int) -> JSONValue?
    ) {
        guard requirement.applies(conditionValue: conditionValue) else { return }
        checkConsequences(
            of: requirement, at: path(), answer: answer, requiredPresence: requiredPresence, forbiddenPresence: forbiddenPresence,
            expectedValue: expectedValue)
    }

    /// Checks what a conditional requirement asks for once its conditions hold (the caller has
    /// decided that they do): its required, forbidden and expected keys, looked up by position as
    /// for ``check(_:at:answer:conditionValue:requiredPresence:forbiddenPresence:expectedValue:)``.
    public mutating func checkConsequences(
        of requirement: ConditionalRequirement, at path: @autoclosure () -> JSONPath, answer: ViolationAnswer,
        requiredPresence: (Int) -> MemberPresence, forbiddenPresence: (Int) -> MemberPresence, expectedValue: (Int) -> JSONValue?
    ) {
        for (position, key) in requirement.required.enumerated() where requiredPresence(position) != .present {
            fail(path().appending(key), "conditional", answer, "missing '\(key)' (required when \(requirement.conditionText))")
        }
        for (position, key) in requirement.forbidden.enumerated() where forbiddenPresence(position) != .absent {
            fail(path().appending(key), "conditional", answer, "'\(key)' is not allowed when \(requirement.conditionText)")
        }
        for (position, expectation) in requirement.expected.enumerated() {
            let value = expectedValue(position).flatMap { $0 == .null ? nil : $0 }
            if let value, expectation.values.contains(value) { continue }
            let wanted = ConditionalRequirement.valuesText(expectation.values)
            fail(
                path().appending(expectation.key), "conditional", answer,
                value.map { "'\(expectation.key)' must be \(wanted) when \(requirement.conditionText), found \(JSONWriter.string($0))" }
                    ?? "missing '\(expectation.key)' (must be \(wanted) when \(requirement.conditionText))")
        }
    }

    /// Checks a byte budget on the object at `index` of a parsed tape.
    public mutating func check(
        _ budget: ByteBudgetRule, in tape: JSONTape.View, object index: Int, at path: @autoclosure () -> JSONPath, answer: ViolationAnswer? = nil
    ) {
        report(budget, total: budget.total(in: tape, object: index), at: path(), answer: answer)
    }

    /// Checks a plan's byte budget on the object at `index`; its answer is read only when the
    /// budget is broken.
    mutating func check(_ budget: ValidationPlan.BudgetPlan, in tape: JSONTape.View, object index: Int, at path: @autoclosure () -> JSONPath) {
        let total = budget.rule.total(in: tape, object: index)
        if total > budget.rule.max { report(budget.rule, total: total, at: path(), answer: budget.answer) }
    }

    private mutating func report(_ budget: ByteBudgetRule, total: Int, at path: @autoclosure () -> JSONPath, answer: ViolationAnswer?) {
        if total > budget.max {
            fail(path(), "budget", answer ?? sizeAnswer, "\(budget.name) totals \(total) bytes, more than the \(budget.max) allowed")
        }
    }

    /// Reports a tag value that selects no case of a union.
    public mutating func unknownTag(_ value: JSONValue, tag: String, at path: @autoclosure () -> JSONPath, allowed: [String], answer: ViolationAnswer)
    {
        fail(path().appending(tag), "enum", answer, "\(JSONWriter.string(value)) is not one of \(allowed.joined(separator: ", "))")
    }

    /// Reports a value that matches no variant of a one-of.
    public mutating func noVariant(_ value: JSONValue, at path: @autoclosure () -> JSONPath, expected: String, answer: ViolationAnswer) {
        fail(path(), "oneOf", answer, "\(value.kindDescription) \(JSONWriter.string(value).prefix(60)) matches none of the variants \(expected)")
    }

    /// Runs checks on a scratch context and returns their result and whether they passed, without
    /// keeping their issues (one-of variants are tried this way).
    public func attempt<T>(_ body: (inout ValidationContext) -> T?) -> T? {
        // The scratch context shares this one's size answer, borrowed or its own.
        var scratch = ValidationContext(storedSizeAnswer: storedSizeAnswer)
        let result = body(&scratch)
        return scratch.errorCount == 0 ? result : nil
    }
}

/// Whether an object carries a key, and whether its value is `null`.
@_spi(Generated) public enum MemberPresence: Sendable {
    case absent
    case null
    case present
}

/// An answer held by reference, so that a validation context can borrow it from its plan.
final class AnswerBox: Sendable {
    let answer: ViolationAnswer
    init(_ answer: ViolationAnswer) { self.answer = answer }
}
