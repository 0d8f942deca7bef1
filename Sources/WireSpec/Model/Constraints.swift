import WireRuntime

/// The constraints a field or alias puts on its value. Every constraint is optional.
public struct Constraints: Sendable, Hashable, Encodable {
    /// Minimum length in Unicode scalars.
    public var minLength: Int?
    /// Maximum length in Unicode scalars.
    public var maxLength: Int?
    /// Minimum length in UTF-8 bytes.
    public var minBytes: Int?
    /// Maximum length in UTF-8 bytes.
    public var maxBytes: Int?
    /// The string must not be empty or consist only of white space.
    public var notBlank: Bool
    /// The string must start with this prefix.
    public var prefix: String?
    /// The string must match this regular expression (anchored at both ends).
    public var pattern: String?
    /// The value's format.
    public var format: ValueFormat?
    /// For `format: base64`, the maximum number of decoded bytes.
    public var maxDecodedBytes: Int?
    /// The value must equal this JSON value.
    public var const: SpecValue?
    /// Inclusive lower bound for numbers.
    public var minimum: Double?
    /// Inclusive upper bound for numbers.
    public var maximum: Double?
    /// Minimum number of items of an array or entries of a map.
    public var minItems: Int?
    /// Maximum number of items of an array or entries of a map.
    public var maxItems: Int?

    /// No constraints.
    public init(
        minLength: Int? = nil, maxLength: Int? = nil, minBytes: Int? = nil, maxBytes: Int? = nil,
        notBlank: Bool = false, prefix: String? = nil, pattern: String? = nil, format: ValueFormat? = nil,
        maxDecodedBytes: Int? = nil, const: SpecValue? = nil, minimum: Double? = nil, maximum: Double? = nil,
        minItems: Int? = nil, maxItems: Int? = nil
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
        self.const = const
        self.minimum = minimum
        self.maximum = maximum
        self.minItems = minItems
        self.maxItems = maxItems
    }

    /// Whether no constraint is set.
    public var isEmpty: Bool { self == Constraints() }

    /// Whether a constraint limits a size (these map to the protocol's size error code).
    public static let sizeConstraintKeys: Set<String> = ["maxBytes", "maxDecodedBytes", "maxItems"]
}
