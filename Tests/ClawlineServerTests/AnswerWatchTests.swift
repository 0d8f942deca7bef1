import Foundation
import NIOConcurrencyHelpers
import Testing
import WireTestSupport

@testable import ClawlineServer

/// One watch for every answer's inactivity, and the pacer's task started only when a snapshot
/// waits for it (a stalled answer's `server_error` over a real socket is checked in
/// `StreamAndLimitTests`).
@Suite struct AnswerWatchTests {
    /// A watch running on a manual clock until this is gone, and the names of the answers it
    /// said stalled, in order.
    private final class Watching {
        let clock = ManualClock()
        let watch: AnswerWatch
        let stalls: AsyncStream<String>
        let stalled: AsyncStream<String>.Continuation
        let now: @Sendable () -> Duration
        private var running: Task<Void, any Error>?

        init(timeout: Duration) {
            let clock = clock
            let start = clock.now
            now = { start.duration(to: clock.now) }
            let watch = AnswerWatch(now: now, timeout: timeout)
            self.watch = watch
            (stalls, stalled) = AsyncStream.makeStream()
            running = Task { try await watch.deadlines.run(clock: clock) }
        }

        deinit { running?.cancel() }

        func activity(_ name: String) -> AnswerActivity {
            let stalled = stalled
            return AnswerActivity(startedAt: now()) { stalled.yield(name) }
        }
    }

    @Test func answersWatchedAtDifferentTimesStallAtTheirOwnTimeoutsAndAnUpdatePutsItOff() async throws {
        let watching = Watching(timeout: .seconds(30))
        let (clock, watch) = (watching.clock, watching.watch)
        var stalls = watching.stalls.makeAsyncIterator()

        let first = watching.activity("first")
        _ = watch.watch(first)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(10))
        _ = watch.watch(watching.activity("second"))
        clock.advance(by: .seconds(15))
        // 25 s: the first is heard from, so its silence now ends at 55 s.
        first.touch(at: watching.now())
        clock.advance(by: .seconds(15))
        // 40 s: the second has been silent for 30 s; the first for 15.
        #expect(await stalls.next() == "second")
        #expect(watch.count == 1)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(15))
        #expect(await stalls.next() == "first")
        #expect(watch.count == 0)
    }

    @Test func anAnswerThatEndedNeverStallsAndAnIdleWatchDoesNotSleepOnTheClock() async throws {
        let watching = Watching(timeout: .seconds(30))
        let (clock, watch) = (watching.clock, watching.watch)
        var stalls = watching.stalls.makeAsyncIterator()

        let ended = watch.watch(watching.activity("ended"))
        await clock.waitForSleepers(atLeast: 1)
        watch.forget(ended)
        clock.advance(by: .seconds(30))
        // The watch wakes at the ended answer's deadline, finds nothing to watch and waits for an
        // answer, not for the clock; the next answer wakes it.
        while !watch.deadlines.waitsForEntries { await Task.yield() }
        #expect(clock.sleeperCount == 0)
        _ = watch.watch(watching.activity("marker"))
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        // The stalls come in deadline order from one task: the marker's is the first.
        #expect(await stalls.next() == "marker")
        #expect(watch.count == 0)
    }

    @Test func answersThatEndedLeaveABoundedHeapEvenIfTheWatchNeverRuns() {
        let start = ContinuousClock.now
        let watch = AnswerWatch(now: { start.duration(to: .now) }, timeout: .seconds(300))
        let kept = watch.watch(AnswerActivity(startedAt: .zero) {})
        var rebuilds = 0
        for _ in 0..<1000 {
            let before = watch.deadlines.pendingDeadlines
            let id = watch.watch(AnswerActivity(startedAt: .zero) {})
            if watch.deadlines.pendingDeadlines < before {
                rebuilds += 1
                #expect(watch.deadlines.pendingDeadlines == watch.count, "a rebuilt heap holds each answer watched once, and nothing else")
            }
            watch.forget(id)
        }
        #expect(rebuilds > 0)
        #expect(watch.count == 1)
        #expect(watch.deadlines.pendingDeadlines <= 2 * 1 + 64 + 1, "stale deadlines are dropped once they outnumber the answers")
        watch.forget(kept)
        #expect(watch.count == 0)
    }

    @Test func thePacerIsNeededOnlyOnceASnapshotWaits() {
        let pacer = SnapshotPacer(burst: 2, interval: .milliseconds(100))
        #expect(pacer.offer("a", at: .zero) == .send)
        #expect(pacer.offer("a b", at: .zero) == .send)
        #expect(pacer.offer("a b c", at: .zero) == .held(first: true))
        #expect(pacer.offer("a b c d", at: .zero) == .held(first: false))
    }
}
