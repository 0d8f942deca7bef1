import Testing
import WireRuntime

/// The helpers a reader uses to take a document's known parts from its bytes and scan only the
/// rest: plain strings, plain integers, and a value parsed where it sits inside a larger document.
@Suite struct JSONTapeReadingAheadTests {
    static func endOfPlainString(_ text: String, from start: Int = 0) -> Int? {
        Array(text.utf8).withUnsafeBufferPointer { JSONTape.endOfPlainString(in: $0, from: start) }
    }

    static func plainInteger(_ text: String, from start: Int = 0) -> (value: Int, end: Int)? {
        Array(text.utf8).withUnsafeBufferPointer { JSONTape.plainInteger(in: $0, from: start) }
    }

    @Test("a plain string ends at its quote, found a word at a time and in the last few bytes")
    func plainStrings() {
        #expect(Self.endOfPlainString(#"abc","#) == 3)
        #expect(Self.endOfPlainString(#"""#) == 0)
        #expect(Self.endOfPlainString(#"0123456789abcdefghij","#) == 20)
        #expect(Self.endOfPlainString(#"x"0123456789"#, from: 2) == nil, "no closing quote")
        #expect(Self.endOfPlainString(#"{"session":"pair-A#0","dir""#, from: 12) == 20)
        // Anything whose text is not its bytes, or that JSON forbids, is not plain: in a word and after it.
        for text in [#"ab\"c""#, "a\u{1}b\"", "aé\"", "01234567ab\\\"", "01234567a\u{7}\"", "01234567aé\""] {
            #expect(Self.endOfPlainString(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test("a plain integer has 1 to 18 digits and no leading zero; what follows is the caller's")
    func plainIntegers() {
        #expect(Self.plainInteger("0,")! == (0, 1))
        #expect(Self.plainInteger("7")! == (7, 1))
        #expect(Self.plainInteger("1704672000000,")! == (1_704_672_000_000, 13))
        #expect(Self.plainInteger("12345678")! == (12_345_678, 8))
        #expect(Self.plainInteger("123456789012345678}")! == (123_456_789_012_345_678, 18))
        #expect(Self.plainInteger("ts:42", from: 3)! == (42, 5))
        #expect(Self.plainInteger("1.5")! == (1, 1), "the fraction is the caller's to refuse")
        for text in ["", "-1", "01", "x1", "1234567890123456789", "12345678901234567890123"] {
            #expect(Self.plainInteger(text) == nil, "\(text)")
        }
    }

    @Test("a value parsed inside a larger document counts the containers around it towards the nesting limit")
    func enclosingDepth() throws {
        let depth = JSONParser.maxDepth
        let nested = Array((String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)).utf8)
        var tape = JSONTape()
        try tape.parse(in: nested, range: nested.indices, enclosingDepth: 1)
        #expect(tape.tokenCount == depth - 1)
        #expect(throws: JSONSyntaxError.self) { try tape.parse(in: nested, range: nested.indices, enclosingDepth: 2) }
        // The value is read from its part of the buffer: tokens count from the range's start.
        let line = Array(#"{"frame":{"a":[1,2]}}"#.utf8)
        try tape.parse(in: line, range: 9..<(line.count - 1), enclosingDepth: 1)
        #expect(tape.value(JSONTape.root) == .object(["a": .array([.integer(1), .integer(2)])]))
    }
}
