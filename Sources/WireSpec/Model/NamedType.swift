/// A reusable type declared under `types:`.
public struct NamedType: Sendable, Hashable, Encodable {
    /// The type's name, as referenced from `type:`.
    public var name: String
    public var description: String?
    public var kind: Kind
    public var location: SourceLocation

    /// The kinds of named types.
    public enum Kind: Sendable, Hashable, Encodable {
        /// An object with fields.
        case object(ObjectShape)
        /// A string enumeration.
        case enumeration(EnumType)
        /// A discriminated union of object types, selected by a tag field.
        case union(UnionType)
        /// A value that is one of several shapes, told apart by JSON kind and constraints.
        case oneOf(OneOfType)
        /// Another type with constraints, such as a UUIDv4 string.
        case alias(AliasType)
    }

    /// Whether this is the type the loader made of the error codes table.
    public var isErrorCodeTable: Bool {
        if case .enumeration(let values) = kind { return values.isErrorCodeTable }
        return false
    }

    public init(name: String, description: String? = nil, kind: Kind, location: SourceLocation) {
        self.name = name
        self.description = description
        self.kind = kind
        self.location = location
    }
}

/// A string enumeration.
public struct EnumType: Sendable, Hashable, Encodable {
    /// One allowed value.
    public struct Value: Sendable, Hashable, Encodable {
        public var value: String
        public var description: String?
        public init(value: String, description: String? = nil) {
            self.value = value
            self.description = description
        }
    }

    public var values: [Value]
    /// Whether values not listed are accepted and kept (`true`) or rejected (`false`, the default).
    public var open: Bool
    /// Whether this is the type of the spec's error codes (``ProtocolSpec/errorCodeTypeName``),
    /// made by the loader from `errors:` rather than written under `types:`.
    public var isErrorCodeTable: Bool

    public init(values: [Value], open: Bool = false, isErrorCodeTable: Bool = false) {
        self.values = values
        self.open = open
        self.isErrorCodeTable = isErrorCodeTable
    }
}

/// A discriminated union: the value of `tag` selects which object type the rest of the object is.
public struct UnionType: Sendable, Hashable, Encodable {
    /// One case: a tag value and the object type it selects.
    public struct Case: Sendable, Hashable, Encodable {
        /// The tag value as written (`image`, or `true`/`false` for boolean tags).
        public var tagValue: SpecValue
        /// The object type of this case.
        public var type: String
        /// A name for the case in generated code (`success`); by default derived from the tag value
        /// (string tags) or the case type (boolean tags).
        public var name: String?
        public var location: SourceLocation
        public init(tagValue: SpecValue, type: String, name: String? = nil, location: SourceLocation) {
            self.tagValue = tagValue
            self.type = type
            self.name = name
            self.location = location
        }
    }

    /// The tag's wire name.
    public var tag: String
    public var cases: [Case]
    /// Whether unknown tag values are kept (`true`) or rejected (`false`, the default).
    public var open: Bool

    public init(tag: String, cases: [Case], open: Bool = false) {
        self.tag = tag
        self.cases = cases
        self.open = open
    }

    /// Whether the tag is a boolean (its case values are `true` and `false`).
    public var hasBooleanTag: Bool {
        cases.allSatisfy { if case .bool = $0.tagValue { return true } else { return false } }
    }
}

/// A value that takes one of several shapes; a decoder tries them in order.
public struct OneOfType: Sendable, Hashable, Encodable {
    /// One alternative: a name, a type and constraints.
    public struct Variant: Sendable, Hashable, Encodable {
        public var name: String
        public var description: String?
        public var type: TypeRef
        public var constraints: Constraints
        public var location: SourceLocation
        public init(name: String, description: String? = nil, type: TypeRef, constraints: Constraints = Constraints(), location: SourceLocation) {
            self.name = name
            self.description = description
            self.type = type
            self.constraints = constraints
            self.location = location
        }
    }

    public var variants: [Variant]
    public init(variants: [Variant]) { self.variants = variants }
}

/// A constrained alias of another type.
public struct AliasType: Sendable, Hashable, Encodable {
    public var type: TypeRef
    public var constraints: Constraints
    /// Whether a named string type is a type of its own in generated code (the default), so that
    /// one kind of identifier cannot be passed for another; `distinct: false` keeps it a plain string.
    public var distinct: Bool
    public init(type: TypeRef, constraints: Constraints = Constraints(), distinct: Bool = true) {
        self.type = type
        self.constraints = constraints
        self.distinct = distinct
    }

    /// Whether generated code gives this type a Swift type of its own: a distinct string that is not a date.
    public var isDistinctString: Bool {
        distinct && type == .string && constraints.format != .iso8601
    }
}
