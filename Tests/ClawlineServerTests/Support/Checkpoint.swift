import NIOConcurrencyHelpers

/// A point in the server's code where a test stops it once: the first ``pass()`` after ``arm()``
/// waits until the test calls ``open()``; the test learns it got there from ``reached()``.
final class Checkpoint: Sendable {
    /// Whether the next ``pass()`` stops, and whether one already did.
    private let state = NIOLockedValueBox((armed: false, stopped: false))
    private let arrived = AsyncSignal()
    private let opened = AsyncSignal()

    /// The next ``pass()`` stops.
    func arm() { state.withLockedValue { $0.armed = true } }

    /// Called by the code under test: stops here if armed (once), until ``open()``.
    func pass() async {
        let stops = state.withLockedValue { state in
            guard state.armed, !state.stopped else { return false }
            state.stopped = true
            return true
        }
        guard stops else { return }
        arrived.fire()
        await opened.wait()
    }

    /// Waits until the code under test stopped here.
    func reached() async { await arrived.wait() }

    /// Lets the stopped code go on.
    func open() { opened.fire() }
}
