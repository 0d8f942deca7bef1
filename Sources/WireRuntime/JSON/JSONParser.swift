/// Why bytes are not a JSON document, and where.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The 0-based byte offset of the problem.
    public var offset: Int
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column (in bytes) of the problem.
    public var column: Int

    public var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// It rejects what a strict peer must reject (trailing commas, comments, leading zeros, lone
/// surrogates, invalid UTF-8, duplicate object keys, nesting deeper than `maxDepth`) and never
/// traps on bad input.
public struct JSONParser {
    /// The deepest nesting accepted; deeper documents are rejected instead of exhausting the stack.
    public static let maxDepth = 256

    /// Parses a complete document from bytes.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
    }

    /// Parses a complete document from text.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONSyntaxError> = text.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var parser = Scanner(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == buffer.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
            let offset = min(offset ?? position, bytes.count)
            var line = 1, lineStart = 0
            for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            return JSONSyntaxError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard position < bytes.count else { throw error(position == 0 ? "empty input" : "unexpected end of input") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Self.printable(bytes[position]))'")
            }
        }

        static func printable(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
        }

        mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw error("unexpected end of input") }
            for index in 0..<count where bytes[position + index] != literal.utf8Start[index] {
                throw error("invalid literal, expected '\(literal)'")
            }
            position += count
        }

        mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard depth <= JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
            position += 1
            // Members are collected first and hashed once into a dictionary of the right size.
            var members: [(String, JSONValue)] = []
            var keyOffsets: [Int] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object([:])
            }
            while true {
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of input in an object") }
                guard bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key in an object") }
                keyOffsets.append(position)
                let key = try parseString()
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
                position += 1
                skipWhitespace()
                members.append((key, try parseValue(depth: depth)))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of input in an object") }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    let object = Dictionary(members, uniquingKeysWith: { first, _ in first })
                    if object.count != members.count {
                        var seen = Set<String>()
                        for (index, member) in members.enumerated() where !seen.insert(member.0).inserted {
                            throw error("duplicate key '\(member.0)' in an object", at: keyOffsets[index])
                        }
                    }
                    return .object(object)
                default: throw error("expected ',' or '}' in an object")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            guard depth <= JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth))
                skipWhitespace()
                guard position < bytes.count else { throw error("unexpected end of input in an array") }
                switch bytes[position] {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return .array(items)
                default: throw error("expected ',' or ']' in an array")
                }
            }
        }

        mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
            let start = position
            var isInteger = true
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if position < bytes.count, isDigit(bytes[position]) { throw error("invalid number: leading zero", at: start) }
            } else {
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number: expected a digit after '.'") }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number: expected a digit in the exponent") }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger, let value = Int(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
            return .number(value)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func parseString() throws(JSONSyntaxError) -> String {
            position += 1
            let start = position
            // Fast path: no escapes. ASCII needs no UTF-8 validation.
            var ascii = true
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    position += 1
                    if ascii { return String(decoding: slice, as: UTF8.self) }
                    guard let text = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: start) }
                    return text
                }
                if byte >= 0x80 { ascii = false }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("unescaped control character in a string") }
                position += 1
            }
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: start) }
                    return text
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { throw error("unexpected end of input in a string") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""): utf8.append(0x22)
                    case UInt8(ascii: "\\"): utf8.append(0x5C)
                    case UInt8(ascii: "/"): utf8.append(0x2F)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        let scalar = try parseUnicodeEscape()
                        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: throw error("invalid escape '\\\(Self.printable(escape))' in a string", at: position - 2)
                    }
                default:
                    if byte < 0x20 { throw error("unescaped control character in a string") }
                    utf8.append(byte)
                    position += 1
                }
            }
            throw error("unterminated string", at: start - 1)
        }

        mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw error("unexpected end of input in a \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("invalid hex digit in a \\u escape")
                }
                value = value * 16 + UInt32(digit)
                position += 1
            }
            return value
        }

        mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
            let escapeStart = position - 2
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("lone high surrogate in a \\u escape", at: escapeStart)
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw error("invalid low surrogate in a \\u escape", at: escapeStart) }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("invalid \\u escape", at: escapeStart) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("lone low surrogate in a \\u escape", at: escapeStart) }
            return scalar
        }
    }
}

import Foundation
