/// A field of an object or a message.
///
/// Presence has three states on the wire: absent, `null`, and a value. `required` and
/// `nullable` together say which of them are allowed.
public struct Field: Sendable, Hashable, Encodable {
    /// The key on the wire, exactly as written in the spec.
    public var name: String
    /// What the field means.
    public var description: String?
    /// The field's type.
    public var type: TypeRef
    /// Whether the key must be present. Default `true`; `optional: true` makes it `false`.
    public var required: Bool
    /// Whether `null` is an allowed value (distinct from the key being absent).
    public var nullable: Bool
    /// The value a receiver assumes when the key is absent.
    public var defaultValue: SpecValue?
    /// Constraints on the value.
    public var constraints: Constraints
    /// What a violation of this field's rules is answered with, when it differs from the message's.
    public var violation: Answer?
    /// Whether the field is deprecated.
    public var deprecated: Bool
    /// Where the field is declared.
    public var location: SourceLocation

    public init(
        name: String, description: String? = nil, type: TypeRef, required: Bool = true, nullable: Bool = false,
        defaultValue: SpecValue? = nil, constraints: Constraints = Constraints(), violation: Answer? = nil,
        deprecated: Bool = false, location: SourceLocation
    ) {
        self.name = name
        self.description = description
        self.type = type
        self.required = required
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.constraints = constraints
        self.violation = violation
        self.deprecated = deprecated
        self.location = location
    }
}

/// What a receiver does with object keys the spec does not declare.
public enum UnknownFieldPolicy: String, Sendable, Hashable, Encodable {
    /// Accept and drop them (the default, for forward compatibility).
    case ignore
    /// Reject the frame.
    case reject
    /// Accept and keep them, so they survive decoding and re-encoding.
    case keep
}

/// The shape of an object: its fields and the rules across them.
public struct ObjectShape: Sendable, Hashable, Encodable {
    /// Fields in declaration order.
    public var fields: [Field]
    /// Rules across fields.
    public var rules: [Rule]
    /// What happens to undeclared keys.
    public var unknownFields: UnknownFieldPolicy
    /// Keys that must not appear at all (and are not declared as fields).
    public var rejectFields: [String]

    public init(fields: [Field], rules: [Rule] = [], unknownFields: UnknownFieldPolicy = .ignore, rejectFields: [String] = []) {
        self.fields = fields
        self.rules = rules
        self.unknownFields = unknownFields
        self.rejectFields = rejectFields
    }

    /// The field with a wire name.
    public func field(named name: String) -> Field? { fields.first { $0.name == name } }
}
