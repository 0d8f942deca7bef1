import Foundation

/// Coalesces the snapshots of streamed answers so a view redraws at most once per interval
/// (75 ms, seed 001's pace) however fast snapshots arrive: the newest snapshot of each message
/// is kept and handed over when the interval ends, or at once on ``flush()``.
@MainActor
public final class StreamingTokenBuffer {
    /// The longest a snapshot waits before it is shown.
    public let interval: Duration
    private let clock: any Clock<Duration>
    private let onFlush: @MainActor ([ChatMessage]) -> Void
    private var pending: [ChatMessage] = []
    private var flushTask: Task<Void, Never>?

    /// A buffer handing coalesced snapshots to `onFlush`, in the order their messages first arrived.
    public init(
        interval: Duration = .milliseconds(75), clock: any Clock<Duration> = ContinuousClock(),
        onFlush: @escaping @MainActor ([ChatMessage]) -> Void
    ) {
        self.interval = interval
        self.clock = clock
        self.onFlush = onFlush
    }

    /// Keeps `snapshot` (replacing an older snapshot of the same message) until the interval ends.
    public func add(_ snapshot: ChatMessage) {
        if let index = pending.firstIndex(where: { $0.id == snapshot.id }) {
            pending[index] = snapshot
        } else {
            pending.append(snapshot)
        }
        guard flushTask == nil else { return }
        let clock = clock
        let interval = interval
        flushTask = Task { [weak self] in
            guard (try? await clock.sleep(for: interval)) != nil else { return }
            self?.flush()
        }
    }

    /// Hands over everything pending now.
    public func flush() {
        flushTask?.cancel()
        flushTask = nil
        guard !pending.isEmpty else { return }
        let snapshots = pending
        pending = []
        onFlush(snapshots)
    }

    /// Drops everything pending.
    public func reset() {
        flushTask?.cancel()
        flushTask = nil
        pending = []
    }
}
