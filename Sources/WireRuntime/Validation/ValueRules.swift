/// The constraints on a string value. Immutable, and a class so that checks read it in place.
@_spi(Generated) public final class StringRules: Sendable {
    public let minLength: Int?
    public let maxLength: Int?
    public let minBytes: Int?
    public let maxBytes: Int?
    public let notBlank: Bool
    public let prefix: String?
    public let pattern: WirePattern?
    public let format: ValueFormat?
    public let maxDecodedBytes: Int?
    /// The only value allowed.
    public let constant: String?
    /// The constant's UTF-8 bytes, compared with a value's bytes in place.
    let constantKey: UTF8Key?
    /// Allowed values (for string enums checked as strings).
    public let allowedValues: Set<String>?
    /// The UTF-8 byte counts that pass the length and byte limits whatever the bytes (a string
    /// has at most one scalar a byte and at least one per four), so a string of such a count
    /// passes them without its scalars counted. With ``quickRule`` it decides most strings inline.
    let sureMinBytes: Int
    let sureMaxBytes: Int
    /// What else a string of a sure byte count must pass, when that is one quick check (or none);
    /// `.full` when the rules need the full check.
    let quickRule: QuickRule
    /// The prefix's UTF-8 bytes (owned by ``prefixKey``, and never written), for `.prefix`.
    nonisolated(unsafe) let prefixBytes: UnsafeBufferPointer<UInt8>
    private let prefixKey: UTF8Key?

    /// The one check besides lengths that decides a string inline.
    enum QuickRule: UInt8 {
        case none, prefix, uuid, uuidv4, full
    }

    public init(
        minLength: Int? = nil, maxLength: Int? = nil, minBytes: Int? = nil, maxBytes: Int? = nil, notBlank: Bool = false,
        prefix: String? = nil, pattern: WirePattern? = nil, format: ValueFormat? = nil, maxDecodedBytes: Int? = nil,
        constant: String? = nil, allowedValues: Set<String>? = nil
    ) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.minBytes = minBytes
        self.maxBytes = maxBytes
        self.notBlank = notBlank
        self.prefix = prefix
        self.pattern = pattern
        self.format = format
        self.maxDecodedBytes = maxDecodedBytes
        self.constant = constant
        constantKey = constant.map(UTF8Key.init)
        self.allowedValues = allowedValues
        // `minLength` scalars are there for sure from `4 * minLength - 3` bytes on.
        sureMinBytes = max(minBytes ?? 0, minLength.map { $0 > 0 ? 4 * min($0, Int.max / 4) - 3 : 0 } ?? 0)
        sureMaxBytes = min(maxBytes ?? .max, maxLength ?? .max)
        prefixKey = prefix.map(UTF8Key.init)
        prefixBytes = prefixKey?.bytes ?? UnsafeBufferPointer(start: nil, count: 0)
        let others = constant == nil && allowedValues == nil && !notBlank && pattern == nil && maxDecodedBytes == nil
        switch (prefix, format) {
        case (nil, nil) where others: quickRule = .none
        case (.some, nil) where others: quickRule = .prefix
        case (nil, .uuid) where others: quickRule = .uuid
        case (nil, .uuidv4) where others: quickRule = .uuidv4
        default: quickRule = .full
        }
    }

    /// Whether a string of these UTF-8 bytes surely passes every rule, decided inline: its byte
    /// count is a sure one and the one other check (a prefix, a UUID format) holds. `false` means
    /// only that the full check must decide.
    @inline(__always)
    func surelyPasses(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= sureMinBytes && bytes.count <= sureMaxBytes else { return false }
        switch quickRule {
        case .none: return true
        case .prefix:
            return bytes.count >= prefixBytes.count
                && (prefixBytes.isEmpty || JSONTape.equalBytes(bytes.baseAddress!, prefixBytes.baseAddress!, prefixBytes.count))
        case .uuid: return WireFormats.isUUID(bytes)
        case .uuidv4: return WireFormats.isUUIDv4(bytes)
        case .full: return false
        }
    }
}

/// The constraints on a number (integer or decimal) value. Immutable, and a class so that
/// checks read it in place.
@_spi(Generated) public final class NumberRules: Sendable {
    public let minimum: Double?
    public let maximum: Double?
    public let format: ValueFormat?
    /// The only value allowed (an integer constant also rejects `1.0`).
    public let constant: JSONValue?

    /// The integers that surely pass every rule: within the bounds and the format's range, and
    /// small enough (under 2^53 from zero) that comparing them as `Double`s is exact. Empty
    /// (`1...0` as bounds) when the rules have a constant.
    let sureMinInteger: Int
    let sureMaxInteger: Int

