/// What a type reference is once aliases are followed.
public enum ResolvedType: Sendable, Hashable {
    case string
    case integer
    case number
    case boolean
    case json
    case array(TypeRef)
    /// A map: its key type (`.string` unless the spec names one) and its value type.
    case map(key: TypeRef, value: TypeRef)
    case object(name: String, shape: ObjectShape)
    case enumeration(name: String, EnumType)
    case union(name: String, UnionType)
    case oneOf(name: String, OneOfType)
    /// An undefined name or an alias cycle (already reported).
    case unresolved

    /// The spec spelling of the resolved type.
    public var description: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .number: return "number"
        case .boolean: return "boolean"
        case .json: return "json"
        case .array(let element): return "array<\(element)>"
        case .map(let key, let value): return TypeRef.map(key: key, value: value).description
        case .object(let name, _), .enumeration(let name, _), .union(let name, _), .oneOf(let name, _): return name
        case .unresolved: return "unresolved"
        }
    }
}

/// Follows aliases to what a type reference finally is.
struct TypeResolver: Sendable {
    let types: [String: NamedType]

    init(types: [NamedType]) {
        var byName: [String: NamedType] = [:]
        for type in types where byName[type.name] == nil { byName[type.name] = type }
        self.types = byName
    }

    func resolve(_ type: TypeRef) -> ResolvedType { resolveWithConstraints(type).type }

    /// The resolved type and the constraints the aliases on the way add (nearer aliases win).
    func resolveWithConstraints(_ type: TypeRef) -> (type: ResolvedType, constraints: Constraints) {
        Self.resolveWithConstraints(type) { types[$0] }
    }

    /// ``resolveWithConstraints(_:)`` with named types found by `lookup`.
    static func resolveWithConstraints(_ type: TypeRef, lookup: (String) -> NamedType?) -> (type: ResolvedType, constraints: Constraints) {
        var seen = Set<String>()
        var current = type
        var constraints = Constraints()
        func done(_ resolved: ResolvedType) -> (type: ResolvedType, constraints: Constraints) { (resolved, constraints) }
        while true {
            switch current {
            case .string: return done(.string)
            case .integer: return done(.integer)
            case .number: return done(.number)
            case .boolean: return done(.boolean)
            case .json: return done(.json)
            case .array(let element): return done(.array(element))
            case .map(let key, let value): return done(.map(key: key, value: value))
            case .named(let name):
                guard seen.insert(name).inserted, let named = lookup(name) else { return done(.unresolved) }
                switch named.kind {
                case .object(let shape): return done(.object(name: name, shape: shape))
                case .enumeration(let values): return done(.enumeration(name: name, values))
                case .union(let union): return done(.union(name: name, union))
                case .oneOf(let oneOf): return done(.oneOf(name: name, oneOf))
                case .alias(let alias):
                    constraints = constraints.merged(over: alias.constraints)
                    current = alias.type
                }
            }
        }
    }

    /// The alias chain starting at `name` loops back on itself.
    func isAliasCycle(_ name: String) -> Bool {
        var seen = Set<String>()
        var current = name
        while let named = types[current], case .alias(let alias) = named.kind {
            guard seen.insert(current).inserted else { return true }
            guard case .named(let next) = alias.type else { return false }
            current = next
        }
        return false
    }
}

extension ProtocolSpec {
    /// Follows aliases: what a type reference finally is, and the constraints of the aliases on the way.
    ///
    /// Named types are found by a search of ``types`` (the first of a name wins, as in checking):
    /// building an index for each call made the plan's compilation quadratic in the spec's types.
    public func resolve(_ type: TypeRef) -> (type: ResolvedType, constraints: Constraints) {
        TypeResolver.resolveWithConstraints(type) { name in types.first { $0.name == name } }
    }
}

extension Constraints {
    /// These constraints, with `base`'s filling in every constraint these do not set.
    public func merged(over base: Constraints) -> Constraints {
        Constraints(
            minLength: minLength ?? base.minLength, maxLength: maxLength ?? base.maxLength,
            minBytes: minBytes ?? base.minBytes, maxBytes: maxBytes ?? base.maxBytes,
            notBlank: notBlank || base.notBlank, prefix: prefix ?? base.prefix, pattern: pattern ?? base.pattern,
            format: format ?? base.format, maxDecodedBytes: maxDecodedBytes ?? base.maxDecodedBytes,
            const: const ?? base.const, minimum: minimum ?? base.minimum, maximum: maximum ?? base.maximum,
            minItems: minItems ?? base.minItems, maxItems: maxItems ?? base.maxItems
        )
    }
}

extension ProtocolSpec {
    /// Whether a byte-budget path of `shape` ends at a `base64` string, whose decoded size counts.
    public func budgetPathIsBase64(_ path: String, in shape: ObjectShape) -> Bool {
        var shapes = [shape]
        let segments = path.split(separator: ".").map(String.init)
        for (offset, segment) in segments.enumerated() {
            guard let field = shapes.lazy.compactMap({ $0.field(named: segment) }).first else { return false }
            var type = field.type
            var constraints = field.constraints
            while true {
                let resolved = resolve(type)
                constraints = constraints.merged(over: resolved.constraints)
                guard case .array(let element) = resolved.type else { break }
                type = element
                constraints = Constraints()
            }
            if offset == segments.count - 1 { return constraints.format == .base64 }
            switch resolve(type).type {
            case .object(_, let next): shapes = [next]
            case .union(_, let union):
                shapes = union.cases.compactMap { unionCase in
                    if case .object(_, let next) = resolve(.named(unionCase.type)).type { return next }
                    return nil
                }
            default: return false
            }
        }
        return false
    }
}
