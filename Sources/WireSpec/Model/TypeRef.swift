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

    /// Parses a type expression; a malformed one is a failure that carries its text.
    public static func parse(_ text: String) -> Result<TypeRef, TypeRefSyntaxError> {
        // A spec's types are ASCII as a rule, and ASCII is read byte by byte: the same grammar
        // with no grapheme breaking, no Unicode property lookups and no `[Character]`.
        let type: TypeRef? =
            text.utf8.allSatisfy { $0 < 0x80 }
            ? Parser.type(of: text.utf8.filter { !$0.isTypeTextWhitespace })
            : Parser.type(of: text.filter { !$0.isWhitespace })
        return type.map { .success($0) } ?? .failure(TypeRefSyntaxError(text: text))
    }

    /// The grammar's parser over `text`, without whitespace: ASCII bytes, or characters.
    private struct Parser<Unit: TypeTextUnit> {
        var text: [Unit]
        var position = 0

        /// The type `text` (without whitespace) is as a whole, or `nil` when it is not one.
        static func type(of text: [Unit]) -> TypeRef? {
            var parser = Parser(text: text)
            guard let type = parser.parseType(), parser.position == text.count else { return nil }
            return type
        }

        mutating func parseType() -> TypeRef? {
            let start = position
            while position < text.count, text[position].isWordPart { position += 1 }
            guard position > start else { return nil }
            let word = Unit.word(text[start..<position])
            switch word {
            case "string": return .string
            case "integer": return .integer
            case "number": return .number
            case "boolean": return .boolean
            case "json": return .json
            case "array", "map":
                guard position < text.count, text[position] == .lessThan else { return nil }
                position += 1
                guard let inner = parseType(), position < text.count else { return nil }
                if word == "map", text[position] == .comma {
                    position += 1
                    guard let value = parseType(), position < text.count, text[position] == .greaterThan else { return nil }
                    position += 1
                    return .map(key: inner, value: value)
                }
                guard text[position] == .greaterThan else { return nil }
                position += 1
                return word == "array" ? .array(inner) : .map(key: .string, value: inner)
            default:
                guard text[start].isLetter else { return nil }
                return .named(word)
            }
        }
    }
}

/// One unit of a type expression's text, as ``TypeRef/parse(_:)`` reads it: a byte of ASCII
/// text, or a character of any other.
private protocol TypeTextUnit: Equatable {
    /// A letter, a digit (or other number) or `_`: part of a word.
    var isWordPart: Bool { get }
    /// A letter, which a type's name starts with.
    var isLetter: Bool { get }
    static var lessThan: Self { get }
    static var greaterThan: Self { get }
    static var comma: Self { get }
    /// The text of a word.
    static func word(_ units: ArraySlice<Self>) -> String
}

extension UInt8: TypeTextUnit {
    fileprivate var isTypeTextWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
    fileprivate var isWordPart: Bool { isASCIILetter || isASCIIDigit || self == UInt8(ascii: "_") }
    fileprivate var isLetter: Bool { isASCIILetter }
    fileprivate static var lessThan: UInt8 { UInt8(ascii: "<") }
    fileprivate static var greaterThan: UInt8 { UInt8(ascii: ">") }
    fileprivate static var comma: UInt8 { UInt8(ascii: ",") }
    fileprivate static func word(_ units: ArraySlice<UInt8>) -> String { String(decoding: units, as: UTF8.self) }
}

extension Character: TypeTextUnit {
    fileprivate var isWordPart: Bool { isLetter || isNumber || self == "_" }
    fileprivate static var lessThan: Character { "<" }
    fileprivate static var greaterThan: Character { ">" }
    fileprivate static var comma: Character { "," }
    fileprivate static func word(_ units: ArraySlice<Character>) -> String { String(units) }
}

/// A type expression that does not follow the grammar.
public struct TypeRefSyntaxError: Error, Sendable {
    /// The text as written.
    public var text: String
}
