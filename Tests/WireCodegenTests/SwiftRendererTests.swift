import Testing

@testable import WireCodegen

/// The renderer lays out the structured representation; the wrapper keeps every line within 150
/// columns by breaking lists, one-line closures and, as a last resort, string literals.
@Suite struct SwiftRendererTests {
    let wrapper = SwiftLineWrapper(limit: 40)

    @Test func shortLinesStayAsTheyAre() {
        #expect(wrapper.wrap("    let a = f(b, c)") == ["    let a = f(b, c)"])
    }

    @Test("A comment is never broken at its brackets (a pattern such as [0-9]{4} in a doc comment)")
    func commentsStayWhole() {
        let line = "    /// matches `(?:[0-9]{4}-(?:0[1-9]|1[0-2]))` exactly"
        #expect(wrapper.wrap(line) == [line])
    }

    @Test func anArgumentListGoesOneArgumentPerLine() {
        #expect(
            wrapper.wrap("    let value = compute(first, second: 2, third: [1, 2])") == [
                "    let value = compute(",
                "        first,",
                "        second: 2,",
                "        third: [1, 2]",
                "    )",
            ])
    }

    @Test func whatFollowsTheListStaysOnTheClosingLine() {
        #expect(
            wrapper.wrap("if let value = context.member(object, key, at: path()) {") == [
                "if let value = context.member(",
                "    object,",
                "    key,",
                "    at: path()",
                ") {",
            ])
    }

    @Test func bracketsAndCommasInsideStringLiteralsAreText() {
        let line = ##"    f("a, (b", "c]", #"d", e"#, "\(g(h, i))")"##
        #expect(
            wrapper.wrap(line) == [
                "    f(",
                #"        "a, (b","#,
                #"        "c]","#,
                ##"        #"d", e"#,"##,
                #"        "\(g(h, i))""#,
                "    )",
            ])
    }

    @Test func aStillTooLongItemIsWrappedAgain() {
        let lines = wrapper.wrap("outer(inner(alphabet, betamax, gammaray, deltaforce), other)")
        #expect(
            lines == [
                "outer(",
                "    inner(",
                "        alphabet,",
                "        betamax,",
                "        gammaray,",
                "        deltaforce",
                "    ),",
                "    other",
                ")",
            ])
        #expect(lines.allSatisfy { $0.count <= 40 })
    }

    @Test func aOneLineClosurePutsItsBodyOnItsOwnLine() {
        #expect(
            wrapper.wrap("list.map { item in transformed(item).value }") == [
                "list.map { item in",
                "    transformed(item).value",
                "}",
            ])
    }

    @Test func aLongStringLiteralIsSplitAtASpace() {
        let lines = wrapper.wrap(#"    return "the quick brown fox jumps over the lazy dog""#)
        #expect(lines == [#"    return "the quick brown fox " +"#, #"        "jumps over the lazy dog""#])
        #expect(lines.allSatisfy { $0.count <= 40 })
    }

    @Test func docTextWrapsAtSpacesAndKeepsListItemsIndented() {
        #expect(
            wrapper.wrapDocLine("one two three four five six seven eight nine", indent: 0) == [
                "one two three four five six seven", "eight nine",
            ])
        #expect(
            wrapper.wrapDocLine("  - name: one two three four five six seven", indent: 0) == [
                "  - name: one two three four five", "    six seven",
            ])
    }

    @Test func theRendererWrapsSignaturesAndDocComments() {
        let file = SwiftFile(
            name: "A.swift", imports: [SwiftImport(module: "WireRuntime", spi: "Generated")],
            declarations: [
                .function(
                    FunctionDeclaration(
                        doc: String(repeating: "word ", count: 40), access: .public, isStatic: true,
                        signature:
                            "decode(from json: WireRuntime.JSONValue, at path: @autoclosure () -> WireRuntime.JSONPath, in context: inout "
                            + "WireRuntime.ValidationContext) -> Self?",
                        body: [.line("nil")]
                    ))
            ])
        let text = SwiftRenderer.render(file, header: "// header")
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 150 })
        #expect(text.hasPrefix("// header\n@_spi(Generated) import WireRuntime\n\n/// word word"))
        #expect(text.contains("public static func decode(\n    from json: WireRuntime.JSONValue,\n"))
        #expect(text.hasSuffix(") -> Self? {\n    nil\n}\n"))
    }
}
