/// A case's finding that the provider broke the rule: what the contract expects and what came
/// back. Thrown by a case's checks; the runner reports it as the case's failure.
public struct ContractBreach: Error, CustomStringConvertible, Sendable {
    /// What the contract expects.
    public var expected: String
    /// What the provider did.
    public var got: String

    /// A breach: `expected`, but `got`.
    public init(expected: String, got: String) {
        self.expected = expected
        self.got = got
    }

    public var description: String { "expected \(expected), got \(got)" }
}

/// Why a case could not run its checks at all (a step the contract does not judge failed: the
/// provider could not be reached, a device could not be paired); reported as the case's setup
/// failure (`SETUP`, exit status 2) with the reason, never as its rule failing, or as exit status
/// 2 when the suite's own setup fails.
public struct ConformanceSetupError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, and what to do.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Why a case that ran could not judge its rule on this provider, though nothing failed (the
/// provider's assistant answers too fast for a stream to be caught while active, say): reported
/// as the case's skip, with the reason.
public struct ConformanceSkip: Error, CustomStringConvertible, Sendable {
    /// Why the rule could not be judged.
    public var description: String

    /// A skip saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Throws a ``ContractBreach`` unless `condition` holds.
func require(_ condition: Bool, expected: @autoclosure () -> String, got: @autoclosure () -> String) throws(ContractBreach) {
    if !condition { throw ContractBreach(expected: expected(), got: got()) }
}
