import Foundation
import Logging
import Testing
import WireTestSupport

@testable import ClawlineServer

/// One watch for every socket's keepalive: its deadline heap, and sockets watched at different
/// times each closed at their own timeout (the pings themselves are checked over real sockets in
/// `KeepaliveTests`).
@Suite struct KeepaliveWatchTests {
    @Test func theDeadlineHeapGivesDeadlinesInOrder() {
        var heap = DeadlineHeap()
        var generator = SplitMix64.forTest(seed: 0x4B45_4550)
        var expected: [Int64] = []
        for id in 0..<500 {
            let seconds = Int64.random(in: 0..<100, using: &generator)
            expected.append(seconds)
            heap.insert(deadline: .seconds(seconds), id: id)
        }
        var taken: [Int64] = []
        while let first = heap.first {
            taken.append(first.deadline.components.seconds)
            heap.removeFirst()
        }
        #expect(taken == expected.sorted())
        #expect(heap.count == 0)
    }

    @Test func socketsWatchedAtDifferentTimesCloseAtTheirOwnTimeoutsAndAPongPutsItOff() async throws {
        let clock = ManualClock()
        let start = clock.now
        let now: @Sendable () -> Duration = { start.duration(to: clock.now) }
        let watch = KeepaliveWatch(now: now, interval: .seconds(30), timeout: .seconds(90))
        let running = Task { try await watch.deadlines.run(clock: clock) }
        defer { running.cancel() }
        let logger = Logger(label: "test")
        let first = ServerConnection(now: now, logger: logger)
        _ = watch.watch(first)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(20))
        let second = ServerConnection(now: now, logger: logger)
        _ = watch.watch(second)
        await clock.waitForSleepers(atLeast: 1)
        for _ in 0..<3 {
            clock.advance(by: .seconds(20))
            await clock.waitForSleepers(atLeast: 1)
        }
        // 80 s: neither silent for 90 s. The second answers a ping.
        #expect(!first.isClosed && !second.isClosed)
        second.recordPong(at: now())
        clock.advance(by: .seconds(10))
        await clock.waitForSleepers(atLeast: 1)
        #expect(first.isClosed, "silent for 90 s")
        #expect(!second.isClosed, "its pong came 10 s ago")
        #expect(watch.count == 1)
        clock.advance(by: .seconds(80))
        // With no socket left, the watch waits for one rather than for the clock.
        while !watch.deadlines.waitsForEntries { await Task.yield() }
        #expect(clock.sleeperCount == 0)
        #expect(second.isClosed, "silent for 90 s since its pong")
        #expect(watch.count == 0)
    }
}
