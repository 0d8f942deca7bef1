import Foundation
import Testing
@_spi(Generated) import WireRuntime

/// The canonical writer that generated types write themselves with.
@Suite struct JSONOutputTests {
    func written(_ write: (inout JSONOutput) -> Void) -> String {
        var output = JSONOutput()
        write(&output)
        return output.text
    }

    @Test(arguments: [0, 7, -7, 10, 99, -100, 1_234_567_890, Int.max, Int.min])
    func integersAreWrittenAsSwiftPrintsThem(number: Int) {
        #expect(written { $0.integer(number) } == String(number))
    }

    @Test func numbersAreCanonical() {
        #expect(written { $0.number(2.0) } == "2")
        #expect(written { $0.number(-0.5) } == "-0.5")
        #expect(written { $0.number(1e300) } == "1e+300")
        #expect(written { $0.number(.infinity) } == "null")
        #expect(written { $0.number(9_007_199_254_740_994) } == "9.007199254740994e+15")
        // A decimal kept as received stays a decimal.
        #expect(written { $0.json(.number(2.0)) } == "2.0")
    }

    @Test func stringsUseOnlyTheEscapesJSONRequires() {
        #expect(written { $0.string("a\"b\\c\n\t\u{1}/é") } == #""a\"b\\c\n\t\u0001/é""#)
        #expect(written { $0.string("") } == #""""#)
    }

    /// The writer finds the bytes to escape eight at a time: each one is found wherever it falls
    /// in a word, next to plain ASCII and non-ASCII runs, and at the end of the text. Foundation's
    /// parser reads each string back, and its length shows that nothing else was escaped.
    @Test func everyByteToEscapeIsFoundWhereverItFallsInAWord() throws {
        /// Two bytes for the escapes JSON has a letter for, six (`\u00XX`) for other control bytes.
        let lettered: Set<UInt8> = [0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C]
        let special = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + ["\"", "\\"]
        for byte in special {
            for before in 0..<17 {
                for text in [
                    String(repeating: "a", count: before) + byte, String(repeating: "a", count: before) + byte + "é😀" + byte + "zzzzzzzzz",
                    String(repeating: "é", count: before) + byte + String(repeating: "\u{7F}", count: before),
                ] {
                    let json = written { $0.string(text) }
                    let read = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
                    #expect(read == text, "\(Array(text.utf8))")
                    let escapes = text.utf8.reduce(0) { $0 + ($1 >= 0x20 && $1 != 0x22 && $1 != 0x5C ? 0 : lettered.contains($1) ? 1 : 5) }
                    #expect(json.utf8.count == text.utf8.count + 2 + escapes, "\(json)")
                }
            }
        }
    }

    @Test func containersPutCommasBetweenMembersAndItems() {
        let text = written { output in
            output.beginObject()
            output.key("a")
            output.array([1, 2]) { output, item in output.integer(item) }
            output.key("b")
            output.beginObject()
            output.endObject()
            output.key("c")
            output.object(["é": true, "z": false, "A": true]) { output, flag in output.bool(flag) }
            output.endObject()
        }
        #expect(text == #"{"a":[1,2],"b":{},"c":{"A":true,"z":false,"é":true}}"#)
    }

    @Test func pendingMembersMergeIntoTheFixedOrder() {
        var pending = JSONOutput.PendingMembers(sorted: [("kind", "x")])
        pending.add(["z": 1, "c": 2, "kind": "ignored", "b": "known"], known: ["b"])
        let text = written { output in
            output.beginObject()
            output.members(&pending, before: "b")
            output.key("b")
            output.integer(0)
            output.members(&pending, before: "d")
            output.key("d")
            output.null()
            output.remainingMembers(&pending)
            output.endObject()
        }
        #expect(text == #"{"b":0,"c":2,"d":null,"kind":"x","z":1}"#)
    }

    @Test func aJSONValueWritesAsJSONWriterWritesIt() throws {
        let value = try JSONParser.parse(#"{"b":[1,2.5,"x",null,false],"a":{"d":{},"c":[]}}"#)
        #expect(written { $0.json(value) } == JSONWriter.string(value))
        #expect(JSONWriter.string(value) == #"{"a":{"c":[],"d":{}},"b":[1,2.5,"x",null,false]}"#)
    }
}
