import Testing

@_spi(Generated) import WireRuntime

/// A byte budget sums the sizes of its paths' strings in one object: through nested objects and
/// arrays, base64 counted by its decoded bytes where the term says so.
@Suite struct ByteBudgetRuleTests {
    static func total(_ rule: ByteBudgetRule, _ json: String) throws -> Int {
        var tape = JSONTape()
        try tape.parse(json)
        return tape.withView { rule.total(in: $0, object: JSONTape.root) }
    }

    @Test("paths through objects and arrays are summed; base64 counts its decoded bytes")
    func sums() throws {
        let rule = ByteBudgetRule(
            name: "payload",
            terms: [.init(keys: ["content"], decoded: false), .init(keys: ["attachments", "data"], decoded: true)], max: 100)
        let frame = #"{"content":"héllo","attachments":[{"data":"AAAA"},{"data":"AAECAw=="},{"other":"x"}],"extra":"ignored"}"#
        // "héllo" is 6 bytes; "AAAA" decodes to 3, "AAECAw==" to 4.
        #expect(try Self.total(rule, frame) == 13)
        #expect(try Self.total(rule, #"{"attachments":{"data":"AAAA"}}"#) == 3)
        #expect(try Self.total(rule, #"{"content":7,"attachments":"AAAA"}"#) == 0, "only strings at the end of a path count")
    }

    @Test("a term whose keys change afterwards follows the new path")
    func changedKeys() throws {
        var term = ByteBudgetRule.Term(keys: ["a"], decoded: false)
        term.keys = ["b", "c"]
        let rule = ByteBudgetRule(name: "b", terms: [term], max: 1)
        #expect(try Self.total(rule, #"{"a":"xx","b":{"c":"yyy"}}"#) == 3)
    }
}
