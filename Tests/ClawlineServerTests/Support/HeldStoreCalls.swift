import NIOConcurrencyHelpers

/// Store calls that wait until the test lets them go.
final class HeldStoreCalls: Sendable {
    private let state = NIOLockedValueBox<(held: Set<String>, waiting: [CheckedContinuation<Void, Never>], open: Bool)>(([], [], false))

    /// Holds the call named `name` (a message's id, say) until ``release()`` (or passes it, once released).
    func hold(_ name: String) async {
        await withCheckedContinuation { continuation in
            let wait = state.withLockedValue { state in
                guard !state.open else { return false }
                state.held.insert(name)
                state.waiting.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
    }

    /// The names of the calls held so far.
    var held: Set<String> { state.withLockedValue { $0.held } }

    /// Lets every held call go on, and every later one pass.
    func release() {
        let waiting = state.withLockedValue { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
