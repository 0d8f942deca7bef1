/// A protocol's frame checks as data: every field's rules worked out once. One engine
/// (``check(_:at:direction:)``) walks a parsed frame against it; generated code holds the plan of
/// its protocol, and `wire validate` builds the same plan from a spec at run time.
///
/// Immutable. Its `Sendable` conformance is unchecked only because the walk reads some of its
/// tables through buffers it owns (see `ownedBuffer(_:)`), which the compiler cannot see into.
@_spi(Generated) public final class ValidationPlan: @unchecked Sendable {
    /// What a value is checked against. A class with the rules as stored properties, so that
    /// checking reads them in place instead of copying them out of an enum.
    public final class Node: Sendable {
        public enum Kind: Sendable {
            case string, integer, number, boolean, json, array, map
            /// A named object, union, one-of or enum, by index into `named`.
            case named
            /// An enum value that must also equal a constant (`stringRules`), then match `element`.
            case constant
            case unresolved
        }

        public let kind: Kind
        public let stringRules: StringRules?
        public let numberRules: NumberRules?
        public let collectionRules: CollectionRules?
        public let booleanConstant: Bool?
        /// An array's or map's element; a constant's enum.
        public let element: Node?
        /// A map's key, when the spec gives its keys a type (`map<K, V>`); `nil` for any string.
        public let key: Node?
        /// The index into `named`, for `.named`.
        public let named: Int
        /// The kinds a value may have when that is all there is to check, one bit per
        /// `JSONTape.Kind` raw value; 0 when the node has more to check.
        public let plainKinds: UInt16
        /// `stringRules` and `numberRules`, borrowed (this node keeps them) so that checking a value
        /// against them counts no reference.
        let stringRulesRef: Unmanaged<StringRules>?
        let numberRulesRef: Unmanaged<NumberRules>?

        private init(
            _ kind: Kind, string: StringRules? = nil, number: NumberRules? = nil, collection: CollectionRules? = nil,
            boolean: Bool? = nil, element: Node? = nil, key: Node? = nil, named: Int = -1
        ) {
            self.key = key
            self.kind = kind
            stringRules = string
            numberRules = number
            stringRulesRef = string.map { .passUnretained($0) }
            numberRulesRef = number.map { .passUnretained($0) }
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

        public static func string(_ rules: StringRules?) -> Node { Node(.string, string: rules) }
        public static func integer(_ rules: NumberRules?) -> Node { Node(.integer, number: rules) }
        public static func number(_ rules: NumberRules?) -> Node { Node(.number, number: rules) }
        public static func boolean(constant: Bool?) -> Node { Node(.boolean, boolean: constant) }
        public static let json = Node(.json)
        public static let unresolved = Node(.unresolved)
        public static func array(_ rules: CollectionRules?, _ element: Node) -> Node { Node(.array, collection: rules, element: element) }
        public static func map(_ rules: CollectionRules?, _ element: Node) -> Node { Node(.map, collection: rules, element: element) }
        /// A map whose keys are checked against `key` (a string node or a named string type).
        public static func map(_ rules: CollectionRules?, key: Node, _ element: Node) -> Node {
            Node(.map, collection: rules, element: element, key: key)
        }
        public static func named(_ index: Int) -> Node { Node(.named, named: index) }
        public static func constant(_ rules: StringRules, _ inner: Node) -> Node { Node(.constant, string: rules, element: inner) }
    }

    /// One field's checks; a class so that walking an object's fields does not copy them.
    public final class FieldPlan: Sendable {
        public let key: String
        public let keyBytes: UTF8Key
        public let required: Bool
        public let nullable: Bool
        /// The field's own answer; `nil` inherits the caller's.
        public let answer: ViolationAnswer?
        public let node: Node

        public init(key: String, required: Bool, nullable: Bool, answer: ViolationAnswer?, node: Node) {
            self.key = key
            keyBytes = UTF8Key(key)
            self.required = required
            self.nullable = nullable
            self.answer = answer
            self.node = node
        }
    }

    /// A byte budget of an object and its answer, held in a class so that checking an object
    /// borrows it in place: copying the rule and its answer out of the plan's list counted
    /// references to its strings and its terms' key lists for every object checked.
    final class BudgetPlan: Sendable {
        let rule: ByteBudgetRule
        let answer: ViolationAnswer?

