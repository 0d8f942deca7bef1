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
    /// in a word, next to plain ASCII and non-ASCII runs, and at the end of the text.
    @Test func everyByteToEscapeIsFoundWhereverItFallsInAWord() {
        func expected(_ text: String) -> String {
            var escaped = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\r": escaped += "\\r"
                case "\t": escaped += "\\t"
                case "\u{8}": escaped += "\\b"
                case "\u{C}": escaped += "\\f"
                case let control where control.value < 0x20:
                    let hex = String(control.value, radix: 16)
                    escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped + "\""
        }
        let special = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + ["\"", "\\"]
        for byte in special {
            for before in 0..<17 {
                for text in [
                    String(repeating: "a", count: before) + byte, String(repeating: "a", count: before) + byte + "é😀" + byte + "zzzzzzzzz",
                    String(repeating: "é", count: before) + byte + String(repeating: "\u{7F}", count: before),
                ] {
                    #expect(written { $0.string(text) } == expected(text), "\(Array(text.utf8))")
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
