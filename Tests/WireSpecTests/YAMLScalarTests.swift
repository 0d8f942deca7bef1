import Testing

@testable import WireSpec

/// Plain scalars resolve under the YAML 1.2 core schema, whichever path the text takes.
@Suite struct YAMLScalarTests {
    @Test(arguments: [
        ("", YAMLScalar.null), ("~", .null), ("null", .null), ("Null", .null), ("NULL", .null),
        ("true", .bool(true)), ("False", .bool(false)),
        ("42", .integer(42)), ("-7", .integer(-7)), ("+3", .integer(3)), ("1_000", .integer(1000)),
        ("0x1F", .integer(31)), ("0o17", .integer(15)),
        ("1.5", .number(1.5)), (".5", .number(0.5)), ("-2e3", .number(-2000)),
        ("string", .string("string")), ("nullable", .string("nullable")), ("_1", .string("_1")),
        ("1st", .string("1st")), ("-inf", .string("-inf")), ("inf", .string("inf")), ("٣", .string("٣")),
    ])
    func resolvesAsTheCoreSchemaSays(text: String, expected: YAMLScalar) {
        #expect(YAMLScalar.resolve(text) == expected)
        #expect(YAMLScalar.isNull(text) == (expected == .null))
    }
}