        init(rule: ByteBudgetRule, answer: ViolationAnswer?) {
            self.rule = rule
            self.answer = answer
        }
    }

    /// A conditional requirement with the positions (in the object's `fields`) of the keys it
    /// reads; -1 for a key that is not a declared field.
    public final class ConditionalPlan: @unchecked Sendable {
        public let rule: ConditionalRequirement
        public let answer: ViolationAnswer?
        /// Whether the rule has an answer of its own: read here, because testing `answer` for `nil`
        /// copies the answer.
        let hasOwnAnswer: Bool
        public let conditionFields: [Int]
        /// Each condition's values, then each expectation's (`then`), in the form a parsed frame is
        /// compared with in place.
        let matchValues: [[ValueMatch]]
        /// What deciding whether the rule applies reads for each condition, as plain values in a
        /// buffer the plan owns (unchecked `Sendable` for these pointers; immutable).
        let quickConditions: UnsafeBufferPointer<QuickCondition>
        /// What deciding whether an applying rule holds reads for each expectation, the same way.
        let quickExpectations: UnsafeBufferPointer<QuickCondition>
        /// The positions of the fields the rule requires and of those it forbids (-1: not declared).
        let quickRequired: UnsafeBufferPointer<Int>
        let quickForbidden: UnsafeBufferPointer<Int>
        /// The values of every condition and expectation, each one's range of them named by its
        /// `QuickCondition`.
        let quickMatches: UnsafeBufferPointer<QuickMatch>
        public let requiredFields: [Int]
        public let forbiddenFields: [Int]
        public let expectedFields: [Int]

        public init(rule: ConditionalRequirement, answer: ViolationAnswer?, fields: [FieldPlan]) {
            self.rule = rule
            self.answer = answer
            hasOwnAnswer = answer != nil
            func position(_ key: String) -> Int { fields.firstIndex { $0.key == key } ?? -1 }
            conditionFields = rule.conditions.map { position($0.key) }
            requiredFields = rule.required.map(position)
            forbiddenFields = rule.forbidden.map(position)
            expectedFields = rule.expected.map { position($0.key) }
            matchValues = (rule.conditions.map(\.values) + rule.expected.map(\.values)).map { $0.map(ValueMatch.init) }
            var quick: [QuickCondition] = []
            var matches: [QuickMatch] = []
            for (list, values) in matchValues.enumerated() {
                let start = matches.count
                for (index, match) in values.enumerated() { matches.append(match.quick(list: list, index: index)) }
                let field = list < conditionFields.count ? conditionFields[list] : expectedFields[list - conditionFields.count]
                quick.append(QuickCondition(field: field, matches: start..<matches.count))
            }
            quickConditions = ownedBuffer(Array(quick[..<conditionFields.count]))
            quickExpectations = ownedBuffer(Array(quick[conditionFields.count...]))
            quickMatches = ownedBuffer(matches)
            quickRequired = ownedBuffer(requiredFields)
            quickForbidden = ownedBuffer(forbiddenFields)
        }

        deinit {
            quickConditions.deallocate()
            quickExpectations.deallocate()
            quickMatches.deallocate()
            quickRequired.deallocate()
            quickForbidden.deallocate()
        }
    }

    /// One condition (or expectation) of a conditional rule as plain values: the position of the
    /// field it reads (-1 when the key is not a declared field) and its range of the rule's
    /// `quickMatches`.
    struct QuickCondition {
        let field: Int
        let matches: Range<Int>
    }

    /// A condition's value as a plain value: a string's bytes (owned by the rule's `ValueMatch`),
    /// a kind (`null`, the booleans), or the position of a number or container among the rule's
    /// `matchValues`, compared as a value.
    enum QuickMatch {
        case bytes(UnsafeBufferPointer<UInt8>)
        case kind(JSONTape.Kind)
        case value(list: Int, index: Int)
    }

    /// A value a rule compares a member with, in the form a tape compares in place: a string by
    /// its bytes, `null` and the booleans by their kind; numbers and containers as values.
    enum ValueMatch: Sendable {
        case string(UTF8Key)
        case kind(JSONTape.Kind)
        case value(JSONValue)

