import Foundation

/// A JSON value written in a spec: a `const`, a `default`, a condition's value or an example frame.
public indirect enum SpecValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([SpecValue])
    /// An object with its members in the order they were written.
    case object([Member])

    /// One member of an object value.
    public struct Member: Sendable, Hashable, Codable {
        public var key: String
        public var value: SpecValue
        public init(key: String, value: SpecValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value as compact JSON text, members in written order.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? String(format: "%.1f", value) : String(value)
        case .string(let value): return SpecValue.quoted(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { SpecValue.quoted($0.key) + ":" + $0.value.description }.joined(separator: ",") + "}"
        }
    }

    /// The value as a person reads it in a message: strings without quotes, anything else as JSON.
    public var plainText: String {
        if case .string(let text) = self { return text }
        return description
    }

    /// The JSON kind of the value, as used in messages ("a string", "an integer", ...).
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    /// The member named `key` of an object value.
    public subscript(key: String) -> SpecValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    private static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
            return
        }
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
            return
        }
        if let value = try? container.decode(Int.self) {
            self = .integer(value)
            return
        }
        if let value = try? container.decode(Double.self) {
            self = .number(value)
            return
        }
        if let value = try? container.decode(String.self) {
            self = .string(value)
            return
        }
        if let value = try? container.decode([SpecValue].self) {
            self = .array(value)
            return
        }
        let members = try container.decode([String: SpecValue].self)
        self = .object(members.sorted { $0.key < $1.key }.map { Member(key: $0.key, value: $0.value) })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members):
            try container.encode(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
        }
    }
}
