/// A condition on a field's value: `field` equals one of `values`.
public struct Condition: Sendable, Hashable, Encodable {
    /// The field's wire name.
    public var field: String
    /// The values that satisfy the condition (one value for "equals").
    public var values: [SpecValue]

    public init(field: String, values: [SpecValue]) {
        self.field = field
        self.values = values
    }
}

/// A rule across the fields of one object or message.
public enum Rule: Sendable, Hashable, Encodable {
    /// When every condition holds, some fields are required and some are forbidden.
    case conditional(ConditionalRule)
    /// The summed size of some values must stay within a budget.
    case byteBudget(ByteBudget)
}

/// `when` all conditions hold, `require` these fields (present and not null), `forbid` those
/// (absent), and `then` give these fields one of the listed values (present, not null).
public struct ConditionalRule: Sendable, Hashable, Encodable {
    public var when: [Condition]
    public var require: [String]
    public var forbid: [String]
    /// Fields that must be present with one of their condition's values.
    public var then: [Condition]
    /// What the rule means, for docs and messages.
    public var description: String?
    /// How a violation is answered, when not the protocol default.
    public var violation: Answer?
    public var location: SourceLocation

    public init(
        when: [Condition], require: [String], forbid: [String], then: [Condition] = [], description: String? = nil, violation: Answer? = nil,
        location: SourceLocation
    ) {
        self.when = when
        self.require = require
        self.forbid = forbid
        self.then = then
        self.description = description
        self.violation = violation
        self.location = location
    }
}

/// The total size of several values must not exceed `max` bytes.
///
/// Each path names a field and goes into nested objects (or union cases) with `.`; arrays on the
/// way are traversed implicitly, so `attachments.data` sums the `data` of every attachment. A `base64` string counts its decoded bytes; any other
/// string
/// its UTF-8 bytes.
public struct ByteBudget: Sendable, Hashable, Encodable {
    /// A short name for the budget, used in messages.
    public var name: String
    /// The paths whose sizes are summed.
    public var paths: [String]
    /// The inclusive maximum in bytes.
    public var max: Int
    public var description: String?
    /// How a violation is answered; by default the protocol's size error code.
    public var violation: Answer?
    public var location: SourceLocation

    public init(name: String, paths: [String], max: Int, description: String? = nil, violation: Answer? = nil, location: SourceLocation) {
        self.name = name
        self.paths = paths
        self.max = max
        self.description = description
        self.violation = violation
        self.location = location
    }
}