        init(_ value: JSONValue) {
            switch value {
            case .string(let text): self = .string(UTF8Key(text))
            case .null: self = .kind(.null)
            case .bool(let flag): self = .kind(flag ? .true : .false)
            default: self = .value(value)
            }
        }

        /// The match as a plain value, for a match that is element `index` of list `list` of its
        /// owner's matches (which keep a string's bytes alive).
        func quick(list: Int, index: Int) -> QuickMatch {
            switch self {
            case .string(let key): .bytes(key.bytes)
            case .kind(let kind): .kind(kind)
            case .value: .value(list: list, index: index)
            }
        }
    }

    /// A field's key and presence rules as plain values; the key's bytes belong to its `FieldPlan`.
    struct QuickField {
        let keyUTF8: UnsafeBufferPointer<UInt8>
        let signature: UInt64
        let plainKinds: UInt16
        let required: Bool
        let nullable: Bool
        /// Whether the field has an answer of its own (rather than inheriting the caller's): read
        /// here, because testing `FieldPlan.answer` for `nil` copies the answer.
        let hasOwnAnswer: Bool
        /// The field's node, which its `FieldPlan` keeps alive: borrowed by the walk without
        /// counting the reference.
        let node: Unmanaged<Node>
        /// The field's plan, which the object's `fields` keep alive: borrowed the same way.
        let plan: Unmanaged<FieldPlan>
        /// The string rules of a field of the string kind (its node's), borrowed the same way: a
        /// string that surely passes them (``StringRules/surelyPasses(_:)``) is done in the walk.
        let stringRules: Unmanaged<StringRules>?
        /// The number rules of a field of the integer or number kind, borrowed the same way: an
        /// integer that surely passes them is done in the walk.
        let numberRules: Unmanaged<NumberRules>?
        /// The named type of a field of the named kind (its position in the plan's `named`), or -1:
        /// a string that is one of a named enumeration's values is done in the walk.
        let named: Int
    }

    /// An object's checks; a class so that it is shared, not copied, while frames are checked.
    /// Immutable; unchecked only because `quickFields` hold pointers to the fields' key bytes.
    public final class ObjectPlan: @unchecked Sendable {
        public let fields: [FieldPlan]
        /// What a walk over the fields reads for every field, without reference counting; aligned with `fields`.
        ///
        /// This and the other tables the walk reads are buffers the plan owns (freed with it), not
        /// arrays: reading an array held by a class counts a reference to its storage on every
        /// object checked, which is a measurable share of checking a frame.
        let quickFields: UnsafeBufferPointer<QuickField>
        /// The positions of `fields` in the order of their keys' UTF-8 bytes: the order canonical
        /// JSON writes members in, so that looking the fields up in it moves the tape's cursor
        /// forward one member at a time.
        let lookupOrder: UnsafeBufferPointer<Int>
        public let conditionals: [ConditionalPlan]
        /// `conditionals`, borrowed without counting references to them.
        let quickConditionals: UnsafeBufferPointer<Unmanaged<ConditionalPlan>>
        public let budgets: [(rule: ByteBudgetRule, answer: ViolationAnswer?)]
        /// `budgets`, as plans the object owns, borrowed without counting references to them.
        let budgetPlans: [BudgetPlan]
        let quickBudgets: UnsafeBufferPointer<Unmanaged<BudgetPlan>>
        public let knownKeys: Set<String>
        public let rejectUnknown: Bool
        public let rejected: [String]
        /// `rejected` as UTF-8 keys, looked up in a frame without building a string for each.
        let rejectedKeys: [UTF8Key]
        /// Whether the object has byte budgets, and whether its keys are checked (unknown or
        /// rejected keys): read here, so that an object with neither reads neither array.
        let hasBudgets: Bool
        let checksKeys: Bool
        /// The fields' keys by signature slot: positions in `fields`.
        let keySlots: KeySlotIndex

