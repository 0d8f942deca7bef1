import WireRuntime
import WireSpec

/// A field's type with its named types looked through: what JSON it takes, and every constraint
/// on the way (the field's own, then each alias's).
struct ResolvedType: Sendable {
    /// The JSON shape.
    indirect enum Shape: Sendable {
        case string, integer, number, boolean, json
        case array(TypeRef)
        /// A map: its key type (`.string` for any key) and its value type.
        case map(key: TypeRef, value: TypeRef)
        case object(ObjectShape)
        case enumeration(EnumType)
        case union(UnionType)
        case oneOf(OneOfType)
    }

    var shape: Shape
    /// The constraints, merged to the strictest of each kind.
    var constraints: Constraints

    /// Resolves `type` with `constraints` in `spec`.
    init(_ type: TypeRef, constraints: Constraints = Constraints(), in spec: ProtocolSpec) {
        var merged = constraints
        var current = type
        var seen: Set<String> = []
        while true {
            switch current {
            case .string: shape = .string
            case .integer: shape = .integer
            case .number: shape = .number
            case .boolean: shape = .boolean
            case .json: shape = .json
            case .array(let element): shape = .array(element)
            case .map(let key, let value): shape = .map(key: key, value: value)
            case .named(let name):
                guard !seen.contains(name), let named = spec.type(named: name) else {
                    shape = .json
                    break
                }
                seen.insert(name)
                switch named.kind {
                case .object(let object): shape = .object(object)
                case .enumeration(let values): shape = .enumeration(values)
                case .union(let union): shape = .union(union)
                case .oneOf(let oneOf): shape = .oneOf(oneOf)
                case .alias(let alias):
                    merged = merged.strictest(with: alias.constraints)
                    current = alias.type
                    continue
                }
            }
            break
        }
        self.constraints = merged
    }

    /// The JSON kind this type never takes, for a wrong-type case: a value of another kind.
    var wrongKindValue: JSONValue? {
        switch shape {
        case .string, .enumeration: return .integer(12345)
        case .integer, .number: return .string("12")
        case .boolean: return .string("true")
        case .array: return .object([:])
        case .map, .object, .union: return .array([])
        case .json, .oneOf: return nil
        }
    }
}

extension Constraints {
    /// The strictest of each constraint of `self` and `other`.
    func strictest(with other: Constraints) -> Constraints {
        var result = self
        result.minLength = Self.larger(minLength, other.minLength)
        result.maxLength = Self.smaller(maxLength, other.maxLength)
        result.minBytes = Self.larger(minBytes, other.minBytes)
        result.maxBytes = Self.smaller(maxBytes, other.maxBytes)
        result.notBlank = notBlank || other.notBlank
        result.prefix = prefix ?? other.prefix
        result.pattern = pattern ?? other.pattern
        result.format = format ?? other.format
        result.maxDecodedBytes = Self.smaller(maxDecodedBytes, other.maxDecodedBytes)
        result.const = const ?? other.const
        result.minimum = Self.larger(minimum, other.minimum)
        result.maximum = Self.smaller(maximum, other.maximum)
        result.minItems = Self.larger(minItems, other.minItems)
        result.maxItems = Self.smaller(maxItems, other.maxItems)
        return result
    }

    private static func larger<T: Comparable>(_ a: T?, _ b: T?) -> T? { [a, b].compactMap { $0 }.max() }
    private static func smaller<T: Comparable>(_ a: T?, _ b: T?) -> T? { [a, b].compactMap { $0 }.min() }
}
