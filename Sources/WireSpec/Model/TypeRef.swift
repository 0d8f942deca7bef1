/// A reference to a type, as written after `type:` in a spec.
///
/// Grammar: `string`, `integer`, `number`, `boolean`, `json` (any JSON value), `array<T>`,
/// `map<T>` (an object with string keys and `T` values), `map<K, V>` (an object whose keys are
/// `K`, a string type with constraints of its own, and whose values are `V`), or the name of a
/// type under `types:`.
public indirect enum TypeRef: Sendable, Hashable, Encodable, CustomStringConvertible {
    case string
    case integer
    case number
    case boolean
    /// Any JSON value, kept as it was received.
    case json
    case array(TypeRef)
    /// An object with arbitrary keys of type `key` (`.string` for `map<T>`) and `value` values.
    case map(key: TypeRef, value: TypeRef)
    /// A type defined under `types:`.
    case named(String)

    /// The names of the built-in scalar types.
    public static let builtinNames = ["string", "integer", "number", "boolean", "json"]

    /// The spelling used in specs.
    public var description: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .number: return "number"
        case .boolean: return "boolean"
        case .json: return "json"
        case .array(let element): return "array<\(element)>"
        case .map(.string, let value): return "map<\(value)>"
        case .map(let key, let value): return "map<\(key), \(value)>"
        case .named(let name): return name
        }
    }

    /// Every named type this reference mentions, outermost first.
    public var referencedNames: [String] {
        switch self {
        case .array(let inner): return inner.referencedNames
        case .map(let key, let value): return key.referencedNames + value.referencedNames
        case .named(let name): return [name]
        default: return []
        }
    }

    /// Parses a type expression; returns `nil` with a reason when it is malformed.
    public static func parse(_ text: String) -> Result<TypeRef, TypeRefSyntaxError> {
        var parser = Parser(text: Array(text.filter { !$0.isWhitespace }))
        guard let type = parser.parseType(), parser.position == parser.text.count else {
            return .failure(TypeRefSyntaxError(text: text))
        }
        return .success(type)
    }

    private struct Parser {
        var text: [Character]
        var position = 0

        mutating func parseType() -> TypeRef? {
            let start = position
            while position < text.count, text[position].isLetter || text[position].isNumber || text[position] == "_" {
                position += 1
            }
            guard position > start else { return nil }
            let word = String(text[start..<position])
            switch word {
            case "string": return .string
            case "integer": return .integer
            case "number": return .number
            case "boolean": return .boolean
            case "json": return .json
            case "array", "map":
                guard position < text.count, text[position] == "<" else { return nil }
                position += 1
                guard let inner = parseType(), position < text.count else { return nil }
                if word == "map", text[position] == "," {
                    position += 1
                    guard let value = parseType(), position < text.count, text[position] == ">" else { return nil }
                    position += 1
                    return .map(key: inner, value: value)
                }
                guard text[position] == ">" else { return nil }
                position += 1
                return word == "array" ? .array(inner) : .map(key: .string, value: inner)
            default:
                guard text[start].isLetter else { return nil }
                return .named(word)
            }
        }
    }
}

/// A type expression that does not follow the grammar.
public struct TypeRefSyntaxError: Error, Sendable {
    /// The text as written.
    public var text: String
}
