import Testing
import WireTestSupport

@testable import WireRuntime

/// The per-session tables behind correlation, uniqueness and guard rules.
@Suite struct SessionMemoryTests {
    @Test func remembersValuesThroughGrowth() {
        var memory = SessionMemory()
        #expect(!memory.contains(SessionMemory.key(table: 0, rule: 0, hash: 42)), "an empty memory allocates nothing and holds nothing")
        for hash in 0..<10_000 {
            memory.set(SessionMemory.key(table: 1, rule: 2, hash: hash), UInt64(hash) + 7)
        }
        for hash in 0..<10_000 {
            #expect(memory.value(for: SessionMemory.key(table: 1, rule: 2, hash: hash)) == UInt64(hash) + 7)
        }
        #expect(!memory.contains(SessionMemory.key(table: 1, rule: 3, hash: 5)), "rules do not share keys")
        #expect(!memory.contains(SessionMemory.key(table: 2, rule: 2, hash: 5)), "tables do not share keys")
        memory.set(SessionMemory.key(table: 1, rule: 2, hash: 5), 99)
        #expect(memory.value(for: SessionMemory.key(table: 1, rule: 2, hash: 5)) == 99, "a later value replaces an earlier one")
    }

    /// A rate window keeps only the latest `limit + 1` times, so a flood within one window leaves
    /// its memory bounded, and it judges every event as a window of all the times would.
    @Test func aFloodedRateWindowStaysBoundedAndJudgesAsAFullOne() {
        let (window, limit) = (1_000.0, 10)
        var flooded = SlidingWindow()
        for event in 1...100_000 {
            let counted = flooded.add(Double(event) * 0.001, window: window, keeping: limit + 1)
            #expect(counted == min(event, limit + 1))
        }
        #expect(flooded.storedCount <= 2 * 64 + 1, "times kept: \(flooded.storedCount)")
        #expect(flooded.add(100 + window, window: window, keeping: limit + 1) == 1, "the flood has slid out of the window")

        // Against every time kept, at random gaps around the window's length.
        var generator = SplitMix64.forTest(seed: 0x5345_5353)
        for limit in [0, 1, 3, 10, 100] {
            var bounded = SlidingWindow()
            var all: [Double] = []
            var time = 0.0
            for _ in 0..<5_000 {
                time += Double.random(in: 0...(3 * window / Double(limit + 1)), using: &generator)
                all.append(time)
                let inWindow = all.filter { $0 > time - window }.count
                let counted = bounded.add(time, window: window, keeping: limit + 1)
                #expect(counted == min(inWindow, limit + 1), "limit \(limit) at \(time)")
                all.removeAll { $0 <= time - window }
            }
            #expect(bounded.storedCount <= 2 * max(64, limit + 1) + 1)
        }
    }

    /// A limiter makes room for all its windows on the first event; each window still counts only
    /// its own events, whichever window is used first.
    @Test func aLimitersWindowsCountApartWhicheverIsUsedFirst() {
        var limiter = RateLimiter()
        #expect(limiter.add(to: 3, of: 6, at: 0, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 0, of: 6, at: 1, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 3, of: 6, at: 2, window: 1_000, limit: 2) == 2)
        #expect(limiter.add(to: 5, of: 6, at: 3, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 3, of: 6, at: 1_001, window: 1_000, limit: 2) == 2, "the event at 0 has slid out of window 3")
        #expect(limiter.add(to: 7, of: 6, at: 1_002, window: 1_000, limit: 2) == 1, "an index past the count still gets a window")
    }

    @Test func flagsAreUnknownUntilSetAndWorkBeyondSixtyFour() {
        var flags = FlagSet()
        #expect([0, 5, 63, 64, 200].allSatisfy { flags.value($0) == nil }, "every flag starts unknown")
        for flag in [0, 5, 63, 64, 200] { flags.set(flag, true) }
        for flag in [1, 62, 65] { flags.set(flag, false) }
        #expect([0, 5, 63, 64, 200].allSatisfy { flags.value($0) == true })
        #expect([1, 62, 65].allSatisfy { flags.value($0) == false })
        #expect([2, 66].allSatisfy { flags.value($0) == nil }, "flags never set stay unknown")
        flags.set(63, false)
        flags.set(200, false)
        #expect(flags.value(63) == false && flags.value(200) == false && flags.value(64) == true)
        flags.set(-1, true)
        #expect(flags.value(-1) == nil, "a flag the spec does not declare stays unknown")
    }
}
