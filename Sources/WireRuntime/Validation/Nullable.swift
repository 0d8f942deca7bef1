/// A field that may be absent, `null`, or carry a value: three states the wire tells apart.
///
/// Generated code uses it for fields that are both optional and nullable; an optional field that
/// is not nullable is a Swift optional (`nil` = absent), and a required nullable field too (`nil` = `null`).
public enum Nullable<Wrapped> {
    /// The key is not in the object.
    case absent
    /// The key is present with the value `null`.
    case null
    /// The key carries a value.
    case value(Wrapped)

    /// The value, or `nil` when absent or `null`.
    public var wrapped: Wrapped? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether the key is present (with `null` or a value).
    public var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }
}

extension Nullable: Sendable where Wrapped: Sendable {}
extension Nullable: Equatable where Wrapped: Equatable {}
extension Nullable: Hashable where Wrapped: Hashable {}

extension Nullable: ExpressibleByNilLiteral {
    /// `nil` is `null`, not absent: write `.absent` to leave the key out.
    public init(nilLiteral: ()) { self = .null }
}
