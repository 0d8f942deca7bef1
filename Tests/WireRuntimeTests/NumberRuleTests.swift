import Testing
@_spi(Generated) @testable import WireRuntime

/// Number rules: an integer inside the range that surely passes them is settled inline by the
/// plan's walk (`NumberRules.surelyPasses(integer:)`); everywhere, that answer must be one the
/// full check gives, at the bounds, for fractional bounds, for the epoch-milliseconds format and
/// for integers too large to compare exactly as `Double`s.
@Suite struct NumberRuleTests {
    static let answer = ViolationAnswer(code: "invalid_message")

    /// Whether the full check passes `value` as an integer.
    func fullCheckPasses(_ value: Int, _ rules: NumberRules) -> Bool {
        var context = ValidationContext(sizeAnswer: ViolationAnswer(code: "payload_too_large"))
        return context.integer(.integer(value), at: .root, rules: rules, answer: Self.answer) != nil && context.issues.isEmpty
    }

    @Test func quickAnswersAreTheFullChecks() {
        let limit = 253_402_300_799_999
        let rules = [
            NumberRules(minimum: 0),
            NumberRules(minimum: 1, maximum: 10),
            NumberRules(minimum: 0.5, maximum: 9.5),
            NumberRules(minimum: -3.5),
            NumberRules(format: .epochMillis),
            NumberRules(minimum: 5, format: .epochMillis),
            NumberRules(maximum: 1e300),
            NumberRules(minimum: -1e300),
            NumberRules(minimum: 1e300),
            NumberRules(constant: .integer(3)),
        ]
        let values = [
            Int.min, -(1 << 53) - 1, -(1 << 53), -4, -3, -1, 0, 1, 2, 3, 5, 9, 10, 11, limit, limit + 1, 1 << 53, (1 << 53) + 1, Int.max,
        ]
        for (position, rule) in rules.enumerated() {
            for value in values {
                let full = fullCheckPasses(value, rule)
                #expect(!rule.surelyPasses(integer: value) || full, "rules \(position), \(value)")
            }
        }
        // Inside the exact range the quick answer is the full one.
        for value in [-3, 0, 1, 9, 10, 11] {
            #expect(NumberRules(minimum: 1, maximum: 10).surelyPasses(integer: value) == (1...10).contains(value))
            #expect(NumberRules(minimum: 0.5, maximum: 9.5).surelyPasses(integer: value) == (1...9).contains(value))
        }
        #expect(NumberRules(format: .epochMillis).surelyPasses(integer: limit))
        #expect(!NumberRules(format: .epochMillis).surelyPasses(integer: -1))
        #expect(!NumberRules(constant: .integer(3)).surelyPasses(integer: 3), "a constant goes to the full check")
    }
}
