import NIOConcurrencyHelpers

/// Bounds the snapshots of one answer, whatever the assistant yields: the first `burst` go out
/// as they come, then at most one per `interval`. Only the latest snapshot waits, so each one
/// sent still carries the whole text so far, and the final message follows the last.
///
/// The assistant offers each snapshot: one of the burst it sends itself at once (and waits for,
/// as before any bound); a later one waits for ``run(clock:now:send:)``, the one task that sends
/// them after the burst, so they go out in order.
final class SnapshotPacer: Sendable {
    private struct State {
        var latest: String?
        var sent = 0
        var lastSent: Duration?
    }

    private let state = NIOLockedValueBox(State())
    private let wakeups: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    let burst: Int
    let interval: Duration

    init(burst: Int, interval: Duration) {
        self.burst = burst
        self.interval = interval
        (wakeups, signal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Offers the assistant's latest snapshot at `now`: `true` when it is one of the burst, which
    /// the caller sends; otherwise it waits for ``run(clock:now:send:)`` (replacing one offered
    /// before it and not yet sent).
    func offer(_ snapshot: String, at now: Duration) -> Bool {
        let sendNow = state.withLockedValue { state in
            guard state.sent >= burst else {
                state.sent += 1
                state.lastSent = now
                return true
            }
            state.latest = snapshot
            return false
        }
        if !sendNow { signal.yield() }
        return sendNow
    }

    /// Sends the snapshots offered after the burst as the bound allows, until the task is cancelled.
    func run(clock: any Clock<Duration>, now: @Sendable () -> Duration, send: (String) async -> Void) async throws {
        for await _ in wakeups {
            if let slot = nextSlot(), slot > now() { try await clock.sleep(for: slot - now()) }
            guard let snapshot = take(at: now()) else { continue }
            await send(snapshot)
        }
        throw CancellationError()
    }

    /// When the next snapshot may go.
    private func nextSlot() -> Duration? {
        state.withLockedValue { state in state.lastSent.map { $0 + interval } }
    }

    private func take(at now: Duration) -> String? {
        state.withLockedValue { state in
            guard let latest = state.latest else { return nil }
            state.latest = nil
            state.sent += 1
            state.lastSent = now
            return latest
        }
    }
}
