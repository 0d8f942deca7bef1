@_spi(Generated) import WireRuntime
import WireSpec

/// A spec compiled for validation: every field's checks worked out once, as the generator does
/// for generated code, so frames are checked by the same WireRuntime rules without generated code.
final class ValidationPlan: Sendable {
    /// What a value is checked against. A class with the rules as stored properties, so that
    /// checking reads them in place instead of copying them out of an enum.
    final class Node: Sendable {
        enum Kind: Sendable {
            case string, integer, number, boolean, json, array, map
            /// A named object, union, one-of or enum, by index into `named`.
            case named
            /// An enum value that must also equal a constant (`stringRules`), then match `element`.
            case constant
            case unresolved
        }

        let kind: Kind
        let stringRules: StringRules?
        let numberRules: NumberRules?
        let collectionRules: CollectionRules?
        let booleanConstant: Bool?
        /// An array's or map's element; a constant's enum.
        let element: Node?
        /// The index into `named`, for `.named`.
        let named: Int
        /// The kinds a value may have when that is all there is to check, one bit per
        /// `JSONTape.Kind` raw value; 0 when the node has more to check.
        let plainKinds: UInt16

        private init(
            _ kind: Kind, string: StringRules? = nil, number: NumberRules? = nil, collection: CollectionRules? = nil,
            boolean: Bool? = nil, element: Node? = nil, named: Int = -1
        ) {
            self.kind = kind
            stringRules = string
            numberRules = number
            collectionRules = collection
            booleanConstant = boolean
            self.element = element
            self.named = named
            func bits(_ kinds: JSONTape.Kind...) -> UInt16 { kinds.reduce(0) { $0 | 1 << $1.rawValue } }
            switch kind {
            case .string where string == nil: plainKinds = bits(.string)
            case .integer where number == nil: plainKinds = bits(.integer)
            case .number where number == nil: plainKinds = bits(.integer, .number)
            case .boolean where boolean == nil: plainKinds = bits(.true, .false)
            case .json, .unresolved: plainKinds = bits(.null, .false, .true, .integer, .number, .string, .array, .object)
            default: plainKinds = 0
            }
        }

        static func string(_ rules: StringRules?) -> Node { Node(.string, string: rules) }
        static func integer(_ rules: NumberRules?) -> Node { Node(.integer, number: rules) }
        static func number(_ rules: NumberRules?) -> Node { Node(.number, number: rules) }
        static func boolean(constant: Bool?) -> Node { Node(.boolean, boolean: constant) }
        static let json = Node(.json)
        static let unresolved = Node(.unresolved)
        static func array(_ rules: CollectionRules?, _ element: Node) -> Node { Node(.array, collection: rules, element: element) }
        static func map(_ rules: CollectionRules?, _ element: Node) -> Node { Node(.map, collection: rules, element: element) }
        static func named(_ index: Int) -> Node { Node(.named, named: index) }
        static func constant(_ rules: StringRules, _ inner: Node) -> Node { Node(.constant, string: rules, element: inner) }
    }

    /// One field's checks; a class so that walking an object's fields does not copy them.
    final class FieldPlan: Sendable {
        let key: String
        let keyBytes: UTF8Key
        let required: Bool
        let nullable: Bool
        /// The field's own answer; `nil` inherits the caller's.
        let answer: ViolationAnswer?
        let node: Node

        init(key: String, required: Bool, nullable: Bool, answer: ViolationAnswer?, node: Node) {
            self.key = key
            keyBytes = UTF8Key(key)
            self.required = required
            self.nullable = nullable
            self.answer = answer
            self.node = node
        }
    }

    /// A conditional requirement with the positions (in the object's `fields`) of the keys it
    /// reads; -1 for a key that is not a declared field.
    final class ConditionalPlan: Sendable {
        let rule: ConditionalRequirement
        let answer: ViolationAnswer?
        let conditionFields: [Int]
        let requiredFields: [Int]
        let forbiddenFields: [Int]
        let expectedFields: [Int]

