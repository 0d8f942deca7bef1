import Foundation
import Testing

@testable import WireSpec

/// Type expressions read the same whether their text is ASCII (read byte by byte) or not (read
/// character by character).
@Suite struct TypeRefTests {
    @Test func asciiExpressionsParse() throws {
        let expected: [(String, TypeRef)] = [
            ("string", .string), ("integer", .integer), ("number", .number), ("boolean", .boolean), ("json", .json),
            ("Device_2", .named("Device_2")), ("x", .named("x")),
            ("array<string>", .array(.string)),
            (" array < map < Key ,\tarray<Value> > >\n", .array(.map(key: .named("Key"), value: .array(.named("Value"))))),
            ("map<\r\ninteger>", .map(key: .string, value: .integer)),
        ]
        for (text, type) in expected {
            #expect(try TypeRef.parse(text).get() == type, "\(text.debugDescription)")
        }
    }

    @Test func nonASCIIExpressionsParseByCharacter() throws {
        let expected: [(String, TypeRef)] = [
            ("Größe", .named("Größe")),
            ("array<\u{00A0}Größe>", .array(.named("Größe"))),
            ("map<Clé, e\u{301}tat>", .map(key: .named("Clé"), value: .named("e\u{301}tat"))),
            ("Zähler٣", .named("Zähler٣")),
        ]
        for (text, type) in expected {
            #expect(try TypeRef.parse(text).get() == type, "\(text.debugDescription)")
        }
    }

    @Test func malformedExpressionsFailInEitherReading() {
        let malformed = [
            "", " ", "2fa", "_name", "array", "array<>", "array<string", "array<string>>", "map<A, B, C>", "map<A,>", "map<,B>",
            "array<A, B>", "a-b", "Größe>", "map<Ä,>", "٣x", "array<Größe",
        ]
        for text in malformed {
            #expect(throws: TypeRefSyntaxError.self, "\(text.debugDescription)") { try TypeRef.parse(text).get() }
        }
    }
}

/// Names (of types, messages, fields) are judged as Foundation's character sets judged them: a
/// letter or mark first, then letters, marks, numbers and `_`.
@Suite struct SpecNameTests {
    @Test func namesAreJudgedAsFoundationsCharacterSetsJudgedThem() {
        let ranges: [ClosedRange<UInt32>] = [0x00...0xFF, 0x300...0x36F, 0x391...0x3C9, 0x410...0x44F, 0x660...0x669, 0x2160...0x216B]
        for scalar in ranges.joined().compactMap(Unicode.Scalar.init) {
            let text = String(scalar)
            #expect(SpecReader.isIdentifier(text) == CharacterSet.letters.contains(scalar), "U+\(String(scalar.value, radix: 16)) first")
            let later = CharacterSet.alphanumerics.contains(scalar) || scalar == "_"
            #expect(SpecReader.isIdentifier("a" + text) == later, "U+\(String(scalar.value, radix: 16)) after a letter")
        }
    }

    @Test func namesOfSeveralScalars() {
        for name in ["deviceId", "Device_2", "x", "Größe", "e\u{301}tat", "Zähler٣"] {
            #expect(SpecReader.isIdentifier(name), "\(name)")
        }
        for name in ["", "2fa", "_name", "device-id", "device id", "a.b", "٣x", "naïve!"] {
            #expect(!SpecReader.isIdentifier(name), "\(name)")
        }
    }
}
