import Testing
import WireRuntime

@testable import WireSpec

/// The language additions Clawline's 2026 revisions needed: maps with typed keys, transitions that
/// apply in some phases only, union messages that keep unknown cases, and clients that ignore
/// server frames of unknown types.
@Suite struct RevisionLanguageTests {
    @Test func typedMapKeysParseAndPrint() throws {
        #expect(try TypeRef.parse("map<Key, array<Value>>").get() == .map(key: .named("Key"), value: .array(.named("Value"))))
        #expect(try TypeRef.parse("map<integer>").get() == .map(key: .string, value: .integer))
        #expect(TypeRef.map(key: .named("Key"), value: .integer).description == "map<Key, integer>")
        #expect(TypeRef.map(key: .string, value: .integer).description == "map<integer>", "a string key is the plain map")
        #expect(TypeRef.map(key: .named("K"), value: .named("V")).referencedNames == ["K", "V"])
        for malformed in ["map<A, B, C>", "map<A,>", "array<A, B>", "map<,B>"] {
            #expect(throws: TypeRefSyntaxError.self, "\(malformed)") { try TypeRef.parse(malformed).get() }
        }
    }

    @Test func typedMapKeysMustBeStrings() {
        let found = diagnostics(
            preamble + """

                types:
                  Count: {type: integer, minimum: 0}
                  Key: {type: string, prefix: k_}
                messages:
                  client:
                    c:
                      fields:
                        good: map<Key, Count>
                        bad: map<Count, string>
                        nested: array<map<boolean, string>>
                        missing: map<Nope, string>
                """)
        #expect(
            found == [
                "test.yaml:13:9: error: the keys of 'map<Count, string>' in field 'bad' of message 'client c' are 'Count', which is integer; "
                    + "JSON object keys are strings, so a map's key type must be string, a string alias or an enum",
                "test.yaml:14:9: error: the keys of 'map<boolean, string>' in field 'nested' of message 'client c' are 'boolean', which is "
                    + "boolean; JSON object keys are strings, so a map's key type must be string, a string alias or an enum",
                "test.yaml:15:18: error: undefined type 'Nope' in field 'missing'",
            ])
    }

    @Test func transitionsCanApplyInSomePhasesOnly() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  server:
                    ready: {fields: {}}
                    info: {fields: {}}
                session:
                  phases:
                    start: {initial: true, server: [ready]}
                    waiting: {server: [info]}
                    live: {server: [info]}
                  transitions:
                    - {on: server ready, to: waiting}
                    - {on: server info, from: waiting, to: live}
                    - {on: server info, from: [live], to: live}
                """)
        let transitions = try #require(spec.session?.transitions)
        #expect(transitions.map(\.from) == [[], ["waiting"], ["live"]])
        #expect(spec.sessionRuleSet.transitions.map(\.from) == [[], ["waiting"], ["live"]], "the runtime table keeps them")
    }

    @Test func transitionPhasesMustExistAndAllowTheFrame() {
        let found = diagnostics(
            preamble + """

                messages:
                  server:
                    ready: {fields: {}}
                session:
                  phases:
                    start: {initial: true, server: [ready]}
                    quiet: {}
                  transitions:
                    - {on: server ready, from: [quiet, nowhere], to: start}
                """)
        #expect(
            found == [
                "test.yaml:13:7: error: transition on 'server ready' applies in phase 'quiet', which does not allow server ready; "
                    + "it could never apply there",
                "test.yaml:13:40: error: 'from' in transition 1 names phase 'nowhere', which is not declared",
            ])
    }

    @Test func unionMessagesMayKeepUnknownCases() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  Started: {fields: {payload: {type: json}}}
                messages:
                  server:
                    event:
                      tag: event
                      open: true
                      cases: {started: Started}
                """)
        let event = try #require(spec.message(MessageRef(direction: .server, tag: "event")))
        #expect(event.variants?.open == true)
    }

    @Test func clientsMayIgnoreUnknownServerFrames() throws {
        let header = """
            protocol: {name: demo, title: Demo, version: 1}
            transport: {kind: websocket, path: /ws}
            errors: {bad: {}}
            messages: {client: {hi: {fields: {}}}}

            """
        #expect(try loadValid(header + "validation: {errorCode: bad}").unknownServerFrames == .reject, "rejecting is the default")
        #expect(try loadValid(header + "validation: {errorCode: bad, unknownServerFrames: ignore}").unknownServerFrames == .ignore)
        #expect(
            diagnostics(header + "validation: {errorCode: bad, unknownServerFrames: drop}") == [
                "test.yaml:5:51: error: 'unknownServerFrames' in 'validation' must be one of 'reject', 'ignore', found 'drop'"
            ])
    }
}