        init(rule: ConditionalRequirement, answer: ViolationAnswer?, fields: [FieldPlan]) {
            self.rule = rule
            self.answer = answer
            func position(_ key: String) -> Int { fields.firstIndex { $0.key == key } ?? -1 }
            conditionFields = rule.conditions.map { position($0.key) }
            requiredFields = rule.required.map(position)
            forbiddenFields = rule.forbidden.map(position)
            expectedFields = rule.expected.map { position($0.key) }
        }
    }

    /// A field's key and presence rules as plain values; the key's bytes belong to its `FieldPlan`.
    struct QuickField {
        let keyUTF8: UnsafeBufferPointer<UInt8>
        let signature: UInt64
        let plainKinds: UInt16
        let required: Bool
        let nullable: Bool
    }

    /// An object's checks; a class so that it is shared, not copied, while frames are checked.
    /// Immutable; unchecked only because `quickFields` hold pointers to the fields' key bytes.
    final class ObjectPlan: @unchecked Sendable {
        let fields: [FieldPlan]
        /// What a walk over the fields reads for every field, without reference counting; aligned with `fields`.
        let quickFields: [QuickField]
        let conditionals: [ConditionalPlan]
        let budgets: [(rule: ByteBudgetRule, answer: ViolationAnswer?)]
        let knownKeys: Set<String>
        let rejectUnknown: Bool
        let rejected: [String]

        init(
            fields: [FieldPlan], conditionals: [(rule: ConditionalRequirement, answer: ViolationAnswer?)],
            budgets: [(rule: ByteBudgetRule, answer: ViolationAnswer?)], knownKeys: Set<String>, rejectUnknown: Bool, rejected: [String]
        ) {
            self.fields = fields
            quickFields = fields.map {
                QuickField(
                    keyUTF8: $0.keyBytes.bytes, signature: JSONTape.keySignature($0.keyBytes.bytes), plainKinds: $0.node.plainKinds,
                    required: $0.required, nullable: $0.nullable)
            }
            self.conditionals = conditionals.map { ConditionalPlan(rule: $0.rule, answer: $0.answer, fields: fields) }
            self.budgets = budgets
            self.knownKeys = knownKeys
            self.rejectUnknown = rejectUnknown
            self.rejected = rejected
        }
    }

    enum NamedPlan: Sendable {
        case object(ObjectPlan)
        case closedEnum(allowed: [String], keys: [UTF8Key])
        case openEnum(name: String, known: Set<String>, keys: [UTF8Key])
        case union(tag: String, cases: [(value: JSONValue, plan: Int)], open: Bool, typeName: String)
        case oneOf(variants: [Node], expected: String)
    }

    /// A message's checks and identity; a class so that it is shared, not copied.
    final class MessagePlan: Sendable {
        /// The message's index in `messages`.
        let id: Int
        let ref: MessageRef
        let tagKey: UTF8Key
        let answer: ViolationAnswer
        /// The message's fields; empty for a union message.
        let object: ObjectPlan
        /// For a union message, the index of its union plan in `named`.
        let variants: Int?

        var tag: String { ref.tag }

        init(id: Int, ref: MessageRef, answer: ViolationAnswer, object: ObjectPlan, variants: Int?) {
            self.id = id
            self.ref = ref
            tagKey = UTF8Key(ref.tag)
            self.answer = answer
            self.object = object
            self.variants = variants
        }
    }

    let spec: ProtocolSpec
    let named: [NamedPlan]
    /// Every message of both directions; a message's `id` is its index.
    let messages: [MessagePlan]
    /// The ids of each direction's messages.
    let client: [Int]
    let server: [Int]
    /// The tag field's key.
    let tagKey: UTF8Key
    let defaultAnswer: ViolationAnswer
    let sizeAnswer: ViolationAnswer
    let notJSONAnswer: ViolationAnswer
    let notAFrameAnswer: ViolationAnswer

    /// The ids of a direction's messages.
    func ids(_ direction: Direction) -> [Int] { direction == .client ? client : server }

