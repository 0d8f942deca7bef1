import ClawlineClient
import ClawlineConformance
import Foundation
import Testing
import WireProbe
import WireTestSupport

@testable import ClawlineServer

/// `clawline conformance` against the reference provider (the `clawline-server` binary, with its
/// `devices revoke` as the operator's command), and against providers broken in one known way,
/// each caught by the case that names the broken rule.
@Suite(.serialized) struct ConformanceTests {
    /// An echo assistant whose answers stream for about 0.6 s (32 snapshots, 20 ms apart).
    static let pacedAssistant = EchoAssistant(pace: .milliseconds(20))
    static let finder = SpecLineFinder(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path)

    @Test("Every case holds on the reference provider, fresh, with the operator's command")
    func everyCaseHoldsOnTheReferenceProvider() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(["serve", "--port", "0", "--data-dir", data, "--assistant-pace-ms", "20"])
        let port = try await server.port()
        defer { Task { try await server.stop(with: SIGTERM) } }
        let url = URL(string: "ws://127.0.0.1:\(port)/ws")!
        let revoke = "'\(ServerProcess.executable.path)' devices revoke --data-dir '\(data)' {device}"
        let options = ConformanceOptions.overNIO(url: url, timeout: .seconds(5), operatorCommand: revoke, streamingAssistant: true)
        let run = try await ConformanceSuite(options: options, connector: WebSocketProbeConnector(url: url)).run()
        #expect(run.providerWasFresh)
        let notPassed = run.results.filter { $0.verdict != .passed }.map { "\($0.conformanceCase.name): \($0.got) \($0.detail)" }
        // Only the timer cases wait for --timers.
        #expect(notPassed.count == TimerCasesCount.value, "\(notPassed.joined(separator: "\n"))")
        #expect(run.results.filter { $0.verdict == .failed }.isEmpty)
        // Every rule is found in the spec, so every report line has its file:line.
        for result in run.results { #expect(result.row(Self.finder).line > 0, "\(result.conformanceCase.rule.dottedPath) is in the spec") }

        // Run again on the same provider, which now has devices: the fresh-provider case is skipped with its reason.
        let again = try await ConformanceSuite(
            options: ConformanceOptions.overNIO(url: url, admin: run.admin), connector: WebSocketProbeConnector(url: url),
            cases: ConformanceSuite.allCases.filter { $0.requirements.contains(.freshProvider) }
        ).run()
        #expect(!again.providerWasFresh)
        #expect(again.results.map(\.verdict) == [.skipped])
        #expect(again.results.first?.detail.contains("fresh provider") == true)
    }

    @Test("A provider with devices and no admin given cannot be checked: the suite says what to pass")
    func aProviderWithDevicesNeedsAnAdmin() async throws {
        try await TestServer.run(realTime: true) { server in
            let url = URL(string: server.url)!
            let first = ConformanceSuite(options: ConformanceOptions.overNIO(url: url), connector: WebSocketProbeConnector(url: url), cases: [])
            _ = try await first.run()
            let second = ConformanceSuite(
                options: ConformanceOptions.overNIO(url: url, timeout: .milliseconds(500)), connector: WebSocketProbeConnector(url: url), cases: [])
            let error = await #expect(throws: ConformanceSetupError.self) { try await second.run() }
            #expect(error?.description.contains("--admin-file") == true)
        }
    }

    /// Runs `cases` against an in-process provider with `faults`, whose assistant streams slowly
    /// enough for the stream cases to catch an answer while active.
    static func results(
        of cases: [ConformanceCase], faults: ProviderFaults, timeout: Duration = .seconds(2)
    ) async throws -> [ConformanceResult] {
        try await TestServer.run(realTime: true, assistant: pacedAssistant, configure: { $0.faults = faults }) { server in
            let url = URL(string: server.url)!
            let options = ConformanceOptions.overNIO(url: url, timeout: timeout, streamingAssistant: true)
            return try await ConformanceSuite(options: options, connector: WebSocketProbeConnector(url: url), cases: cases).run().results
        }
    }

    @Test("A broken provider fails the case that names the broken rule", arguments: ProviderFault.conformanceFaults)
    func aBrokenProviderFailsTheCaseNamingTheRule(_ fault: ProviderFault) async throws {
        let failing = try #require(fault.failingConformanceCase)
        let cases = ConformanceSuite.allCases.filter { $0.name == failing }
        #expect(cases.count == 1, "the suite has the case \(failing)")
        // Without the fault the case holds: everyCaseHoldsOnTheReferenceProvider runs it.
        let results = try await Self.results(of: cases, faults: [fault])
        #expect(results.map(\.verdict) == [.failed], "\(fault) is caught by \(failing): \(results.map { "\($0.got) \($0.detail)" })")
        // Caught by the rule's check, not by a step before it that could not run.
        #expect(results.first?.got != "the case could not run", "\(fault): \(results.first?.detail ?? "")")
    }
}

extension ConformanceTests {
    @Test("What the contract lets a provider choose holds: the provider closing the pairing socket after a success")
    func aProviderThatClosesThePairingSocketAfterASuccessPasses() async throws {
        let cases = ConformanceSuite.allCases.filter { $0.group == "pairing" }
        let results = try await Self.results(of: cases, faults: [.pairingSocketClosedAfterSuccess])
        #expect(!results.isEmpty)
        let notPassed = results.filter { $0.verdict != .passed }.map { "\($0.conformanceCase.name): \($0.got) \($0.detail)" }
        #expect(notPassed.isEmpty, "\(notPassed.joined(separator: "\n"))")
    }

