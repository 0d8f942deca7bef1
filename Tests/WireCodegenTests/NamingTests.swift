import Testing
import WireSpec

@testable import WireCodegen

@Suite struct NamingTests {
    @Test func identifiers() {
        #expect(SwiftNames.upperCamel("pair_request") == "PairRequest")
        #expect(SwiftNames.upperCamel("image/png") == "ImagePng")
        #expect(SwiftNames.lowerCamel("last_seen_sequence") == "lastSeenSequence")
        #expect(SwiftNames.lowerCamel("deviceId") == "deviceId")
        #expect(SwiftNames.lowerCamel("URL") == "url")
        #expect(SwiftNames.lowerCamel("dark-blue") == "darkBlue")
        #expect(SwiftNames.lowerCamel("2fa") == "_2fa")
        #expect(SwiftNames.escaped("default") == "`default`" && SwiftNames.escaped("name") == "name")
        #expect(SwiftNames.literal("a\"b\\c\nd") == #""a\"b\\c\nd""#)
    }

    @Test func keywordsGetBackticksAsLabelsOnlyWhereSwiftAsksForThem() throws {
        let naming = try SwiftNaming(spec: spec("messages: {client: {hello: {fields: {}}}}"), namespace: nil)
        #expect(["inout", "let", "var", "for", "name"].map(naming.parameterLabel) == ["`inout`", "`let`", "`var`", "for", "name"])
        #expect(["inout", "let", "var", "for", "name"].map(naming.argumentLabel) == ["`inout`", "let", "var", "for", "name"])
    }

    func spec(_ messages: String) throws -> ProtocolSpec {
        try SpecLoader.check(
            yaml: """
                protocol: {name: demo, title: Demo, version: 1}
                transport: {kind: websocket, path: /ws}
                validation: {errorCode: bad}
                errors: {bad: {}}
                \(messages)
                """, file: "demo.yaml"
        ).get()
    }

    @Test func clashingNamesAreReportedAtTheSpec() throws {
        let clash = try spec(
            """
            types:
              Hello: {fields: {a: string}}
              Error: {fields: {b: string}}
            messages:
              client:
                hello: {fields: {}}
                error: {fields: {}}
            """)
        #expect(throws: GeneratorError.self) { try SwiftGenerator.generate(clash) }
        do {
            _ = try SwiftGenerator.generate(clash)
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    "demo.yaml:10:5: error: message 'client hello' would be generated as 'Hello', like type 'Hello'; give the message a 'typeName'"
                ], "a type named Error is fine: generated code says Swift.Error where it means Swift's")
        }
        #expect(SwiftGenerator.nameProblems(clash).count == 1, "lint reports the same problem")
    }

    @Test func messageNamesAvoidSwiftTypesAndDirectionClashes() throws {
        let generated = try spec(
            """
            messages:
              client:
                error: {fields: {}}
                typing: {fields: {}}
              server:
                typing: {fields: {}}
            """)
        let naming = try SwiftNaming(spec: generated, namespace: nil)
        #expect(generated.messages.map(naming.messageName) == ["ErrorMessage", "ClientTyping", "ServerTyping"])
    }
}
