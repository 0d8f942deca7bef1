import Foundation
import WireRuntime
import WireSpec

/// Turns spec names into Swift identifiers and spec values into Swift literals.
enum SwiftNames {
    /// Words Swift reserves; an identifier equal to one is written in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "package", "some", "any",
    ]

    /// Type names a generated type must not take. Generated code qualifies every name it uses from
    /// Swift, Foundation and WireRuntime (`Swift.String`, `WireRuntime.JSONValue`), so a spec may name
    /// its types `String` or `JSONValue`; only the module names those qualifiers start with, and the
    /// names Swift does not allow for a type, stay reserved.
    static let reservedTypeNames: Set<String> = ["Swift", "Foundation", "WireRuntime", "Self", "Any", "Type", "Protocol"]

    /// Members every generated value type declares or inherits (`init`, `hashValue`, `write(into:)`,
    /// ...), and identifiers Swift reads specially after a dot (`self`, `Type`): a field named like
    /// one becomes a property with a trailing `_` (`init_`).
    static let reservedPropertyNames: Set<String> = [
        "init", "deinit", "self", "Self", "Type", "Protocol", "some", "none", "subscript", "hashValue", "jsonValue",
        "write", "writeObject", "encode", "encoded", "encodedData", "validate", "additionalFields",
    ]

    /// The same for enum cases, which also share their enum's static members (`allCases`,
    /// `knownValues`, `tag`) and instance members (`rawValue`, the error table's columns).
    static let reservedCaseNames: Set<String> = reservedPropertyNames.union([
        "rawValue", "allCases", "knownValues", "decode", "tag", "direction", "defaultAnswer", "httpStatus", "closeBehavior",
        "closeCode", "clientAction",
    ])

    /// Case identifiers for names, in order: camelCased, a reserved name moved aside with `_`
    /// (`unknown`, which every open type keeps for itself, becomes `unknownValue`), a repeat
    /// numbered (`protocol` and `Protocol` become `protocol` and `protocol2`), keywords escaped.
    static func caseIdentifiers(_ names: [String]) -> [String] {
        var taken: Set<String> = []
        return names.map { name in
            var identifier = lowerCamel(name)
            if identifier == "unknown" { identifier = "unknownValue" } else if reservedCaseNames.contains(identifier) { identifier += "_" }
            let base = identifier
            var counter = 2
            while taken.contains(identifier) {
                identifier = base + String(counter)
                counter += 1
            }
            taken.insert(identifier)
            return escaped(identifier)
        }
    }

    /// Names a message's derived type name avoids (it becomes `ErrorMessage`, `DataMessage`): they
    /// would compile, but shadow a type apps name without a module (`Error`, `String`, `Data`).
    /// A type the spec names itself keeps its name.
    static let shadowingNames: Set<String> = [
        "Error", "String", "Int", "Double", "Float", "Bool", "Array", "Dictionary", "Set", "Optional", "Result", "Never",
        "Character", "Data", "Date", "URL", "UUID", "Decimal", "Codable", "Encodable", "Decodable", "Sendable", "Hashable",
        "Equatable", "Duration", "Task", "Actor",
    ]

    /// The words of a name: split at `_`, `-`, `/`, `.`, spaces and lower-to-upper case changes.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            if character.isLetter || character.isNumber {
                if let previous, previous.isLowercase || previous.isNumber, character.isUppercase, !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `pair_request` → `PairRequest`, `image/png` → `ImagePng`.
    static func upperCamel(_ name: String) -> String {
        let parts = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let joined = parts.joined()
        guard let first = joined.first else { return "Value" }
        return first.isNumber ? "_" + joined : joined
    }

    /// `pair_request` → `pairRequest`, `deviceId` → `deviceId`, `URLValue` → `urlValue`.
    static func lowerCamel(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        let head = first == first.uppercased() ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        let joined = head + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    /// The identifier, in backticks when it is a keyword.
    static func escaped(_ identifier: String) -> String {
        keywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// A Swift string literal.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A `JSONValue` literal expression for a spec value.
    static func jsonLiteral(_ value: SpecValue) -> String {
        switch value {
        case .null: return ".null"
        case .bool(let flag): return ".bool(\(flag))"
        case .integer(let number): return ".integer(\(number))"
        case .number(let number): return ".number(\(number))"
        case .string(let text): return ".string(\(literal(text)))"
        case .array(let items): return ".array([" + items.map(jsonLiteral).joined(separator: ", ") + "])"
        case .object(let members):
            guard !members.isEmpty else { return ".object([:])" }
            return ".object([" + members.map { "\(literal($0.key)): \(jsonLiteral($0.value))" }.joined(separator: ", ") + "])"
        }
    }

    /// A JSON value literal of a runtime value (object keys sorted).
    static func jsonLiteral(_ value: JSONValue) -> String { jsonLiteral(SpecValue(value)) }

    /// A `[String]` literal.
    static func listLiteral(_ words: [String]) -> String { "[" + words.map(literal).joined(separator: ", ") + "]" }

    /// A `Double` literal that always reads as a decimal.
    static func doubleLiteral(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)"
    }
}
