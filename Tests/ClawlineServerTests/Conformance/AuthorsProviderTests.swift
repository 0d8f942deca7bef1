import ClawlineConformance
import Foundation
import Testing
import WireProbe
import WireTestSupport

@testable import ClawlineServer

/// Both checkers, every case, against a provider that departs from the spec as the protocol
/// author's own provider does, one departure at a time. Each run must reach every case, report
/// the departure by the case that names it, and never blame a rule for a setup step it could not take.
@Suite(.serialized) struct AuthorsProviderTests {
    /// What each tool must report against one departure: the probe's failing cases (by the rule
    /// they break), and whether conformance cases cannot set up (never failed rules).
    struct Departure: Sendable, CustomTestStringConvertible {
        var name: String
        var faults: ProviderFaults
        /// Which probe cases break the rule the departure breaks.
        var probeFails: @Sendable (ProbeCase) -> Bool
        /// Whether conformance cases cannot set up on it (setup failures, never failed rules).
        var conformanceSetupFails: Bool
        /// The conformance cases whose rule it breaks.
        var conformanceFails: Set<String> = []
        var testDescription: String { name }
    }

    static let departures: [Departure] = [
        // Only `user_<uuid4>` account ids in `pair_decision`: the reference provider refuses other
        // new ids itself (AccountID), as the author's does; the kit names new accounts that way and
        // the probe approves into its admin's account.
        Departure(name: "only user_<uuid4> account ids", faults: [], probeFails: { _ in false }, conformanceSetupFails: false),
        Departure(
            name: "claimedName cleaned up", faults: [.claimedNameCleanedUp],
            probeFails: { $0.kind == .negative && $0.name.hasPrefix("pair_request.claimedName") && !$0.name.hasSuffix("null") },
            conformanceSetupFails: false),
        Departure(
            name: "wrong protocolVersion closed without a code", faults: [.protocolVersionClosedWithoutCode],
            probeFails: { $0.kind == .negative && $0.name.contains(".protocolVersion ") && $0.expected?.closeCode == 1008 },
            conformanceSetupFails: false),
        // A stricter provider than the author's: no new account at all. The suite cannot set its
        // devices up, and says so; the probe (one account, its admin's) is not affected.
        Departure(
            name: "no new accounts", faults: [.newAccountsRefused], probeFails: { _ in false }, conformanceSetupFails: true,
            conformanceFails: ["pairing.approved-device-joins-the-account"]),
    ]

    @Test("Every case of wire probe runs; only the cases naming the departure fail; no setup step is blamed", arguments: departures)
    func theProbe(_ departure: Departure) async throws {
        let plan = ProbeTests.plan()
        let results = try await ProbeFaultTests.run(plan, faults: departure.faults)
        print("wire probe against \(departure.name): \(CheckReport.counts(results.map(\.verdict)))")
        #expect(results.count == plan.cases.count, "every case ran")
        #expect(!results.contains { $0.verdict == .skipped || $0.verdict == .setupFailed }, "\(Self.lines(results))")
        let failed = Set(results.filter { $0.verdict == .failed }.map(\.probeCase.name))
        let expected = Set(plan.cases.filter(departure.probeFails).map(\.name))
        #expect(failed == expected, "\(Self.lines(results.filter { $0.verdict == .failed }))")
        for result in results where result.verdict == .failed {
            if departure.faults.has(.claimedNameCleanedUp) {
                // The request the provider accepted was dealt with, and the report says how.
                #expect(result.detail.contains("the probe's admin"), "\(result.detail)")
            }
            if departure.faults.has(.protocolVersionClosedWithoutCode) {
                #expect(result.detail.contains("closed with no code, the spec says 1008"), "\(result.detail)")
            }
        }
    }

    @Test("Every case of clawline conformance runs; no rule fails because of a setup step", arguments: departures)
    func theConformanceSuite(_ departure: Departure) async throws {
        let cases = ConformanceSuite.allCases
        let results = try await ConformanceTests.results(of: cases, faults: departure.faults, timeout: .seconds(1))
        print("clawline conformance against \(departure.name): \(CheckReport.counts(results.map(\.verdict)))")
        #expect(results.count == cases.count, "every case ran")
        let failed = results.filter { $0.verdict == .failed }
        #expect(
            Set(failed.map(\.conformanceCase.name)) == departure.conformanceFails,
            "\(failed.map { "\($0.conformanceCase.name): \($0.got) \($0.detail)" })")
        // The case naming the account id says what the admin's decision got.
        for result in failed { #expect(result.got.contains("invalid_message"), "\(result.got)") }
        // Skipped: only cases needing what this run does not give (--timers, --operator-cmd, a transport showing pings).
        let notGiven: Set<ConformanceCase.Requirement> = [.timers, .operatorCommand, .pingObservingTransport]
        let skipped = results.filter { $0.verdict == .skipped }
        #expect(
            skipped.allSatisfy { !$0.conformanceCase.requirements.isDisjoint(with: notGiven) },
            "\(skipped.map { "\($0.conformanceCase.name): \($0.detail)" })")
        let setup = results.filter { $0.verdict == .setupFailed }
        #expect(setup.isEmpty == !departure.conformanceSetupFails, "\(setup.map { "\($0.conformanceCase.name): \($0.detail)" })")
        #expect(CheckReport.exitStatus(results.map(\.verdict)) == (failed.isEmpty ? (departure.conformanceSetupFails ? 2 : 0) : 1))
    }

    static func lines(_ results: [ProbeResult]) -> String {
        results.map { "\($0.probeCase.name): \($0.verdict.rawValue) \($0.got) \($0.detail)" }.joined(separator: "\n")
    }
}
