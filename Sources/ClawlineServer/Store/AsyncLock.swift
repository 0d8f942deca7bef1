/// A first-come, first-served lock for async code: what holds it may suspend without letting
/// another holder in (an actor alone would interleave at every `await`).
final class AsyncLock: Sendable {
    private let state = LockedState()

    private actor LockedState {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            guard held else {
                held = true
                return
            }
            await withCheckedContinuation { waiters.append($0) }
        }

        var waiting: Int { waiters.count }

        func release() {
            if waiters.isEmpty {
                held = false
            } else {
                waiters.removeFirst().resume()
            }
        }
    }

    /// How many callers wait for the lock.
    var waiting: Int {
        get async { await state.waiting }
    }

    /// Runs `body` while holding the lock.
    func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await state.acquire()
        do {
            let value = try await body()
            await state.release()
            return value
        } catch {
            await state.release()
            throw error
        }
    }
}
