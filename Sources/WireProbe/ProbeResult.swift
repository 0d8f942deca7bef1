import WireRuntime

/// What came of one case.
public struct ProbeResult: Sendable {
    /// How a case ended.
    public enum Verdict: String, Sendable, Hashable {
        /// The provider answered as the spec says.
        case passed
        /// It did not.
        case failed
        /// The provider kept the contract, but a limit the spec states as a provider's own (not a
        /// rule of the contract) is absent; ``ProbeResult/detail`` says which. Not a failure.
        case warned
        /// The case could not reach the state its rule needs (a setup step failed): the rule was
        /// not judged. ``ProbeResult/detail`` names the step and what the provider answered.
        case setupFailed = "setup-failed"
        /// The case did not run; ``ProbeResult/detail`` says why.
        case skipped
    }

    /// The case.
    public var probeCase: ProbeCase
    /// How it ended.
    public var verdict: Verdict
    /// What came back, in words (`invalid_message, then close 1008`, `nothing within 5 s`).
    public var got: String
    /// Why it failed or was skipped, or a note on a pass; empty when there is nothing to add.
    public var detail: String
    /// How long the case took.
    public var duration: Duration

    /// A result.
    public init(probeCase: ProbeCase, verdict: Verdict, got: String, detail: String = "", duration: Duration = .zero) {
        self.probeCase = probeCase
        self.verdict = verdict
        self.got = got
        self.detail = detail
        self.duration = duration
    }

    /// The expected answer in words.
    public var expected: String { probeCase.expected?.summary ?? "no error, no close" }
}

/// What the provider sent for the frames of a case, up to the probe's marker.
struct Observed: Sendable {
    /// Each error frame: its code and the message id it names, if any.
    var errors: [(code: String, names: String?)] = []
    /// The close, if the socket closed: its code.
    var close: Int??
    /// Whether the marker's answer came (the provider read everything before it).
    var markerAnswered = false

    var words: String {
        var parts = errors.map { error in error.names.map { "\(error.code) naming \($0)" } ?? error.code }
        if let close { parts.append("close \(close.map(String.init) ?? "without a code")") }
        if parts.isEmpty { return markerAnswered ? "no error, no close" : "nothing" }
        return parts.joined(separator: ", then ")
    }
}
