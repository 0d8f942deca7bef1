import Foundation
import NIOConcurrencyHelpers
import Testing
import WireTestSupport

@testable import ClawlineServer

/// Every store call a socket waits for is bounded by one watch, not a timer task of its own (the
/// socket's side over a real socket is checked in `StoreBoundTests`).
@Suite struct StoreCallWatchTests {
    /// Store calls bounded at four seconds by a watch running on a manual clock until this is gone.
    private final class Bounded {
        let clock = ManualClock()
        let watch: StoreCallWatch
        let calls: BoundedStoreCall
        /// The results the calls that ended late handed to their `late` handler, in order.
        let lateResults: AsyncStream<String>
        private let lateResult: AsyncStream<String>.Continuation
        private var running: Task<Void, any Error>?

        init() {
            let clock = clock
            let start = clock.now
            watch = StoreCallWatch(now: { start.duration(to: clock.now) }, limit: .seconds(4))
            calls = BoundedStoreCall(watch: watch)
            (lateResults, lateResult) = AsyncStream.makeStream()
            let watch = watch
            running = Task { try await watch.deadlines.run(clock: clock) }
        }

        deinit { running?.cancel() }

        /// Starts a call that returns `name` once `finish` is yielded to; returns the caller's task.
        func start(_ name: String, finish: AsyncStream<Void>) -> Task<BoundedOutcome<String>, Never> {
            let calls = calls
            let lateResult = lateResult
            return Task {
                await calls.run {
                    for await _ in finish { break }
                    return name
                } late: { result in
                    lateResult.yield((try? result.get()) ?? "failed")
                }
            }
        }
    }

    @Test func aCallThatEndsInTimeIsFinishedAndLeavesNothingWatched() async throws {
        let bounded = Bounded()
        let outcome = await bounded.calls.run({ "stored" }, late: { _ in Issue.record("a call that ended in time is not late") })
        guard case .finished(.success("stored")) = outcome else { throw TestFailure("expected the call's value, got \(outcome)") }
        #expect(bounded.watch.count == 0)
        // Past the call's limit, the watch (asleep until then, or not yet started) finds it gone
        // and waits for calls, not for the clock.
        bounded.clock.advance(by: .seconds(4))
        while !bounded.watch.deadlines.waitsForEntries { await Task.yield() }
        #expect(bounded.clock.sleeperCount == 0)
    }

    @Test func callsStartedAtDifferentTimesRunOutAtTheirOwnLimitsAndHandTheirResultsLate() async throws {
        let bounded = Bounded()
        let (firstFinish, finishFirst) = AsyncStream<Void>.makeStream()
        let (secondFinish, finishSecond) = AsyncStream<Void>.makeStream()
        var lateResults = bounded.lateResults.makeAsyncIterator()

        let first = bounded.start("first", finish: firstFinish)
        while bounded.watch.count < 1 { await Task.yield() }
        await bounded.clock.waitForSleepers(atLeast: 1)
        bounded.clock.advance(by: .seconds(3))
        let second = bounded.start("second", finish: secondFinish)
        while bounded.watch.count < 2 { await Task.yield() }
        // 4 s: the first call's limit has run out, the second has 3 s left.
        bounded.clock.advance(by: .seconds(1))
        guard case .late = await first.value else { throw TestFailure("the first call outlived its limit") }
        #expect(bounded.watch.count == 1)

        // The second ends in time; the first ends after its caller stopped waiting.
        finishSecond.yield()
        guard case .finished(.success("second")) = await second.value else { throw TestFailure("the second call ended in time") }
        finishFirst.yield()
        #expect(await lateResults.next() == "first")
        #expect(bounded.watch.count == 0)
    }
}