        public init(
            fields: [FieldPlan], conditionals: [(rule: ConditionalRequirement, answer: ViolationAnswer?)],
            budgets: [(rule: ByteBudgetRule, answer: ViolationAnswer?)], knownKeys: Set<String>, rejectUnknown: Bool, rejected: [String]
        ) {
            self.fields = fields
            quickFields = ownedBuffer(
                fields.map {
                    QuickField(
                        keyUTF8: $0.keyBytes.bytes, signature: JSONTape.keySignature($0.keyBytes.bytes), plainKinds: $0.node.plainKinds,
                        required: $0.required, nullable: $0.nullable, hasOwnAnswer: $0.answer != nil,
                        node: .passUnretained($0.node), plan: .passUnretained($0),
                        stringRules: $0.node.kind == .string ? $0.node.stringRulesRef : nil,
                        numberRules: $0.node.kind == .integer || $0.node.kind == .number ? $0.node.numberRulesRef : nil,
                        named: $0.node.kind == .named ? $0.node.named : -1)
                })
            lookupOrder = ownedBuffer(fields.indices.sorted { fields[$0].key.utf8.lexicographicallyPrecedes(fields[$1].key.utf8) })
            keySlots = KeySlotIndex(fields.map(\.keyBytes.bytes))
            let conditionals = conditionals.map { ConditionalPlan(rule: $0.rule, answer: $0.answer, fields: fields) }
            self.conditionals = conditionals
            quickConditionals = ownedBuffer(conditionals.map { .passUnretained($0) })
            self.budgets = budgets
            let budgetPlans = budgets.map { BudgetPlan(rule: $0.rule, answer: $0.answer) }
            self.budgetPlans = budgetPlans
            quickBudgets = ownedBuffer(budgetPlans.map { .passUnretained($0) })
            self.knownKeys = knownKeys
            self.rejectUnknown = rejectUnknown
            self.rejected = rejected
            rejectedKeys = rejected.map(UTF8Key.init)
            hasBudgets = !budgets.isEmpty
            checksKeys = rejectUnknown || !rejected.isEmpty
        }

        deinit {
            quickFields.deallocate()
            lookupOrder.deallocate()
            keySlots.deallocate()
            quickConditionals.deallocate()
            quickBudgets.deallocate()
        }
    }

    public enum NamedPlan: Sendable {
        case object(ObjectPlan)
        case closedEnum(allowed: [String], keys: [UTF8Key])
        case openEnum(name: String, known: Set<String>, keys: [UTF8Key])
        case union(tag: String, cases: [(value: JSONValue, plan: Int)], open: Bool, typeName: String)
        case oneOf(variants: [Node], expected: String)

        /// A closed string enumeration of `allowed`.
        public static func enumeration(allowed: [String]) -> NamedPlan { .closedEnum(allowed: allowed, keys: allowed.map(UTF8Key.init)) }

        /// An open string enumeration named `name` that knows `known` (in that order).
        public static func openEnumeration(name: String, known: [String]) -> NamedPlan {
            .openEnum(name: name, known: Set(known), keys: known.map(UTF8Key.init))
        }
    }

    /// A message's checks and identity; a class so that it is shared, not copied.
    public final class MessagePlan: Sendable {
        /// The message's index in `messages`.
        public let id: Int
        public let ref: FrameKey
        public let tagKey: UTF8Key
        public let answer: ViolationAnswer
        /// The message's fields; empty for a union message.
        public let object: ObjectPlan
        /// For a union message, the index of its union plan in `named`.
        public let variants: Int?

        public var tag: String { ref.tag }

        public init(id: Int, ref: FrameKey, answer: ViolationAnswer, object: ObjectPlan, variants: Int?) {
            self.id = id
            self.ref = ref
            tagKey = UTF8Key(ref.tag)
            self.answer = answer
            self.object = object
            self.variants = variants
        }
    }

    /// The key that names a frame's message (`type`).
    public let tagField: String
    public let named: [NamedPlan]
    /// Every message of both directions; a message's `id` is its index.
    public let messages: [MessagePlan]
    /// The ids of each direction's messages.
    public let client: [Int]
    public let server: [Int]
    /// The tag field's key.
    public let tagKey: UTF8Key
    public let defaultAnswer: ViolationAnswer
    /// The answer to size violations when a field does not say otherwise.
    public var sizeAnswer: ViolationAnswer { sizeAnswerBox.answer }
    /// The size answer in a box the plan keeps, which each frame's validation context borrows.
    private let sizeAnswerBox: AnswerBox
    let sizeAnswerRef: Unmanaged<AnswerBox>
    public let notJSONAnswer: ViolationAnswer
    public let notAFrameAnswer: ViolationAnswer

    /// The ids of a direction's messages.
    public func ids(_ direction: FrameDirection) -> [Int] { direction == .client ? client : server }

