import NIOConcurrencyHelpers

/// Store calls that wait until the test lets them go.
final class HeldStoreCalls: Sendable {
    private let names = NIOLockedValueBox<Set<String>>([])
    private let released = AsyncSignal()

    /// Holds the call named `name` (a message's id, say) until ``release()``; once released, calls
    /// pass and are not counted as held.
    func hold(_ name: String) async {
        guard !released.hasFired else { return }
        names.withLockedValue { _ = $0.insert(name) }
        await released.wait()
    }

    /// The names of the calls held so far.
    var held: Set<String> { names.withLockedValue { $0 } }

    /// Lets every held call go on, and every later one pass.
    func release() { released.fire() }
}