    @Test("An auth over the limit answered as the protocol author's provider does (auth_result rate_limited, then 1008) passes")
    func theAuthorsRateLimitedAuthResultPasses() async throws {
        let cases = ConformanceSuite.allCases.filter { $0.name == "rate-limit.auth" }
        let results = try await Self.results(of: cases, faults: [.authLimitAnsweredAsResult])
        #expect(results.map(\.verdict) == [.passed], "\(results.map { "\($0.got) \($0.detail)" })")
    }

    @Test("A provider without a provider limit the spec states (nosniff on downloads) passes with a warning, not a failure")
    func anAbsentProviderLimitIsAWarning() async throws {
        let cases = ConformanceSuite.allCases.filter { $0.name == "transfer.download-in-the-account" }
        let results = try await Self.results(of: cases, faults: [.downloadsWithoutNosniff])
        #expect(results.map(\.verdict) == [.warned], "\(results.map { "\($0.got) \($0.detail)" })")
        #expect(results.first?.detail.contains("nosniff") == true)
        #expect(CheckReport.exitStatus(results.map(\.verdict)) == 0)
    }
}

extension ConformanceTests {
    @Test("A provider the suite cannot set devices up on gets setup failures naming the step and the answers, never a failed rule")
    func setupFailuresAreNotRuleFailures() async throws {
        let cases = ConformanceSuite.allCases.filter { $0.group == "chat" }
        let results = try await Self.results(of: cases, faults: [.newAccountsRefused], timeout: .seconds(1))
        #expect(results.count == cases.count, "every case ran")
        let setup = results.filter { $0.verdict == .setupFailed }
        #expect(results.filter { $0.verdict == .failed }.isEmpty, "\(results.map { "\($0.conformanceCase.name): \($0.detail)" })")
        #expect(!setup.isEmpty)
        for result in setup {
            // The step, and what the admin's socket got: the provider's invalid_message.
            #expect(result.detail.contains("approving device") && result.detail.contains("invalid_message"), "\(result.detail)")
        }
        #expect(CheckReport.exitStatus(results.map(\.verdict)) == 2)
        #expect(CheckReport.counts(results.map(\.verdict)).contains("\(setup.count) setup failures"))
    }
}

/// How many cases wait for `--timers`.
enum TimerCasesCount {
    static var value: Int { ConformanceSuite.allCases.filter { $0.requirements.contains(.timers) }.count }
}

extension ProviderFault {
    /// The faults the conformance suite must catch (the others break single frames, which `wire probe` checks).
    static var conformanceFaults: [ProviderFault] { allCases.filter { $0.failingConformanceCase != nil } }

    /// The conformance case that names the rule this fault breaks.
    var failingConformanceCase: String? {
        switch self {
        case .messageLimitUnenforced: return "rate-limit.message"
        case .typingLimitUnenforced: return "rate-limit.typing"
        case .authLimitUnenforced: return "rate-limit.auth"
        case .pairRequestLimitUnenforced: return "rate-limit.pair-request"
        case .oversizeNeverCloses: return "rate-limit.oversize"
        case .takeoverWithoutSessionReplaced: return "session.takeover"
        case .replayIgnoresCursor: return "session.replay-after-the-cursor"
        case .retryMakesNewEvent: return "chat.retried-id-is-one-event"
        case .retryWithOtherContentAccepted: return "chat.retry-with-other-content-refused"
        case .echoOnlyToSender: return "chat.ack-then-echo-to-every-device"
        case .pendingRequestsNotResent: return "pairing.pending-requests-sent-again-on-admin-auth"
        case .membersMayDecide: return "pairing.only-admins-decide"
        case .denialLeavesSocketOpen: return "pairing.denied-device-is-told-and-closed"
        case .downloadsAcrossAccounts: return "transfer.other-accounts-cannot-download"
        case .streamOutlivesItsSocket: return "session.close-cancels-the-stream"
        case .takeoverCancelsTheStream: return "session.takeover-moves-the-stream"
        case .pairingSocketClosedAfterSuccess, .downloadsWithoutNosniff, .authLimitAnsweredAsResult, .newAccountsRefused, .claimedNameCleanedUp,
            .protocolVersionClosedWithoutCode:
            return nil
        case .sizeAnsweredAsInvalid, .refusalsNeverClose, .frameLimitClosesWith1008, .notJSONAnsweredAsInvalid, .wrongPhaseCode,
            .refusesValidMessages:
            return nil
        }
    }
}

extension ConformanceOptions {
    /// Options whose transfer cases send their HTTP requests over SwiftNIO (`NIOHTTPExchange`),
    /// never `URLSession`, whose libdispatch event loop has crashed this test process on Linux.
    static func overNIO(
        url: URL, timeout: Duration = .seconds(5), admin: ClawlineConformance.PairedDevice? = nil, operatorCommand: String? = nil,
        streamingAssistant: Bool = false
    ) -> ConformanceOptions {
        var options = ConformanceOptions(
            url: url, timeout: timeout, admin: admin, operatorCommand: operatorCommand, streamingAssistant: streamingAssistant)
        options.sendHTTP = NIOHTTPExchange().send
        return options
    }
}
