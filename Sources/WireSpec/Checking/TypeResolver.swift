/// What a type reference is once aliases are followed.
enum ResolvedKind {
    case string
    case integer
    case number
    case boolean
    case json
    case array(TypeRef)
    case map(TypeRef)
    case object(name: String, shape: ObjectShape)
    case enumeration(name: String, EnumType)
    case union(name: String, UnionType)
    case oneOf(name: String, OneOfType)
    /// An undefined name or an alias cycle (already reported).
    case unresolved

    var description: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .number: return "number"
        case .boolean: return "boolean"
        case .json: return "json"
        case .array(let element): return "array<\(element)>"
        case .map(let value): return "map<\(value)>"
        case .object(let name, _), .enumeration(let name, _), .union(let name, _), .oneOf(let name, _): return name
        case .unresolved: return "unresolved"
        }
    }
}

/// Follows aliases to what a type reference finally is.
struct TypeResolver {
    let types: [String: NamedType]

    init(types: [NamedType]) {
        var byName: [String: NamedType] = [:]
        for type in types where byName[type.name] == nil { byName[type.name] = type }
        self.types = byName
    }

    func resolve(_ type: TypeRef) -> ResolvedKind {
        var seen = Set<String>()
        var current = type
        while true {
            switch current {
            case .string: return .string
            case .integer: return .integer
            case .number: return .number
            case .boolean: return .boolean
            case .json: return .json
            case .array(let element): return .array(element)
            case .map(let value): return .map(value)
            case .named(let name):
                guard seen.insert(name).inserted, let named = types[name] else { return .unresolved }
                switch named.kind {
                case .object(let shape): return .object(name: name, shape: shape)
                case .enumeration(let values): return .enumeration(name: name, values)
                case .union(let union): return .union(name: name, union)
                case .oneOf(let oneOf): return .oneOf(name: name, oneOf)
                case .alias(let alias): current = alias.type
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
