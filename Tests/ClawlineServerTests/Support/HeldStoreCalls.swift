import NIOConcurrencyHelpers
import WireTestSupport

/// Store calls that wait until the test lets them go.
final class HeldStoreCalls: Sendable {
    private let names = NIOLockedValueBox<Set<String>>([])
    private let released = AsyncSignal()
    /// Signalled after each call is held.
    private let heldChanged = ChangeSignal()

    /// Holds the call named `name` (a message's id, say) until ``release()``; once released, calls
    /// pass and are not counted as held.
    func hold(_ name: String) async {
        guard !released.hasFired else { return }
        names.withLockedValue { _ = $0.insert(name) }
        heldChanged.signal()
        await released.wait()
    }

    /// The names of the calls held so far.
    var held: Set<String> { names.withLockedValue { $0 } }

    /// Waits until the call named `name` is held, woken as each call is; false after `timeout` in
    /// real time (a guard against a hung test, not a timing assertion).
    func waitUntilHeld(_ name: String, timeout: Duration = .seconds(60)) async -> Bool {
        await heldChanged.wait(timeout: timeout) { self.held.contains(name) }
    }

    /// Lets every held call go on, and every later one pass.
    func release() { released.fire() }
}
