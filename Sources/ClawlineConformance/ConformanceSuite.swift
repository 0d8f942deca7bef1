import Foundation
import WireProbe

/// What a run of the suite found.
public struct ConformanceRun: Sendable {
    /// A result per case, in order.
    public var results: [ConformanceResult]
    /// The admin the suite used: the one it paired on a fresh provider (keep it to run the suite
    /// again on the same provider), or the one it was given.
    public var admin: PairedDevice?
    /// Whether the provider had no devices when the suite started.
    public var providerWasFresh: Bool
}

/// The Clawline provider contract as a runnable suite: the rules the spec language cannot
/// state (across connections and devices, state the provider keeps, timers), each a case
/// that names its rule.
///
/// ```swift
/// let url = URL(string: "ws://127.0.0.1:8080/ws")!
/// let suite = ConformanceSuite(
///     options: ConformanceOptions(url: url), connector: WebSocketProbeConnector(url: url),
///     keepaliveConnector: RawWebSocketConnector(url: url))
/// let run = try await suite.run { print(CheckReport.line($0.row(nil))) }
/// ```
public struct ConformanceSuite: Sendable {
    /// Every case, in the order the suite runs them.
    public static var allCases: [ConformanceCase] {
        PairingCases.all + AuthenticationCases.all + SessionCases.all + StreamCases.all + ChatCases.all + RateLimitCases.all + TransferCases.all
            + RevocationCases.all + TimerCases.all + KeepaliveCases.all
    }

    /// The options.
    public let options: ConformanceOptions
    /// The cases this suite runs.
    public var cases: [ConformanceCase]
    private let connector: any ProbeConnector
    private let keepaliveConnector: (any PingObservingConnector)?

    /// A suite of `cases` (every case by default) against `options.url`, through `connector`
    /// (WireProbe's `WebSocketProbeConnector`, say) and, for the keepalive cases,
    /// `keepaliveConnector` (WireProbe's `RawWebSocketConnector`, which shows pings).
    public init(
        options: ConformanceOptions, connector: any ProbeConnector, keepaliveConnector: (any PingObservingConnector)? = nil,
        cases: [ConformanceCase] = ConformanceSuite.allCases
    ) {
        self.options = options
        self.connector = connector
        self.keepaliveConnector = keepaliveConnector
        self.cases = cases
    }

    /// Keeps only the cases whose name contains one of `names`.
    public mutating func keepCases(named names: [String]) {
        guard !names.isEmpty else { return }
        cases = cases.filter { conformanceCase in names.contains { conformanceCase.name.contains($0) } }
    }

    /// Runs the cases one after another, calling `report` with each result as it comes.
    ///
    /// Throws ``ConformanceSetupError`` when the suite cannot start: the provider cannot be
    /// reached, or it has devices and no admin was given.
    public func run(report: @Sendable (ConformanceResult) -> Void = { _ in }) async throws -> ConformanceRun {
        let context = ConformanceContext(options: options, connector: connector, keepaliveConnector: keepaliveConnector)
        try await context.start()
        let fresh = await context.providerWasFresh
        var results: [ConformanceResult] = []
        for conformanceCase in cases {
            let result = await run(conformanceCase, in: context, fresh: fresh)
            report(result)
            results.append(result)
        }
        await context.finish()
        return ConformanceRun(results: results, admin: await context.admin, providerWasFresh: fresh)
    }

    private func run(_ conformanceCase: ConformanceCase, in context: ConformanceContext, fresh: Bool) async -> ConformanceResult {
        if let reason = skipReason(conformanceCase, fresh: fresh) {
            return ConformanceResult(conformanceCase: conformanceCase, verdict: .skipped, got: "", detail: reason, duration: .zero)
        }
        let clock = ContinuousClock()
        let start = clock.now
        var verdict = ProbeResult.Verdict.passed
        var got: String
        var detail = ""
        do {
            got = try await conformanceCase.steps(context)
        } catch let breach as ContractBreach {
            verdict = .failed
            got = breach.got
            detail = "expected \(breach.expected)"
        } catch let skip as ConformanceSkip {
            verdict = .skipped
            got = ""
            detail = skip.description
        } catch {
            // A step before the rule's check failed: the rule is not judged.
            verdict = .setupFailed
            got = "the case could not reach the state its rule needs"
            detail = "setup: \(error)"
        }
        let (violations, warnings) = await context.finishCase()
        if !violations.isEmpty {
            verdict = .failed
            detail += (detail.isEmpty ? "" : "; ") + "the provider's frames broke the spec's session rules: " + violations.joined(separator: "; ")
        }
        if !warnings.isEmpty {
            if verdict == .passed { verdict = .warned }
            detail += (detail.isEmpty ? "" : "; ") + "provider limits absent (not rules of the contract): " + warnings.joined(separator: "; ")
        }
        return ConformanceResult(
            conformanceCase: conformanceCase, verdict: verdict, got: got, detail: detail, duration: start.duration(to: clock.now))
    }

    private func skipReason(_ conformanceCase: ConformanceCase, fresh: Bool) -> String? {
        for requirement in conformanceCase.requirements.sorted(by: { $0.rawValue < $1.rawValue }) {
            switch requirement {
            case .freshProvider where !fresh:
                return "needs a fresh provider (no devices when the suite starts); this one had devices, so an admin was given"
            case .operatorCommand where options.operatorCommand == nil:
                return "needs a way to revoke a device: pass --operator-cmd 'COMMAND {device}'"
            case .pingObservingTransport where keepaliveConnector == nil:
                return "needs a transport that shows pings (pass a keepaliveConnector; `clawline conformance` has one)"
            case .streamingAssistant where !options.streamingAssistant:
                return "needs an assistant whose answers stream for half a second or more, to go while one streams; "
                    + "pass --streaming-assistant for such a provider (clawline-server serve --assistant-pace-ms 20)"
            case .timers where !options.runTimers:
                return "waits for the contract's timers (\(conformanceCase.action)); pass --timers to run it"
            default: continue
            }
        }
        return nil
    }
}
