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

    /// The clocks' times when the environment was made; ``elapsed()`` and ``keepaliveElapsed()`` count from them.
    private let origin: any InstantProtocol<Duration>
    private let keepaliveOrigin: any InstantProtocol<Duration>

    /// An environment on `clock`, `keepaliveClock` and `now`.
    public init(
        clock: any Clock<Duration> = ContinuousClock(), keepaliveClock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clock = clock
        self.keepaliveClock = keepaliveClock
        self.now = now
        origin = clock.now
        keepaliveOrigin = keepaliveClock.now
    }

    /// The time on ``clock`` since the environment was made.
    public func elapsed() -> Duration { Self.time(on: clock, since: origin) }

    /// The time on ``keepaliveClock`` since the environment was made.
    public func keepaliveElapsed() -> Duration { Self.time(on: keepaliveClock, since: keepaliveOrigin) }

    private static func time(on clock: any Clock<Duration>, since origin: any InstantProtocol<Duration>) -> Duration {
        func since<Instant: InstantProtocol<Duration>>(_ start: Instant) -> Duration {
            guard let now = clock.now as? Instant else { return .zero }
            return start.duration(to: now)
        }
        return since(origin)
    }

    /// The current time in milliseconds since the Unix epoch, as message timestamps carry it.
    public func milliseconds() -> Int { Int((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}
