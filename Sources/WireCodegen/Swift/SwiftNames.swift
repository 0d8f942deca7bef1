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

    /// Type names a generated type must not take: Swift's, Foundation's and the runtime's.
    static let reservedTypeNames: Set<String> = [
        "Error", "Type", "Protocol", "Self", "Any", "String", "Int", "Double", "Float", "Bool", "Array", "Dictionary",
        "Set", "Optional", "Result", "Never", "Character", "Data", "Date", "URL", "UUID", "Decimal", "Codable",
        "Encodable", "Decodable", "Sendable", "Hashable", "Equatable", "Duration", "JSONValue", "JSONPath", "Nullable",
        "ValidationContext", "ValidationIssue", "ViolationAnswer", "StringRules", "NumberRules", "CollectionRules",
        "WireValue", "WireFrame", "FrameDecodeResult", "FrameDirection", "FrameKey", "RateLimitRule", "HTTPEndpoint",
        "SessionRuleSet", "CloseBehavior", "ConditionalRequirement", "ByteBudgetRule", "WirePattern", "WireFormats",
        "ValueFormat", "JSONWriter", "JSONParser",
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

    /// A `Double` literal that always reads as a decimal.
    static func doubleLiteral(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)"
    }
}

import Foundation