    public init(minimum: Double? = nil, maximum: Double? = nil, format: ValueFormat? = nil, constant: JSONValue? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.format = format
        self.constant = constant
        let exact = Double(1 << 53)
        var low = -(1 << 53)
        var high = 1 << 53
        if let minimum { low = minimum.isNaN || minimum > exact ? high + 1 : max(low, Int(max(minimum, -exact).rounded(.up))) }
        if let maximum { high = maximum.isNaN || maximum < -exact ? low - 1 : min(high, Int(min(maximum, exact).rounded(.down))) }
        if format == .epochMillis {
            low = max(low, 0)
            high = min(high, 253_402_300_799_999)
        }
        (sureMinInteger, sureMaxInteger) = constant == nil ? (low, high) : (1, 0)
    }

    /// Whether an integer surely passes every rule, decided inline (see ``sureMinInteger``);
    /// `false` means only that the full check must decide.
    @inline(__always)
    func surelyPasses(integer value: Int) -> Bool {
        value >= sureMinInteger && value <= sureMaxInteger
    }
}

/// The constraints on an array or a map.
@_spi(Generated) public struct CollectionRules: Sendable {
    public var minItems: Int?
    public var maxItems: Int?

    public init(minItems: Int? = nil, maxItems: Int? = nil) {
        self.minItems = minItems
        self.maxItems = maxItems
    }
}

/// A conditional requirement: when every condition holds, some keys are required, others
/// forbidden, and some must carry one of a few values.
@_spi(Generated) public struct ConditionalRequirement: Sendable {
    /// A key and the values that satisfy it.
    public var conditions: [(key: String, values: [JSONValue])]
    public var required: [String]
    public var forbidden: [String]
    /// Keys that must be present with one of the listed values (`then:` in the spec).
    public var expected: [(key: String, values: [JSONValue])]

    public init(
        when conditions: [(key: String, values: [JSONValue])], require required: [String] = [], forbid forbidden: [String] = [],
        expect expected: [(key: String, values: [JSONValue])] = []
    ) {
        self.conditions = conditions
        self.required = required
        self.forbidden = forbidden
        self.expected = expected
    }

    /// Whether every condition holds, given the value of each condition's key by position.
    public func applies(conditionValue: (Int) -> JSONValue?) -> Bool {
        conditions.indices.allSatisfy { position in
            guard let value = conditionValue(position) else { return false }
            return conditions[position].values.contains(value)
        }
    }

    /// The condition as text: `success is true`, `role is user or assistant`.
    public var conditionText: String {
        conditions.map { "\($0.key) is " + Self.valuesText($0.values) }.joined(separator: " and ")
    }

    /// Values as text: `true`, `user or assistant`.
    static func valuesText(_ values: [JSONValue]) -> String {
        values.map { $0.stringValue ?? $0.description }.joined(separator: " or ")
    }
}

/// A limit on the summed size of several values of one object.
@_spi(Generated) public struct ByteBudgetRule: Sendable {
    /// One summed path: keys from the object, arrays traversed implicitly; `decoded` counts base64's decoded bytes.
    public struct Term: Sendable {
        public var keys: [String] {
            didSet { keyBytes = keys.map(UTF8Key.init) }
        }
        public var decoded: Bool
        /// The keys' UTF-8 bytes, made once: a frame's members are compared with them as they are.
        private(set) var keyBytes: [UTF8Key]
        public init(keys: [String], decoded: Bool) {
            self.keys = keys
            self.decoded = decoded
            keyBytes = keys.map(UTF8Key.init)
        }
    }

    public var name: String
    public var terms: [Term]
    public var max: Int

    public init(name: String, terms: [Term], max: Int) {
        self.name = name
        self.terms = terms
        self.max = max
    }

    /// The total size in bytes of the budget's values in the object at `index` of a parsed tape.
    public func total(in tape: JSONTape.View, object index: Int) -> Int {
        var sum = 0
        // By position: a term copied out of the list counts references to its two key lists.
        for position in terms.indices {
            sum += terms[position].keyBytes.withUnsafeBufferPointer { keys in
                Self.size(of: index, in: tape, keys: keys, from: 0, decoded: terms[position].decoded)
            }
        }
        return sum
    }

    /// The size of the values at `keys[position...]` from the value at `index`.
    private static func size(of index: Int, in tape: JSONTape.View, keys: UnsafeBufferPointer<UTF8Key>, from position: Int, decoded: Bool) -> Int {
        switch tape.kind(index) {
        case .array:
            var sum = 0
            tape.forEachItem(of: index) { _, item in sum += size(of: item, in: tape, keys: keys, from: position, decoded: decoded) }
            return sum
        case .object:
            guard position < keys.count,
                let member = tape.member(of: index, key: keys[position])
            else { return 0 }
            return size(of: member, in: tape, keys: keys, from: position + 1, decoded: decoded)
        case .string where position == keys.count:
            return tape.withStringBytes(index) { bytes in decoded ? (WireFormats.decodedBase64Length(bytes: bytes) ?? bytes.count) : bytes.count }
        default:
            return 0
        }
    }
}
