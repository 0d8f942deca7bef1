import NIOConcurrencyHelpers

/// A one-shot signal a task can wait for.
final class AsyncSignal: Sendable {
    private let state = NIOLockedValueBox<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``fire()`` is called (returns at once if it was).
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLockedValue { state in
                if state.fired { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Whether ``fire()`` was called.
    var hasFired: Bool { state.withLockedValue { $0.fired } }

    /// Lets every waiter go on.
    func fire() {
        let waiters = state.withLockedValue { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
