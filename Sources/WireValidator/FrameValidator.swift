import WireRuntime
import WireSpec

/// Checks frames against a spec with the WireRuntime rules generated code uses, for any spec and
/// without generated code: the engine behind `wire validate`.
public struct FrameValidator: Sendable {
    /// The outcome of checking one frame.
    public enum Outcome: Sendable {
        /// Bytes that are not JSON.
        case notJSON(JSONSyntaxError)
        /// JSON that is not an object or has no string tag.
        case notAFrame(String)
        /// A tag this direction does not have.
        case unknownType(tag: String, object: [String: JSONValue])
        /// A frame of a known message: every issue, errors and warnings (none when it is valid).
        case checked(tag: String, object: [String: JSONValue], issues: [ValidationIssue])
    }

    private let plan: ValidationPlan

    /// Compiles the spec's checks once.
    public init(spec: ProtocolSpec) {
        plan = ValidationPlan(spec: spec)
    }

    public var spec: ProtocolSpec { plan.spec }

    /// The answer to a frame that is not JSON or not a frame.
    public var malformedFrameAnswer: ViolationAnswer { plan.malformedAnswer }
    /// The answer to a frame of an unknown type, and the default answer.
    public var defaultAnswer: ViolationAnswer { plan.defaultAnswer }

    /// Whether a direction has a message with this tag.
    public func knows(_ tag: String, _ direction: Direction) -> Bool { plan.messages[direction]?[tag] != nil }

    /// The direction of a frame from its tag, when exactly one direction has the tag.
    public func direction(ofTag tag: String) -> Direction? {
        let directions = Direction.allCases.filter { knows(tag, $0) }
        return directions.count == 1 ? directions[0] : nil
    }

    /// Checks UTF-8 JSON bytes as a frame of `direction`.
    public func check(_ bytes: some Collection<UInt8>, direction: Direction) -> Outcome {
        do {
            return check(json: try JSONParser.parse(bytes), direction: direction)
        } catch {
            return .notJSON(error)
        }
    }

    /// Checks a parsed value as a frame of `direction`.
    public func check(json: JSONValue, direction: Direction) -> Outcome {
        guard case .object(let object) = json else { return .notAFrame("a frame must be a JSON object, found \(json.kindDescription)") }
        let tagField = plan.spec.tagField
        guard let tagValue = object[tagField] else { return .notAFrame("a frame must carry a '\(tagField)' field") }
        guard case .string(let tag) = tagValue else { return .notAFrame("'\(tagField)' must be a string, found \(tagValue.kindDescription)") }
        guard let message = plan.messages[direction]?[tag] else { return .unknownType(tag: tag, object: object) }
        var context = ValidationContext(sizeAnswer: plan.sizeAnswer)
        check(object: object, plan: message.object, at: .root, in: &context, answer: message.answer, ignoring: tagField)
        return .checked(tag: tag, object: object, issues: context.issues)
    }

    // MARK: Interpreting a plan (the same order of checks as generated decoders)

    private func check(object: [String: JSONValue], plan objectPlan: ValidationPlan.ObjectPlan, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer, ignoring: String?) {
        for field in objectPlan.fields {
            let fieldAnswer = field.answer ?? answer
            if !field.required && field.nullable {
                guard let value = object[field.key], value != .null else { continue }
                check(value, field.node, at: path().appending(field.key), in: &context, answer: fieldAnswer, sizeAnswer: field.answer)
                continue
            }
            if let value = context.member(object, field.key, at: path(), required: field.required, nullable: field.nullable, answer: fieldAnswer) {
                check(value, field.node, at: path().appending(field.key), in: &context, answer: fieldAnswer, sizeAnswer: field.answer)
            }
        }
        for (rule, ruleAnswer) in objectPlan.conditionals {
            context.check(rule, in: object, at: path(), answer: ruleAnswer ?? answer)
        }
        for (rule, ruleAnswer) in objectPlan.budgets {
            context.check(rule, in: object, at: path(), answer: ruleAnswer)
        }
        if objectPlan.rejectUnknown || !objectPlan.rejected.isEmpty {
            context.checkKeys(object, known: objectPlan.rejectUnknown ? objectPlan.knownKeys : [], rejectUnknown: objectPlan.rejectUnknown, rejected: objectPlan.rejected, ignoring: ignoring, at: path(), answer: answer)
        }
    }

