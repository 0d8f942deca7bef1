/// A YAML node with the source location of its first character.
///
/// This is the loader's private view of a document: mappings keep their key order and every
/// key keeps its own location, so diagnostics can point at the exact key that is wrong.
package struct YAMLNode: Sendable {
    package enum Kind: Sendable {
        /// A scalar: its text, and whether it was quoted or a block scalar (then it is always a string).
        case scalar(String, plain: Bool)
        /// A mapping, keys in document order.
        case mapping([Entry])
        /// A sequence.
        case sequence([YAMLNode])
    }

    /// One key/value pair of a mapping.
    package struct Entry: Sendable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: YAMLNode
    }

    package var kind: Kind
    package var location: SourceLocation

    package init(kind: Kind, location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    /// A short name for the node's kind, used in "expected X, found Y" messages.
    package var kindDescription: String {
        switch kind {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let text, let plain):
            guard plain else { return "a string" }
            switch YAMLScalar.resolve(text) {
            case .null: return "null"
            case .bool: return "a boolean"
            case .integer: return "an integer"
            case .number: return "a number"
            case .string: return "a string"
            }
        }
    }
}

/// The value of a plain scalar under the YAML 1.2 core schema.
package enum YAMLScalar: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)

    /// Whether a plain scalar's text is null (`~`, `null` in three spellings, or nothing), as
    /// ``resolve(_:)`` would say, without resolving it.
    package static func isNull(_ text: String) -> Bool {
        switch text {
        case "", "~", "null", "Null", "NULL": true
        default: false
        }
    }

    /// Resolves a plain (unquoted) scalar's text.
    package static func resolve(_ text: String) -> YAMLScalar {
        switch text {
        case _ where isNull(text): return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        // Every number starts with a digit, a sign or a point: other text (most of a spec's
        // scalars, its names and words) is a string without the number parsers' work.
        guard let first = text.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
                || first.isASCIIDigit
        else { return .string(text) }
        let digits = text.utf8.contains(UInt8(ascii: "_")) ? String(text.filter { $0 != "_" }) : text
        if let value = Int(digits) { return .integer(value) }
        if digits.hasPrefix("0x"), let value = Int(digits.dropFirst(2), radix: 16) { return .integer(value) }
        if digits.hasPrefix("0o"), let value = Int(digits.dropFirst(2), radix: 8) { return .integer(value) }
        if digits.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
            let value = Double(digits), value.isFinite
        {
            return .number(value)
        }
        return .string(text)
    }
}