    /// The id of the message of `direction` whose tag is the string token at `index`.
    func message(_ direction: Direction, tagAt index: Int, in tape: JSONTape.View) -> Int? {
        for id in ids(direction) where tape.stringEquals(index, messages[id].tagKey.bytes) { return id }
        return nil
    }

    /// The id of the message of `direction` with this tag.
    func message(_ direction: Direction, tag: String) -> Int? {
        ids(direction).first { messages[$0].tag == tag }
    }

    init(spec: ProtocolSpec) {
        self.spec = spec
        let answer = spec.resolved
        defaultAnswer = answer(Answer(errorCode: spec.defaultErrorCode))
        sizeAnswer = answer(Answer(errorCode: spec.sizeErrorCode))
        notJSONAnswer = answer(spec.notJSONAnswer)
        notAFrameAnswer = answer(spec.notAFrameAnswer)

        var builder = Builder(spec: spec, answer: answer)
        var messages: [MessagePlan] = []
        var ids: [Direction: [Int]] = [:]
        for direction in Direction.allCases {
            for message in spec.messages(direction) {
                let object = builder.objectPlan(message.shape)
                let variants = message.variants.map { builder.unionIndex($0, typeName: message.tag) }
                ids[direction, default: []].append(messages.count)
                messages.append(
                    MessagePlan(
                        id: messages.count, ref: MessageRef(direction: direction, tag: message.tag),
                        answer: message.violation.map(answer) ?? defaultAnswer, object: object, variants: variants
                    ))
            }
        }
        self.messages = messages
        client = ids[.client] ?? []
        server = ids[.server] ?? []
        tagKey = UTF8Key(spec.tagField)
        named = builder.named
    }

    /// Compiles model types into plans; named types get one plan each, shared by every use.
    private struct Builder {
        let spec: ProtocolSpec
        let answer: (Answer) -> ViolationAnswer
        var named: [NamedPlan] = []
        var indexes: [String: Int] = [:]

        init(spec: ProtocolSpec, answer: @escaping (Answer) -> ViolationAnswer) {
            self.spec = spec
            self.answer = answer
        }

        mutating func objectPlan(_ shape: ObjectShape) -> ObjectPlan {
            let fields = shape.fields.map { field in
                FieldPlan(
                    key: field.name, required: field.required, nullable: field.nullable,
                    answer: field.violation.map(answer), node: node(field.type, field.constraints)
                )
            }
            var conditionals: [(ConditionalRequirement, ViolationAnswer?)] = []
            var budgets: [(ByteBudgetRule, ViolationAnswer?)] = []
            for rule in shape.rules {
                switch rule {
                case .conditional(let rule):
                    let conditions = rule.when.map { (key: $0.field, values: $0.values.map(JSONValue.init(spec:))) }
                    let expected = rule.then.map { (key: $0.field, values: $0.values.map(JSONValue.init(spec:))) }
                    let requirement = ConditionalRequirement(when: conditions, require: rule.require, forbid: rule.forbid, expect: expected)
                    conditionals.append((requirement, rule.violation.map(answer)))
                case .byteBudget(let budget):
                    let terms = budget.paths.map {
                        ByteBudgetRule.Term(keys: $0.split(separator: ".").map(String.init), decoded: spec.budgetPathIsBase64($0, in: shape))
                    }
                    budgets.append((ByteBudgetRule(name: budget.name, terms: terms, max: budget.max), budget.violation.map(answer)))
                }
            }
            return ObjectPlan(
                fields: fields, conditionals: conditionals, budgets: budgets, knownKeys: Set(shape.fields.map(\.name)),
                rejectUnknown: shape.unknownFields == .reject, rejected: shape.rejectFields
            )
        }

