import Foundation

/// Lets a test wait for a condition on state that other tasks change, woken each time the state
/// changes rather than polling it. Whoever changes the state calls ``signal()`` afterwards.
public final class ChangeSignal: @unchecked Sendable {
    private let lock = NSLock()
    /// How many times the state has changed; a waiter that read an older count is woken at once.
    private var changes = 0
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    public init() {}

    /// Wakes every waiter, to check its condition again. Call it after each change.
    public func signal() {
        let woken = lock.withLock {
            changes += 1
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Waits until `condition` holds, checking it now and after each ``signal()``; at most
    /// `timeout` in real time (a guard against a hung test, not a timing assertion). Returns
    /// whether it held. The condition runs on the caller's actor, so it may read the caller's
    /// state (a view model on the main actor) and may itself wait (to ask an actor).
    @discardableResult
    public func wait(
        timeout: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation, until condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let seen = lock.withLock { changes }
            if try await condition() { return true }
            guard !Task.isCancelled, await nextChange(after: seen, before: deadline) else { return try await condition() }
        }
    }

    /// Waits for a change after the `seen`-th; false when `deadline` came first.
    private func nextChange(after seen: Int, before deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.change(after: seen)
                return true
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let changed = await group.next() ?? false
            group.cancelAll()
            return changed
        }
    }

    /// Returns once the state changed after the `seen`-th change, or the task is cancelled.
    private func change(after seen: Int) async {
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock {
                    if changes != seen || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
