import Foundation
import Testing
@_spi(Generated) import WireRuntime

/// The strict JSON parser and the canonical writer.
@Suite struct JSONParserTests {
    func parse(_ text: String) -> Result<JSONValue, JSONSyntaxError> {
        Result { () throws(JSONSyntaxError) in try JSONParser.parse(text) }
    }

    @Test func valuesAndNumbers() throws {
        #expect(
            try JSONParser.parse(#"{"a":[1,-2,1.5,1e3,1.0,true,false,null,"x"]}"#) == [
                "a": [1, -2, 1.5, 1000.0, .number(1.0), true, false, nil, "x"]
            ])
        #expect(try JSONParser.parse("9223372036854775808") == .number(9_223_372_036_854_775_808.0), "too big for Int")
        #expect(try JSONParser.parse(" \n\t\"\\u00e9\\ud83d\\ude00\\n\" ") == .string("é😀\n"))
    }

    @Test(arguments: [
        ("", "empty input at line 1, column 1"),
        ("{\"a\":1,}", "expected a string key in an object at line 1, column 8"),
        ("[1,]", "unexpected character ']' at line 1, column 4"),
        ("01", "invalid number: leading zero at line 1, column 1"),
        ("1.", "invalid number: expected a digit after '.' at line 1, column 3"),
        ("\"\\ud800\"", "lone high surrogate in a \\u escape at line 1, column 2"),
        ("\"a\u{1}\"", "unescaped control character in a string at line 1, column 3"),
        ("{\"a\":1,\"a\":2}", "duplicate key 'a' in an object at line 1, column 8"),
        ("tru", "unexpected end of input at line 1, column 1"),
        ("[fals]", "invalid literal, expected 'false' at line 1, column 2"),
        ("[nul]", "invalid literal, expected 'null' at line 1, column 2"),
        ("{} {}", "unexpected data after the JSON value at line 1, column 4"),
        ("// comment\n{}", "unexpected character '/' at line 1, column 1"),
        ("{\n\"a\": [1, 2\n}", "expected ',' or ']' in an array at line 3, column 1"),
    ])
    func rejectsWithALocatedReason(_ input: String, _ expected: String) {
        guard case .failure(let error) = parse(input) else {
            Issue.record("accepted \(input)")
            return
        }
        #expect(error.description == expected)
    }

    /// The literals are compared a word at a time: a change to any byte after the first (which
    /// chose the literal) is refused, and each literal is read where it ends a document too.
    @Test func literalsAreReadWholeAndExactly() throws {
        for (literal, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)] {
            #expect(try JSONParser.parse(literal) == value)
            #expect(try JSONParser.parse("[\(literal),\(literal)]") == .array([value, value]))
            let bytes = Array(literal.utf8)
            for index in 1..<bytes.count {
                for replacement in [UInt8(ascii: "x"), bytes[index] ^ 0x20] {
                    var changed = bytes
                    changed[index] = replacement
                    guard case .failure(let error) = parse(String(decoding: changed, as: UTF8.self)) else {
                        Issue.record("accepted \(String(decoding: changed, as: UTF8.self))")
                        continue
                    }
                    #expect(error.reason == "invalid literal, expected '\(literal)'")
                }
            }
        }
    }

    @Test func invalidUTF8AndDeepNesting() throws {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        // Invalid bytes after valid text, after a raw non-ASCII character, and after a \u escape
        // above U+007F (found by the scanner fuzzers): validation covers every raw byte.
        let escape = Array(#"\u2222"#.utf8)
        let long = Array(repeating: UInt8(ascii: "a"), count: 20)
        for body in [long + [0xFF], Array("é".utf8) + long + [0xFF], escape + long + [0xFF] + long, escape + [0xC3]] {
            #expect(throws: JSONSyntaxError.self, "\(body)") { try JSONParser.parse([0x22] + body + [0x22]) }
        }
        let valid = try JSONParser.parse([0x22] + escape + long + Array("é".utf8) + [0x22])
        #expect(valid == .string("\u{2222}" + String(repeating: "a", count: 20) + "é"))
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        guard case .failure(let error) = parse(deep) else {
            Issue.record("accepted 10,000 levels")
            return
        }
        #expect(error.reason == "nesting deeper than 256 levels")
    }

    @Test func canonicalWriter() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":{"é":"x\"y\\z\n\u0001/","A":[1.5,2.0,-0]},"c":null}"#)
        #expect(JSONWriter.string(value) == #"{"a":{"A":[1.5,2.0,0],"é":"x\"y\\z\n\u0001/"},"b":1,"c":null}"#)
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
        let two = 2.0
        let twoAndAHalf = 2.5
        #expect(JSONValue(two) == .integer(2) && JSONValue(twoAndAHalf) == .number(2.5), "typed Doubles encode canonically")
    }
}
