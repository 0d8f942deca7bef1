import Foundation
import Testing
import WireSpec
import WireTestSupport

@testable import ClawlineServer
@testable import WireProbe

/// `wire probe` against the reference provider (the `clawline-server` binary on a real clock, as
/// the probe paces by real time), and against broken providers it must catch.
@Suite(.serialized) struct ProbeTests {
    /// How long the probe waits for a provider's answer. The probe's marker ends every case a
    /// provider answers, so this bounds only a provider that does not; it is the probe's default,
    /// as a loaded machine (the whole suite beside a PostgreSQL restart) once missed 2 seconds.
    static let probeTimeout: Duration = .seconds(5)
    static let spec = try! SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path).get()

    /// Runs `plan` against a fresh `clawline-server` seen through `fault`.
    static func run(_ plan: ProbePlan, fault: ObservedFault? = nil) async throws -> [ProbeResult] {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let port = try await server.port()
        defer { Task { try await server.stop(with: SIGTERM) } }
        let real = WebSocketProbeConnector(url: URL(string: "ws://127.0.0.1:\(port)/ws")!)
        let connector: any ProbeConnector = fault.map { FaultyConnector(base: real, fault: $0) } ?? real
        let setup = ClawlinePairingSetup()
        let runner = ProbeRunner(spec: spec, connector: connector, setup: setup, timeout: probeTimeout)
        let results = try await runner.run(plan)
        await setup.finish()
        return results
    }

    static func plan(seed: UInt64 = 7) -> ProbePlan {
        ProbePlan(
            spec: spec, seed: seed, positiveCount: 4, reachable: ["authenticated"],
            skippingPositive: ["pair_decision": "depends on the provider's pending requests"])
    }

    @Test("Every case the spec yields holds on the reference provider")
    func everyCaseHoldsOnTheReferenceProvider() async throws {
        let results = try await Self.run(Self.plan())
        let failed = results.filter { $0.verdict != .passed }.map { "\($0.probeCase.name): \($0.got) \($0.detail)" }
        #expect(failed.isEmpty, "\(failed.joined(separator: "\n"))")
        #expect(results.count > 100)
        for kind in ProbeCase.Kind.allCases { #expect(results.contains { $0.probeCase.kind == kind }, "no \(kind) case ran") }
    }

    @Test("A provider whose answers are changed on the wire fails the case that names the rule", arguments: ObservedFault.allCases)
    func aBrokenProviderFailsTheCaseNamingTheRule(_ fault: ObservedFault) async throws {
        var plan = Self.plan()
        plan.keepCases { $0.name == fault.failingCase }
        #expect(plan.cases.count == 1, "the plan has the case \(fault.failingCase)")
        // Without the fault the case holds: everyCaseHoldsOnTheReferenceProvider runs it.
        let broken = try await Self.run(plan, fault: fault)
        // A limit the spec marks as its provider's own (the frame limit) is a warning, not a failure.
        let expected: [ProbeResult.Verdict] = plan.cases.map { $0.providerLimit ? .warned : .failed }
        #expect(broken.map(\.verdict) == expected, "\(fault) is caught by \(fault.failingCase): \(broken.map { "\($0.got) \($0.detail)" })")
    }
}

/// `wire probe` against in-process providers broken inside, one fault each. They pace by real
/// time but start no process, so they run side by side (ProbeTests starts `clawline-server`
/// processes and runs one case at a time).
@Suite struct ProbeFaultTests {
    @Test("A provider broken inside fails the probe case that names the broken rule", arguments: ProviderFault.probeFaults)
    func aProviderBrokenInsideFailsTheCaseNamingTheRule(_ fault: ProviderFault) async throws {
        let failing = try #require(fault.failingProbeCase)
        var plan = ProbeTests.plan()
        plan.keepCases { $0.name == failing }
        #expect(plan.cases.count == 1, "the plan has the case \(failing)")
        // Without the fault the case holds: everyCaseHoldsOnTheReferenceProvider runs it.
        let kept = plan
        let broken = try await Self.run(kept, faults: [fault])
        let expected: [ProbeResult.Verdict] = kept.cases.map { $0.providerLimit ? .warned : .failed }
        #expect(broken.map(\.verdict) == expected, "\(fault) is caught by \(failing): \(broken.map { "\($0.got) \($0.detail)" })")
    }
}