    private func check(_ value: JSONValue, _ node: ValidationPlan.Node, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer, sizeAnswer: ViolationAnswer?) {
        switch node {
        case .string(let rules):
            _ = context.string(value, at: path(), rules: rules, answer: answer, sizeAnswer: sizeAnswer)
        case .integer(let rules):
            _ = context.integer(value, at: path(), rules: rules, answer: answer)
        case .number(let rules):
            _ = context.number(value, at: path(), rules: rules, answer: answer)
        case .boolean(let constant):
            _ = context.bool(value, at: path(), constant: constant, answer: answer)
        case .json, .unresolved:
            break
        case .array(let rules, let element):
            _ = context.array(value, at: path(), rules: rules, answer: answer) { item, index, context -> Bool? in
                check(item, element, at: path().appending(index), in: &context, answer: answer, sizeAnswer: sizeAnswer)
                return true
            }
        case .map(let rules, let element):
            _ = context.map(value, at: path(), rules: rules, answer: answer) { item, key, context -> Bool? in
                check(item, element, at: path().appending(key), in: &context, answer: answer, sizeAnswer: sizeAnswer)
                return true
            }
        case .constant(let rules, let inner):
            if context.string(value, at: path(), rules: rules, answer: answer) != nil {
                check(value, inner, at: path(), in: &context, answer: answer, sizeAnswer: sizeAnswer)
            }
        case .named(let index):
            check(value, named: index, at: path(), in: &context, answer: answer, ignoring: nil)
        }
    }

    private func check(_ value: JSONValue, named index: Int, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer, ignoring: String?) {
        switch plan.named[index] {
        case .object(let objectPlan):
            guard let object = context.object(value, at: path(), answer: answer) else { return }
            check(object: object, plan: objectPlan, at: path(), in: &context, answer: answer, ignoring: ignoring)
        case .closedEnum(let allowed, let set):
            guard case .string(let text) = value else {
                context.fail(path(), "type", answer, "expected a string, found \(value.kindDescription)")
                return
            }
            if !set.contains(text) {
                context.fail(path(), "enum", answer, "\(JSONWriter.string(value)) is not one of \(allowed.map { JSONWriter.string(.string($0)) }.joined(separator: ", "))")
            }
        case .openEnum(let name, let known):
            _ = context.openEnum(value, at: path(), known: known, typeName: name, answer: answer)
        case .union(let tag, let cases, let open, let typeName):
            guard let object = context.object(value, at: path(), answer: answer) else { return }
            guard let tagValue = object[tag] else {
                context.fail(path().appending(tag), "required", answer, "missing required field '\(tag)'")
                return
            }
            if let match = cases.first(where: { $0.value == tagValue }) {
                check(value, named: match.plan, at: path(), in: &context, answer: answer, ignoring: tag)
            } else if open {
                context.report(ValidationIssue(severity: .warning, path: path().appending(tag), rule: "unknownCase", answer: answer, message: "\(tagValue) is not a known \(typeName) case; it is kept as unknown"))
            } else {
                context.unknownTag(tagValue, tag: tag, at: path(), allowed: cases.map { JSONWriter.string($0.value) }, answer: answer)
            }
        case .oneOf(let variants, let expected):
            for variant in variants {
                let passed = context.attempt { scratch -> Bool? in
                    check(value, variant, at: path(), in: &scratch, answer: answer, sizeAnswer: nil)
                    return true
                }
                if passed != nil { return }
            }
            context.noVariant(value, at: path(), expected: expected, answer: answer)
        }
    }
}
