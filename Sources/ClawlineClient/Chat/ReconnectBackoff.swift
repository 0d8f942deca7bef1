import ClawlineProtocol

/// The delays between reconnection attempts: the spec's initial delay, doubled after every
/// failed attempt up to its maximum, plus a random jitter; reset only after an `auth_result`
/// success (a socket that opens and then fails authentication keeps growing the delay).
public struct ReconnectBackoff: Sendable {
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var maxJitter: Duration
    private var attempt = 0
    private var random: @Sendable () -> Double

    /// The spec's backoff; `random` returns a value in `0..<1` for the jitter.
    public init(
        initialDelay: Duration = Clawline.Constants.reconnectInitialDelay, maxDelay: Duration = Clawline.Constants.reconnectMaxDelay,
        maxJitter: Duration = Clawline.Constants.reconnectMaxJitter, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxJitter = maxJitter
        self.random = random
    }

    /// How many attempts failed since the last reset.
    public var failedAttempts: Int { attempt }

    /// The delay before the next attempt; counts one more failed attempt.
    public mutating func nextDelay() -> Duration {
        var delay = initialDelay
        for _ in 0..<min(attempt, 32) where delay < maxDelay { delay *= 2 }
        attempt += 1
        return min(delay, maxDelay) + maxJitter * random()
    }

    /// Back to the initial delay (after a successful authentication).
    public mutating func reset() { attempt = 0 }
}
