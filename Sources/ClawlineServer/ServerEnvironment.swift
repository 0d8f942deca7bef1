import Foundation

/// Where the server's time comes from: a clock for timers (pairing expiry, rate windows), one
/// for the keepalive's pings, and the wall clock for timestamps and token lifetimes. Tests inject
/// all three.
public struct ServerEnvironment: Sendable {
    /// The clock timers sleep on and the session machines count windows with.
    public var clock: any Clock<Duration>
    /// The clock the keepalive pings and waits for pongs on: real time unless given, apart from
    /// ``clock``, so that a test moving ``clock`` (to expire a pairing, say) pings no one and
    /// closes no socket for silence.
    public var keepaliveClock: any Clock<Duration>
    /// The current date.
    public var now: @Sendable () -> Date

    /// The time on each clock since the environment was made, read on the clock's own type:
    /// worked out once here, so reading the time (every frame a session machine checks) casts
    /// no instant from one type to another.
    private let sinceOrigin: @Sendable () -> Duration
    private let sinceKeepaliveOrigin: @Sendable () -> Duration

    /// An environment on `clock`, `keepaliveClock` and `now`.
    public init(
        clock: any Clock<Duration> = ContinuousClock(), keepaliveClock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clock = clock
        self.keepaliveClock = keepaliveClock
        self.now = now
        sinceOrigin = Self.stopwatch(clock)
        sinceKeepaliveOrigin = Self.stopwatch(keepaliveClock)
    }

    /// The time on ``clock`` since the environment was made (on the clock it was made with).
    public func elapsed() -> Duration { sinceOrigin() }

    /// The time on ``keepaliveClock`` since the environment was made (on the clock it was made with).
    public func keepaliveElapsed() -> Duration { sinceKeepaliveOrigin() }

    /// Reads `clock` now, and returns the time on it since then.
    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// The current time in milliseconds since the Unix epoch, as message timestamps carry it.
    public func milliseconds() -> Int { Int((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}
