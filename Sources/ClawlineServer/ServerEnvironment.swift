import Foundation

/// Where the server's time comes from: a clock for timers (pairing expiry, rate windows) and
/// the wall clock for timestamps and token lifetimes. Tests inject both.
public struct ServerEnvironment: Sendable {
    /// The clock timers sleep on and the session machines count windows with.
    public var clock: any Clock<Duration>
    /// The current date.
    public var now: @Sendable () -> Date

    /// The clock's time when the environment was made; ``elapsed()`` counts from it.
    private let origin: any InstantProtocol<Duration>

    /// An environment on `clock` and `now`.
    public init(clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        self.now = now
        origin = clock.now
    }

    /// The time on ``clock`` since the environment was made.
    public func elapsed() -> Duration {
        func since<Instant: InstantProtocol<Duration>>(_ start: Instant) -> Duration {
            guard let now = clock.now as? Instant else { return .zero }
            return start.duration(to: now)
        }
        return since(origin)
    }

    /// The current time in milliseconds since the Unix epoch, as message timestamps carry it.
    public func milliseconds() -> Int { Int((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}
