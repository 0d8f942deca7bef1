import NIOConcurrencyHelpers

/// How a store call given a bound ended.
enum BoundedOutcome<Value: Sendable>: Sendable {
    /// It ended within the bound, with this result.
    case finished(Result<Value, any Error>)
    /// It had not ended when the bound ran out. It goes on by itself; its result goes to the
    /// `late` handler given with the call.
    case late
}

/// Store calls that a socket waits for at most `limit`. A database that restarts, fails over or
/// sits behind a network that drops packets can leave a call waiting for seconds or minutes; the
/// socket that waits for it reads nothing else meanwhile, and its client hears nothing. With a
/// bound, the socket answers within `limit` (a message it could not store gets `server_error`,
/// and its client sends it again) and reads on.
///
/// A call cannot be taken back once it reached the store: one that ends after its bound may
/// still have committed. Its result goes to the `late` handler, which does what the socket would
/// have done had it waited, apart from answering it (the client's retry with the same id gets
/// the answer).
struct BoundedStoreCall: Sendable {
    /// The longest a socket waits for the store.
    let limit: Duration
    private let bound: Bound

    /// How the bound is kept.
    private enum Bound: Sendable {
        /// Each call sleeps a task of its own on the clock: for calls made now and then (a
        /// readiness probe).
        case ownTimer(any Clock<Duration>)
        /// Every call is an entry of one watch: for the calls of every message.
        case watch(StoreCallWatch)
    }

    /// Calls bounded at `limit` on `clock`, each with a timer task of its own.
    init(limit: Duration, clock: any Clock<Duration>) {
        self.limit = limit
        bound = .ownTimer(clock)
    }

    /// Calls bounded by `watch` (at its limit), which a ``DeadlineWatchService`` runs: no task
    /// or timer per call.
    init(watch: StoreCallWatch) {
        limit = watch.limit
        bound = .watch(watch)
    }

    /// Runs `operation` and waits for it at most ``limit``. When it ends later, `late` gets its result.
    func run<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        late: @escaping @Sendable (Result<Value, any Error>) async -> Void
    ) async -> BoundedOutcome<Value> {
        let waiting = NIOLockedValueBox<CheckedContinuation<BoundedOutcome<Value>, Never>?>(nil)
        let bound = bound
        let limit = limit
        return await withCheckedContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            let expire: @Sendable () -> Void = { waiting.withLockedValue { $0.take() }?.resume(returning: .late) }
            let stopBound: @Sendable () -> Void
            switch bound {
            case .ownTimer(let clock):
                let timer = Task {
                    guard (try? await clock.sleep(for: limit)) != nil else { return }
                    expire()
                }
                stopBound = { timer.cancel() }
            case .watch(let watch):
                let watched = watch.watch(expire: expire)
                stopBound = { watch.forget(watched) }
            }
            Task {
                let result: Result<Value, any Error>
                do {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                stopBound()
                if let socket = waiting.withLockedValue({ $0.take() }) {
                    socket.resume(returning: .finished(result))
                } else {
                    await late(result)
                }
            }
        }
    }
}

extension BoundedStoreCall {
    /// Runs a read (or a write that may as well not happen, such as marking a device seen) and
    /// waits for it at most ``limit``; past it, the call is left to end by itself, its result
    /// dropped, and this throws. A socket answers that as any store failure: `server_error`, and
    /// for an `auth`, a close with 1011 (the client reconnects with backoff).
    func read<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        switch await run(operation, late: { _ in }) {
        case .finished(let result): return try result.get()
        case .late: throw StoreFailure("the store did not answer within \(limit)")
        }
    }
}
