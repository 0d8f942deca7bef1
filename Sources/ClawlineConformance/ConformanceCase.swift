import WireProbe

/// One rule of the contract, checked against a live provider: what the case does, the rule it
/// checks, what it needs, and its steps.
public struct ConformanceCase: Sendable {
    /// What a case needs beyond a reachable provider.
    public enum Requirement: String, Sendable, Hashable, CaseIterable {
        /// A provider with no devices when the suite starts.
        case freshProvider
        /// `--operator-cmd`, to revoke a token.
        case operatorCommand
        /// Waiting for the contract's timers (minutes), with `--timers`.
        case timers
        /// A transport that shows the provider's pings (``ConformanceSuite``'s `keepaliveConnector`).
        case pingObservingTransport
        /// An assistant whose answers stream long enough for a socket to go meanwhile
        /// (``ConformanceOptions/streamingAssistant``, `--streaming-assistant`).
        case streamingAssistant
    }

    /// The case's name (`session.takeover`).
    public var name: String
    /// Its group (`pairing`, `session`, `chat`, `rate-limit`, `keepalive`, `transfer`, `revocation`).
    public var group: String
    /// The rule it checks.
    public var rule: ContractRule
    /// What it does, in short (the report's "sent").
    public var action: String
    /// What it needs; without it, the case is skipped with the reason.
    public var requirements: Set<Requirement>
    /// The steps: they throw a ``ContractBreach`` when the provider breaks the rule, and return
    /// what came back, in words.
    let steps: @Sendable (ConformanceContext) async throws -> String

    /// A case.
    public init(
        _ name: String, group: String, rule: ContractRule, action: String, requires requirements: Set<Requirement> = [],
        steps: @escaping @Sendable (ConformanceContext) async throws -> String
    ) {
        self.name = name
        self.group = group
        self.rule = rule
        self.action = action
        self.requirements = requirements
        self.steps = steps
    }
}

/// What came of one case.
public struct ConformanceResult: Sendable {
    /// The case.
    public var conformanceCase: ConformanceCase
    /// How it ended.
    public var verdict: ProbeResult.Verdict
    /// What came back, in words.
    public var got: String
    /// Why it failed or was skipped.
    public var detail: String
    /// How long it took.
    public var duration: Duration

    /// The case's row in a report, its rule found by `finder` when one is given.
    public func row(_ finder: SpecLineFinder?) -> CheckReportRow {
        CheckReportRow(
            verdict: verdict, name: conformanceCase.name, group: conformanceCase.group,
            file: finder?.file ?? "Spec/clawline.yaml#\(conformanceCase.rule.dottedPath)",
            line: finder?.line(of: conformanceCase.rule.path) ?? 0, sent: conformanceCase.action,
            expected: conformanceCase.rule.statement, got: got, detail: detail, duration: duration)
    }
}