extension ProbeFaultTests {
    /// Runs `plan` with `--pair` against an in-process provider breaching the contract as `faults` say.
    static func run(_ plan: ProbePlan, faults: ProviderFaults) async throws -> [ProbeResult] {
        try await TestServer.run(realTime: true, configure: { $0.faults = faults }) { server in
            let setup = ClawlinePairingSetup()
            let runner = ProbeRunner(
                spec: ProbeTests.spec, connector: WebSocketProbeConnector(url: URL(string: server.url)!), setup: setup,
                timeout: ProbeTests.probeTimeout)
            let results = try await runner.run(plan)
            await setup.finish()
            return results
        }
    }
}

/// The probe's plan and its setup scripts, as values and against the reference provider.
@Suite struct ProbePlanTests {
    @Test("One seed gives the same cases; another seed other valid frames")
    func theSeedReplaysTheCases() {
        let first = ProbeTests.plan(seed: 11).cases
        #expect(first == ProbeTests.plan(seed: 11).cases)
        let other = ProbeTests.plan(seed: 12).cases
        #expect(first.filter { $0.kind == .positive }.map(\.frames) != other.filter { $0.kind == .positive }.map(\.frames))
    }

    @Test("Each rule the probe cannot check alone is a gap that says what else breaks")
    func gapsSayWhy() {
        let gaps = Dictionary(uniqueKeysWithValues: ProbeTests.plan().gaps.map { ($0.name, $0.reason) })
        #expect(gaps["message.messageBytes budget"]?.contains("stricter") == true)
        #expect(gaps["message.attachments[0].data maxDecodedBytes"]?.contains("budget") == true)
        #expect(gaps["rate limit pending_pairings"] != nil)
    }

    @Test("Placeholders: a fresh UUID per name, and values the provider sent")
    func placeholders() throws {
        var uuids: [String: String] = [:]
        let line = try ScriptSetup.substitute(
            #"{"deviceId":"${uuid:device}","again":"${uuid:device}","token":"${pair_result.token}"}"#, uuids: &uuids,
            captured: ["pair_result.token": "T"], place: "setup.jsonl:1")
        let device = try #require(uuids["device"])
        #expect(line == #"{"deviceId":"\#(device)","again":"\#(device)","token":"T"}"#)
        #expect(throws: ProbeSetupError.self) {
            try ScriptSetup.substitute("${auth_result.userId}", uuids: &uuids, captured: [:], place: "setup.jsonl:2")
        }
    }

    @Test("A --setup script reaches the authenticated phase on a fresh provider, and its cases hold")
    func aSetupScriptReachesItsPhase() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let port = try await server.port()
        defer { Task { try await server.stop(with: SIGTERM) } }
        let script = ScriptSetup(
            phase: "authenticated",
            lines: [
                #"{"type":"pair_request","protocolVersion":1,"deviceId":"${uuid:device}","deviceInfo":{"platform":"probe","model":"script"}}"#,
                #"{"$reconnect": true}"#,
                #"{"type":"auth","protocolVersion":1,"token":"${pair_result.token}","deviceId":"${uuid:device}"}"#,
            ], file: "setup.jsonl")
        var plan = ProbeTests.plan()
        plan.keepCases { $0.name.hasPrefix("typing") }
        let runner = ProbeRunner(
            spec: ProbeTests.spec, connector: WebSocketProbeConnector(url: URL(string: "ws://127.0.0.1:\(port)/ws")!), setup: script,
            timeout: ProbeTests.probeTimeout)
        let results = try await runner.run(plan)
        #expect(results.count > 4)
        #expect(
            results.allSatisfy { $0.verdict == .passed }, "\(results.filter { $0.verdict != .passed }.map { "\($0.probeCase.name): \($0.detail)" })")
    }
}

extension ProviderFault {
    /// The faults `wire probe` must catch: the rate limits and the answers to single frames.
    static var probeFaults: [ProviderFault] { allCases.filter { $0.failingProbeCase != nil } }

    /// The probe case that names the rule this fault breaks (`nil` for rules across
    /// connections and devices, which the conformance suite checks).
    var failingProbeCase: String? {
        switch self {
        case .messageLimitUnenforced: return "rate limit message"
        case .typingLimitUnenforced: return "rate limit typing"
        case .authLimitUnenforced: return "rate limit auth"
        case .pairRequestLimitUnenforced: return "rate limit pair_request"
        case .oversizeNeverCloses: return "rate limit oversize"
        case .sizeAnsweredAsInvalid: return "message.content maxBytes"
        case .refusalsNeverClose: return "pair_request.protocolVersion const"
        case .frameLimitClosesWith1008: return "unauthenticated frame over maxFrameBytes"
        case .notJSONAnsweredAsInvalid: return "unauthenticated not JSON"
        case .wrongPhaseCode: return "unauthenticated refuses message"
        case .refusesValidMessages: return "message valid #1"
        default: return nil
        }
    }
}
