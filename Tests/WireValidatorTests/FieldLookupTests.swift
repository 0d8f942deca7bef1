import Testing
import WireRuntime
import WireSpec
import WireValidator

/// The engine finds a frame's declared fields in one walk over its members: each key's signature
/// slot names the fields it can be. Keys that share a slot, escaped keys (which fall back to a
/// lookup per field), members in any order and objects too large for a key sketch must all find
/// the same fields, so every way of writing a frame gets the same issues.
@Suite struct FieldLookupTests {
    /// A spec whose named types are `types` (a YAML flow mapping), whose client messages are
    /// `clientMessages` (YAML, indented for `client:`), and whose server has one message, `ok`.
    static func spec(types: String = "{}", clientMessages: String) -> String {
        """
        protocol: {name: slots, title: Slots, version: 1}
        transport: {kind: websocket, path: /slots}
        errors:
          not_put: {description: The frame breaks a field's rule.}
        validation: {errorCode: not_put}
        types: \(types)
        messages:
          client:
        \(clientMessages)
          server:
            ok: {fields: {n: integer}}
        """
    }

    /// `ab`, `gx` and `hq` share one signature slot (length 2; first and last bytes).
    static let yaml = spec(
        clientMessages: """
                put:
                  fields:
                    ab: integer
                    gx: {type: string, maxLength: 3}
                    hq: {type: boolean, optional: true}
                    note: {type: string, optional: true}
            """)

    /// The issues `frame` gets as a client frame, as `rule at path`.
    static func issues(_ frame: String) throws -> [String] {
        try clientFrameIssues(frame, spec: yaml, file: "slots.yaml")
    }

    @Test func fieldsThatShareASlotAreEachFound() throws {
        #expect(try Self.issues(#"{"type":"put","ab":1,"gx":"abc","hq":true}"#) == [])
        #expect(try Self.issues(#"{"type":"put","ab":1,"gx":"abcd"}"#) == ["maxLength at $.gx"])
        #expect(try Self.issues(#"{"type":"put","ab":1,"gx":"abc","hq":"yes"}"#) == ["type at $.hq"])
        #expect(try Self.issues(#"{"type":"put","gx":"abc","hq":false}"#) == ["required at $.ab"])
        #expect(try Self.issues(#"{"type":"put","ab":"one","gx":7}"#) == ["type at $.ab", "type at $.gx"])
    }

    @Test func escapedKeysAndAnyOrderFindTheSameFields() throws {
        let expected = ["type at $.ab", "maxLength at $.gx", "type at $.hq"]
        for frame in [
            #"{"type":"put","ab":"one","gx":"abcd","hq":1}"#,
            #"{"hq":1,"gx":"abcd","ab":"one","type":"put"}"#,
            #"{"type":"put","\u0061b":"one","gx":"abcd","h\u0071":1}"#,
            #"{"\u0074ype":"put","hq":1,"ab":"one","\u0067x":"abcd"}"#,
        ] {
            #expect(try Self.issues(frame) == expected, "\(frame)")
        }
    }

    @Test func anObjectTooLargeForAKeySketchFindsItsFields() throws {
        // 40 unknown members besides the declared ones: the object keeps no key sketch.
        let extra = (0..<40).map { #""x\#($0)":\#($0)"# }.joined(separator: ",")
        let large = try Self.issues(#"{"type":"put","ab":"one",\#(extra),"gx":"abcd"}"#)
        let small = try Self.issues(#"{"type":"put","ab":"one","gx":"abcd"}"#)
        #expect(small == ["type at $.ab", "maxLength at $.gx"])
        #expect(large.filter { !$0.hasPrefix("unknownField") } == small)
    }

    /// Message tags are found the same way: `ab`, `gx` and `hq` share a signature slot, and each
    /// frame is checked as its own message; an escaped tag is found by its text; a tag of the
    /// slot that no message has is unknown.
    @Test func tagsThatShareASlotEachFindTheirMessage() throws {
        let yaml = Self.spec(
            clientMessages: """
                    ab: {fields: {a: integer}}
                    gx: {fields: {g: string}}
                    hq: {fields: {h: boolean}}
                """)
        let spec = try SpecLoader.check(yaml: yaml, file: "tags.yaml").get()
        let validator = FrameValidator(spec: spec)
        func outcome(_ frame: String) -> String {
            switch validator.check(Array(frame.utf8), direction: .client) {
            case .checked(let tag, let issues): "\(tag): " + issues.map { "\($0.rule) at \($0.path)" }.joined(separator: ", ")
            case .unknownType(let tag): "unknown \(tag)"
            case .notAFrame(let reason): "not a frame: \(reason)"
            case .notJSON(let error): "not JSON: \(error)"
            }
        }
        #expect(outcome(#"{"type":"ab","a":1}"#) == "ab: ")
        #expect(outcome(#"{"type":"gx","g":"x"}"#) == "gx: ")
        #expect(outcome(#"{"type":"hq","h":true}"#) == "hq: ")
        #expect(outcome(#"{"type":"hq","g":"x"}"#) == "hq: required at $.h")
        #expect(outcome(#"{"type":"\u0067x","g":1}"#) == "gx: type at $.g")
        #expect(outcome(#"{"type":"a\u0062","a":1}"#) == "ab: ")
        #expect(outcome(#"{"type":"ok","n":1}"#) == "unknown ok", "a server tag is not a client message")
        #expect(outcome(#"{"type":"ax","a":1}"#) == "unknown ax")
    }

    /// Enumeration values are found the same way: `ab`, `gx` and `hq` share a signature slot, an
    /// escaped value is known by its text, and a value of the slot that the enumeration does not
    /// have is reported (an error when the enumeration is closed, a warning when it is open).
    @Test func enumValuesThatShareASlotAreEachKnown() throws {
        let yaml = Self.spec(
            types: "{Letters: {enum: [ab, gx, hq, red]}, Open: {open: true, enum: [ab, gx]}}",
            clientMessages: """
                    pick: {fields: {c: Letters, o: {type: Open, optional: true}}}
                """)
        func issues(_ frame: String) throws -> [String] { try clientFrameIssues(frame, spec: yaml, file: "enums.yaml") }
        for value in ["ab", "gx", "hq", "red", #"\u0067x"#, #"h\u0071"#] {
            #expect(try issues(#"{"type":"pick","c":"\#(value)","o":"gx"}"#) == [], "\(value)")
        }
        #expect(try issues(#"{"type":"pick","c":"ax"}"#) == ["enum at $.c"], "a value of the same slot that is not one")
        #expect(try issues(#"{"type":"pick","c":"a"}"#) == ["enum at $.c"])
        #expect(try issues(#"{"type":"pick","c":1}"#) == ["type at $.c"])
        #expect(try issues(#"{"type":"pick","c":"ab","o":"\u0061b"}"#) == [])
        #expect(try issues(#"{"type":"pick","c":"ab","o":"hq"}"#) == ["unknownEnumValue at $.o"], "an open enumeration warns")
    }
}
