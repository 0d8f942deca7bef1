import ClawlineProtocol
import Foundation
import WireRuntime

/// Where the client's time and randomness come from; tests inject a manual clock, a set date and
/// a fixed random source.
public struct ClientEnvironment: Sendable {
    /// The clock every timer runs on (ack timeouts, reconnect delays, rate windows).
    public var clock: any Clock<Duration>
    /// The wall clock, for the timestamps of local messages and captures.
    public var now: @Sendable () -> Date
    /// A random value in `0..<1` (jitter).
    public var random: @Sendable () -> Double
    /// Time since the environment was created, on `clock`.
    public let elapsed: @Sendable () -> Duration
    private let sleepUntilElapsed: @Sendable (Duration) async throws -> Void

    /// An environment on `clock`.
    public init(
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.clock = clock
        self.now = now
        self.random = random
        (elapsed, sleepUntilElapsed) = Self.timeline(of: clock)
    }

    /// Time since now on `clock`, and a sleep until a point of that time.
    private static func timeline<C: Clock<Duration>>(
        of clock: C
    ) -> (
        @Sendable () -> Duration, @Sendable (Duration) async throws -> Void
    ) {
        let start = clock.now
        return ({ start.duration(to: clock.now) }, { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) })
    }

    /// Sleeps until `elapsed()` reaches `deadline`; throws when cancelled. A deadline fixed
    /// before the sleeping task starts keeps timers exact under a manual clock.
    func sleep(untilElapsed deadline: Duration) async throws {
        try await sleepUntilElapsed(deadline)
    }

    /// Sleeps `duration` on the clock; throws when cancelled.
    func sleep(for duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }

    /// Runs `operation`, failing with ``ClawlineClientError/timedOut(_:)`` when it takes longer
    /// than `limit` on the clock (the operation is cancelled).
    func withDeadline<T: Sendable>(_ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let clock = clock
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ClawlineClientError.timedOut("\(what) took longer than \(limit)")
            }
            return value
        }
    }
}

/// A frame that crossed one of the client's sockets, for captures and debugging.
public struct ObservedFrame: Sendable, Hashable {
    /// Which socket: `pair-1`, `chat-3`, … (the client numbers them in the order they open).
    public var connection: String
    public var direction: FrameDirection
    /// The frame's text, exactly as sent or received.
    public var text: String
    public var timestamp: Date

    /// A frame seen on `connection`.
    public init(connection: String, direction: FrameDirection, text: String, timestamp: Date) {
        self.connection = connection
        self.direction = direction
        self.text = text
        self.timestamp = timestamp
    }
}

/// Receives every frame a client socket sends or receives.
public typealias FrameObserver = @Sendable (ObservedFrame) -> Void

/// The socket URL of a provider: its base URL with `ws`/`wss` and the spec's path.
func socketURL(of baseURL: URL) -> URL {
    var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
    components.scheme = components.scheme == "https" ? "wss" : "ws"
    components.path = Clawline.transportPath
    return components.url ?? baseURL
}

/// Numbers sockets so captures can tell them apart.
final class ConnectionCounter: @unchecked Sendable {
    private let prefix: String
    private let lock = NSLock()
    private var count = 0

    init(prefix: String) { self.prefix = prefix }

    /// The next socket's name: `prefix-1`, `prefix-2`, ….
    func next() -> String {
        let number = lock.withLock {
            count += 1
            return count
        }
        return "\(prefix)-\(number)"
    }
}
