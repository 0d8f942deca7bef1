import ClawlineProtocol
import Testing
import WireRuntime
import WireSpec
import WireTestSupport

/// The generated session tables and the ones `wire validate` builds from the spec at run time are
/// the same values, so the session machine judges a server, a client and a capture alike.
@Suite struct SameSessionRulesAsGeneratedCodeTests {
    static let spec = try! SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path).get()

    @Test func sessionRulesAreTheSpecsProjection() {
        #expect(Clawline.sessionRules == Self.spec.sessionRuleSet)
        #expect(!Clawline.sessionRules.uniqueness.allSatisfy { $0.shapes.isEmpty })
    }

    @Test func rateLimitsAreTheSpecsProjection() {
        #expect(Clawline.RateLimits.all.map { $0.mapCodes(\.rawValue) } == Self.spec.rateLimitRules)
    }
}
