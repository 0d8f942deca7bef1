@_spi(Generated) import ClawlineProtocol
import Testing
@_spi(Generated) import WireCodegen
@_spi(Generated) import WireRuntime
@_spi(Generated) import WireSpec
import WireTestSupport

/// The generated tables (session rules, rate limits, the frame plan) and the ones `wire validate`
/// builds from the spec at run time are the same values, so the runtime judges a server, a
/// client and a capture alike.
@Suite struct SameTablesAsGeneratedCodeTests {
    static let spec = try! SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path).get()

    @Test func sessionRulesAreTheSpecsProjection() {
        #expect(Clawline.sessionRules == Self.spec.sessionRuleSet)
        #expect(!Clawline.sessionRules.uniqueness.allSatisfy { $0.shapes.isEmpty })
    }

    @Test func rateLimitsAreTheSpecsProjection() {
        #expect(Clawline.RateLimits.all.map { $0.mapCodes(\.rawValue) } == Self.spec.rateLimitRules)
    }

    @Test func theValidationPlanIsTheSpecsProjection() {
        let generated = PlanPrinter.expression(Clawline.validationPlan)
        #expect(generated == PlanPrinter.expression(Self.spec.validationPlan))
        #expect(Clawline.validationPlan.messages.count == Self.spec.messages.count)
    }
}