    /// Each direction's tags by signature slot: positions in `client` and `server`.
    let clientTags: KeySlotIndex
    let serverTags: KeySlotIndex
    /// `client` and `server`, read without reference counting.
    let clientIDs: UnsafeBufferPointer<Int>
    let serverIDs: UnsafeBufferPointer<Int>
    /// Each message's plan by id, borrowed (`messages` keeps them) so that checking a frame does
    /// not count references to it.
    let messagePlans: UnsafeBufferPointer<Unmanaged<MessagePlan>>
    /// For each named type that is an object, its plan, borrowed from `named`; `nil` for the others.
    let namedObjects: UnsafeBufferPointer<Unmanaged<ObjectPlan>?>
    /// For each named type that is a string enumeration (closed or open), its values by key slot
    /// (their bytes are the `UTF8Key`s `named` keeps), so a string is compared with the values
    /// that share its slot, and the enumeration is not copied out of `named`; `nil` for the others.
    let namedEnumValues: UnsafeBufferPointer<KeySlotIndex?>

    /// The id of the message of `direction` whose tag is the string token at `index`. Inlined
    /// where a frame is checked, which asks it for every frame.
    @inline(__always)
    public func message(_ direction: FrameDirection, tagAt index: Int, in tape: JSONTape.View) -> Int? {
        if direction == .client {
            let position = clientTags.position(ofString: index, in: tape)
            return position >= 0 ? clientIDs[position] : nil
        }
        let position = serverTags.position(ofString: index, in: tape)
        return position >= 0 ? serverIDs[position] : nil
    }

    /// The id of the message of `direction` with this tag.
    public func message(_ direction: FrameDirection, tag: String) -> Int? {
        ids(direction).first { messages[$0].tag == tag }
    }

    /// A plan of `messages`, whose named types are `named`, with the protocol's default answers.
    public init(
        tagField: String, messages: [MessagePlan], named: [NamedPlan], defaultAnswer: ViolationAnswer, sizeAnswer: ViolationAnswer,
        notJSONAnswer: ViolationAnswer, notAFrameAnswer: ViolationAnswer
    ) {
        self.tagField = tagField
        tagKey = UTF8Key(tagField)
        self.messages = messages
        self.named = named
        client = messages.filter { $0.ref.direction == .client }.map(\.id)
        server = messages.filter { $0.ref.direction == .server }.map(\.id)
        clientTags = KeySlotIndex(client.map { messages[$0].tagKey.bytes })
        serverTags = KeySlotIndex(server.map { messages[$0].tagKey.bytes })
        clientIDs = ownedBuffer(client)
        serverIDs = ownedBuffer(server)
        messagePlans = ownedBuffer(messages.map { .passUnretained($0) })
        namedObjects = ownedBuffer(
            named.map { plan -> Unmanaged<ObjectPlan>? in
                guard case .object(let object) = plan else { return nil }
                return .passUnretained(object)
            })
        namedEnumValues = ownedBuffer(
            named.map { plan -> KeySlotIndex? in
                switch plan {
                case .closedEnum(_, let keys), .openEnum(_, _, let keys): KeySlotIndex(keys.map(\.bytes))
                default: nil
                }
            })
        self.defaultAnswer = defaultAnswer
        sizeAnswerBox = AnswerBox(sizeAnswer)
        sizeAnswerRef = .passUnretained(sizeAnswerBox)
        self.notJSONAnswer = notJSONAnswer
        self.notAFrameAnswer = notAFrameAnswer
    }

    deinit {
        clientTags.deallocate()
        serverTags.deallocate()
        clientIDs.deallocate()
        serverIDs.deallocate()
        messagePlans.deallocate()
        namedObjects.deallocate()
        for values in namedEnumValues { values?.deallocate() }
        namedEnumValues.deallocate()
    }
}

/// A buffer holding `elements` (plain values), for a plan to own and free in its `deinit`: the
/// walk over a frame reads it without counting references, as it would for an array held by a
/// class.
func ownedBuffer<Element>(_ elements: [Element]) -> UnsafeBufferPointer<Element> {
    let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(elements.count, 1))
    _ = buffer.initialize(from: elements)
    return UnsafeBufferPointer(rebasing: buffer[..<elements.count])
}
