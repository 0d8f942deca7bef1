import Foundation
import Testing
import WireRuntime

/// Tests/Fixtures/names.yaml names its types after Swift's and the runtime's (`String`,
/// `JSONValue`, `Error`, ...), its fields and enum values after Swift keywords and the generated
/// code's own names. That this target compiles is the first test: what `wire lint` accepts
/// generates code that compiles. The tests below check the code also works.
@Suite struct GeneratedNamesTests {
    @Test func typesNamedLikeSwiftsAndTheRuntimesWork() throws {
        let frame = ClientFrame.decode(text: #"{"type":"class","string":{"value":1},"type_field":"default","open":"self"}"#)
        guard case .class(let message) = try #require(frame.frame) else {
            Issue.record("expected a `class` frame: \(frame.rejectionReason ?? "")")
            return
        }
        #expect(message.string == String(value: 1), "the spec's own `String`")
        #expect(message.typeField == .default && message.open == .self_, "a case named like a member moves aside with `_`")
        #expect(Swift.String(describing: message.string!.value) == "1")
    }

    @Test func fieldsNamedLikeKeywordsAndTheDecodersOwnNamesRoundTrip() throws {
        let fields = Fields(
            class: 1, init_: 12, `inout`: 11, default: 2, self_: 3, json: 4, path: 5, context: 6, answer: 7, object: 8, value: 9, jsonValue_: 10)
        let text = ClientFrame.default(Default(fields: fields)).encodedText()
        let decoded = try #require(ClientFrame.decode(text: text).frame)
        #expect(decoded == .default(Default(fields: fields)))
        #expect(text.contains(#""self":3"#) && text.contains(#""json_value":10"#) && text.contains(#""inout":11"#), "the wire keeps the spec's names")
    }

    @Test func enumValuesThatMapToOneNameAreNumbered() throws {
        #expect(Keywords(rawValue: "protocol") == .protocol && Keywords(rawValue: "Protocol") == .protocol2)
        #expect(Keywords.allCases.count == Swift.Set(Keywords.allCases.map(\.rawValue)).count, "`Set` here is the spec's own type")
        #expect(OpenKeywords(rawValue: "unknown") == .unknownValue && OpenKeywords(rawValue: "raw_value") == .rawValue_)
        #expect(OpenKeywords(rawValue: "something new") == .unknown("something new"))
    }

    @Test func theErrorMessageAvoidsShadowingSwiftsError() throws {
        let text = #"{"type":"error","code":"bad","list":[{"value":1}],"map":{"a":{"value":2}}}"#
        let frame = try #require(ServerFrame.decode(text: text).frame)
        guard case .error(let message) = frame else {
            Issue.record("expected an error frame")
            return
        }
        #expect(message.code == .bad && message.list == [Array(value: 1)] && message.map == ["a": Dictionary(value: 2)])
        let swiftError: any Swift.Error = CancellationError()
        #expect(swiftError is CancellationError)
    }
}