        mutating func node(_ type: TypeRef, _ own: Constraints) -> Node {
            let (resolved, aliasConstraints) = spec.resolve(type)
            let c = own.merged(over: aliasConstraints)
            switch resolved {
            case .string: return .string(RuleValues.string(c))
            case .integer: return .integer(RuleValues.number(c))
            case .number: return .number(RuleValues.number(c))
            case .boolean:
                if case .bool(let flag)? = c.const { return .boolean(constant: flag) }
                return .boolean(constant: nil)
            case .json: return .json
            case .array(let element): return .array(RuleValues.collection(c), node(element, Constraints()))
            case .map(let element): return .map(RuleValues.collection(c), node(element, Constraints()))
            case .enumeration(let name, _), .object(let name, _), .union(let name, _), .oneOf(let name, _):
                let base = Node.named(namedIndex(name))
                if case .enumeration = resolved, case .string(let constant)? = c.const {
                    return .constant(StringRules(constant: constant), base)
                }
                return base
            case .unresolved: return .unresolved
            }
        }

        /// A plan for a union that is not a named type (a union message's body).
        mutating func unionIndex(_ union: UnionType, typeName: String) -> Int {
            let cases = union.cases.map { (value: JSONValue(spec: $0.tagValue), plan: namedIndex($0.type)) }
            named.append(.union(tag: union.tag, cases: cases, open: union.open, typeName: typeName))
            return named.count - 1
        }

        mutating func namedIndex(_ name: String) -> Int {
            if let index = indexes[name] { return index }
            let index = named.count
            indexes[name] = index
            named.append(.closedEnum(allowed: [], keys: []))  // placeholder while a recursive type is compiled
            guard let type = spec.type(named: name) else { return index }
            let plan: NamedPlan
            switch type.kind {
            case .object(let shape): plan = .object(objectPlan(shape))
            case .enumeration(let values):
                let list = values.values.map(\.value)
                let keys = list.map(UTF8Key.init)
                plan = values.open ? .openEnum(name: name, known: Set(list), keys: keys) : .closedEnum(allowed: list, keys: keys)
            case .union(let union):
                let cases = union.cases.map { (value: JSONValue(spec: $0.tagValue), plan: namedIndex($0.type)) }
                plan = .union(tag: union.tag, cases: cases, open: union.open, typeName: name)
            case .oneOf(let oneOf):
                plan = .oneOf(
                    variants: oneOf.variants.map { node($0.type, $0.constraints) }, expected: oneOf.variants.map(\.name).joined(separator: ", "))
            case .alias(let alias):
                // Aliases are resolved where they are used; a plan for one is never looked up.
                plan = .oneOf(variants: [node(alias.type, alias.constraints)], expected: name)
            }
            named[index] = plan
            return index
        }
    }
}

/// Runtime rule values from spec constraints: the same mapping the generator writes as code.
enum RuleValues {
    static func string(_ c: Constraints) -> StringRules? {
        let rules = StringRules(
            minLength: c.minLength, maxLength: c.maxLength, minBytes: c.minBytes, maxBytes: c.maxBytes, notBlank: c.notBlank,
            prefix: c.prefix, pattern: c.pattern.map(WirePattern.init), format: c.format.flatMap { ValueFormat(rawValue: $0.rawValue) },
            maxDecodedBytes: c.maxDecodedBytes, constant: c.const.flatMap { if case .string(let text) = $0 { return text } else { return nil } }
        )
        let empty =
            c.minLength == nil && c.maxLength == nil && c.minBytes == nil && c.maxBytes == nil && !c.notBlank && c.prefix == nil
            && c.pattern == nil && c.format == nil && c.maxDecodedBytes == nil && rules.constant == nil
        return empty ? nil : rules
    }

    static func number(_ c: Constraints) -> NumberRules? {
        guard c.minimum != nil || c.maximum != nil || c.format != nil || c.const != nil else { return nil }
        return NumberRules(
            minimum: c.minimum, maximum: c.maximum, format: c.format.flatMap { ValueFormat(rawValue: $0.rawValue) },
            constant: c.const.map(JSONValue.init(spec:)))
    }

    static func collection(_ c: Constraints) -> CollectionRules? {
        guard c.minItems != nil || c.maxItems != nil else { return nil }
        return CollectionRules(minItems: c.minItems, maxItems: c.maxItems)
    }
}
