import Testing
import WireRuntime
import WireSpec
import WireValidator

/// Whether a conditional rule applies is decided on the parsed frame, without building values: a
/// string condition by its bytes, a boolean by its kind, a number by its value. Each kind of value
/// must decide the same way however the frame writes it.
@Suite struct ConditionMatchTests {
    static let yaml = """
        protocol: {name: conditions, title: Conditions, version: 1}
        transport: {kind: websocket, path: /conditions}
        errors:
          not_put: {description: The frame breaks a rule.}
        validation: {errorCode: not_put}
        messages:
          client:
            put:
              fields:
                n: integer
                ratio: {type: number, optional: true}
                flag: {type: boolean, optional: true}
                mode: {type: string, optional: true}
                note: {type: string, optional: true}
                kind: {type: string, optional: true}
                label: {type: string, optional: true}
              rules:
                - when: {n: [1, 2]}
                  require: [note]
                - when: {ratio: 0.5, flag: true}
                  forbid: [note]
                - when: {mode: [fast, slow]}
                  then: {flag: false}
                - when: {kind: named}
                  then: {label: "é", ratio: [0.5, 2]}
          server:
            ok: {fields: {n: integer}}
        """

    /// The issues `frame` gets as a client frame, as `rule at path`.
    static func issues(_ frame: String) throws -> [String] {
        try clientFrameIssues(frame, spec: yaml, file: "conditions.yaml")
    }

    @Test func integerConditionsMatchByValue() throws {
        #expect(try Self.issues(#"{"type":"put","n":1}"#) == ["conditional at $.note"])
        #expect(try Self.issues(#"{"type":"put","n":2}"#) == ["conditional at $.note"])
        #expect(try Self.issues(#"{"type":"put","n":2,"note":"x"}"#) == [])
        #expect(try Self.issues(#"{"type":"put","n":3}"#) == [])
    }

    @Test func everyConditionOfARuleMustHold() throws {
        // A number and a boolean: the rule applies only when both hold.
        #expect(try Self.issues(#"{"type":"put","n":0,"ratio":0.5,"flag":true,"note":"x"}"#) == ["conditional at $.note"])
        #expect(try Self.issues(#"{"type":"put","n":0,"ratio":5e-1,"flag":true,"note":"x"}"#) == ["conditional at $.note"])
        #expect(try Self.issues(#"{"type":"put","n":0,"ratio":0.5,"flag":false,"note":"x"}"#) == [])
        #expect(try Self.issues(#"{"type":"put","n":0,"ratio":0.25,"flag":true,"note":"x"}"#) == [])
        #expect(try Self.issues(#"{"type":"put","n":0,"flag":true,"note":"x"}"#) == [])
    }

    @Test func stringConditionsMatchByTheirBytesEscapedOrNot() throws {
        for mode in ["fast", "slow", #"f\u0061st"#, #"\u0073low"#] {
            #expect(try Self.issues(#"{"type":"put","n":0,"mode":"\#(mode)","flag":true}"#) == ["conditional at $.flag"], "\(mode)")
            #expect(try Self.issues(#"{"type":"put","n":0,"mode":"\#(mode)","flag":false}"#) == [], "\(mode)")
        }
        for mode in ["fas", "faster", "FAST", ""] {
            #expect(try Self.issues(#"{"type":"put","n":0,"mode":"\#(mode)","flag":true}"#) == [], "\(mode)")
        }
    }

    @Test func rulesReportInTheirOrder() throws {
        #expect(try Self.issues(#"{"type":"put","n":1,"mode":"fast","flag":true}"#) == ["conditional at $.note", "conditional at $.flag"])
    }

    /// A rule that applies is first decided in place (required present, forbidden absent, expected
    /// values by their bytes or kind); whatever that cannot settle goes to the full check, which
    /// compares values as `JSONValue`s and has the last word.
    @Test func consequencesAreDecidedInPlaceAndByValueWhereBytesDiffer() throws {
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"é","ratio":2}"#) == [])
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"\u00e9","ratio":0.5}"#) == [])
        // The same text decomposed: other bytes, equal as text, so the full check passes it.
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"e\u0301","ratio":2}"#) == [])
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"e","ratio":2}"#) == ["conditional at $.label"])
        // A null is also a type issue here (the fields are not nullable); the rule reports it as missing.
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":null,"ratio":2}"#).contains("conditional at $.label"))
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"é"}"#) == ["conditional at $.ratio"])
        #expect(try Self.issues(#"{"type":"put","n":0,"kind":"named","label":"é","ratio":3}"#) == ["conditional at $.ratio"])
        // Forbidden present as null, required present as null: neither holds.
        #expect(try Self.issues(#"{"type":"put","n":0,"ratio":0.5,"flag":true,"note":null}"#).contains("conditional at $.note"))
        #expect(try Self.issues(#"{"type":"put","n":1,"note":null}"#).contains("conditional at $.note"))
    }
}
