import NIOConcurrencyHelpers

/// Bounds the snapshots of one answer, whatever the assistant yields: the first `burst` go out
/// as they come, then at most one per `interval`. Only the latest snapshot waits, so each one
/// sent still carries the whole text so far, and the final message follows the last.
///
/// The assistant offers each snapshot: one of the burst it sends itself at once (and waits for,
/// as before any bound); a later one waits for ``run(clock:now:send:)``, the one task that sends
/// them after the burst, so they go out in order. That task is needed only once a snapshot waits
/// (``Offer/held(first:)`` says when), so an answer within its burst never starts it.
final class SnapshotPacer: Sendable {
    private struct State {
        var latest: String?
        var sent = 0
        var lastSent: Duration?
        /// Whether a snapshot was ever held for ``run(clock:now:send:)``.
        var held = false
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

    /// What becomes of an offered snapshot.
    enum Offer: Equatable {
        /// It is one of the burst: the caller sends it now.
        case send
        /// It waits for ``run(clock:now:send:)``, replacing one offered before it and not yet
        /// sent; `first` when no snapshot waited before (the caller starts `run` then).
        case held(first: Bool)
    }

    /// Offers the assistant's latest snapshot at `now`.
    func offer(_ snapshot: String, at now: Duration) -> Offer {
        let offer = state.withLockedValue { state -> Offer in
            guard state.sent >= burst else {
                state.sent += 1
                state.lastSent = now
                return .send
            }
            defer { state.held = true }
            state.latest = snapshot
            return .held(first: !state.held)
        }
        if offer != .send { signal.yield() }
        return offer
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
