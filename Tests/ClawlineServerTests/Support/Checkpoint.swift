import NIOConcurrencyHelpers

/// A point in the server's code where a test stops it once: the first ``pass()`` after ``arm()``
/// waits until the test calls ``open()``; the test learns it got there from ``reached()``.
final class Checkpoint: Sendable {
    private struct State {
        var armed = false
        var isReached = false
        var isOpen = false
        var reachedWaiters: [CheckedContinuation<Void, Never>] = []
        var openWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// The next ``pass()`` stops.
    func arm() { state.withLockedValue { $0.armed = true } }

    /// Called by the code under test: stops here if armed, until ``open()``.
    func pass() async {
        let stops = state.withLockedValue { state -> Bool in
            guard state.armed, !state.isReached else { return false }
            state.isReached = true
            for waiter in state.reachedWaiters { waiter.resume() }
            state.reachedWaiters = []
            return true
        }
        guard stops else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let open = state.withLockedValue { state in
                if !state.isOpen { state.openWaiters.append(waiter) }
                return state.isOpen
            }
            if open { waiter.resume() }
        }
    }

    /// Waits until the code under test stopped here.
    func reached() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let reached = state.withLockedValue { state in
                if !state.isReached { state.reachedWaiters.append(waiter) }
                return state.isReached
            }
            if reached { waiter.resume() }
        }
    }

    /// Lets the stopped code go on.
    func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.openWaiters = [] }
            return state.openWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
