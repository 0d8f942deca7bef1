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

    /// Removing a key moves the keys probed past it back, so every other key is still found, in
    /// a table full enough that runs of slots wrap around its end.
    @Test func forgetsKeysAndKeepsTheOthersFindable() {
        var generator = SplitMix64.forTest(seed: 0x4D45_4D4F)
        for size in [5, 6, 12, 48, 700] {
            var memory = SessionMemory()
            var kept: [UInt64: UInt64] = [:]
            for hash in 0..<size {
                let key = SessionMemory.key(table: 1, rule: 0, hash: Int(truncatingIfNeeded: generator.next()))
                memory.set(key, UInt64(hash) + 1)
                kept[key] = UInt64(hash) + 1
            }
            for (key, _) in kept.shuffled(using: &generator).prefix(size / 2) {
                memory.remove(key)
                kept[key] = nil
                #expect(!memory.contains(key), "a removed key is gone")
                #expect(kept.allSatisfy { memory.value(for: $0.key) == $0.value }, "size \(size): the other keys are still found")
            }
            memory.remove(SessionMemory.key(table: 9, rule: 9, hash: 9))
            #expect(kept.allSatisfy { memory.value(for: $0.key) == $0.value }, "removing a key that is not there changes nothing")
        }
    }

    /// A rate window keeps only the latest `limit + 1` times, so a flood within one window leaves
    /// its memory bounded, and it judges every event as a window of all the times would.
    @Test func aFloodedRateWindowStaysBoundedAndJudgesAsAFullOne() {
        let (window, limit) = (1_000.0, 10)
        var flooded = RateLimiter()
        for event in 1...100_000 {
            let counted = flooded.add(to: 0, at: Double(event) * 0.001, window: window, limit: limit)
            #expect(counted == min(event, limit + 1))
        }
        // The ring of 11 and the rings of 4 and 8 it grew from, each with its two header words.
        #expect(flooded.storedWords == 2 + 4 + 2 + 8 + 2 + 11, "words kept: \(flooded.storedWords)")
        #expect(flooded.add(to: 0, at: 100 + window, window: window, limit: limit) == 1, "the flood has slid out of the window")

        // Against every time kept, at random gaps around the window's length, in two windows of
        // one limiter taking turns.
        var generator = SplitMix64.forTest(seed: 0x5345_5353)
        for limit in [0, 1, 3, 10, 100] {
            var bounded = RateLimiter()
            var all: [[Double]] = [[], []]
            var time = 0.0
            for event in 0..<5_000 {
                let index = event % 3 == 0 ? 1 : 0
                time += Double.random(in: 0...(3 * window / Double(limit + 1)), using: &generator)
                all[index].append(time)
                let inWindow = all[index].filter { $0 > time - window }.count
                let counted = bounded.add(to: index, at: time, window: window, limit: limit)
                #expect(counted == min(inWindow, limit + 1), "limit \(limit) at \(time)")
                all[index].removeAll { $0 <= time - window }
            }
            // Each ring holds at most `limit + 1` times, and left behind less than twice that as it
            // grew (rings of 4, 8, 16 ... each with two header words).
            #expect(bounded.storedWords <= 2 * (3 * (limit + 1) + 2 * 7), "limit \(limit): \(bounded.storedWords) words")
        }
    }

    /// Times that go back (a capture's clocks are not always in order) leave the window in the
    /// order they were added, as the oldest ones kept.
    @Test func timesLeaveTheWindowInTheOrderTheyCame() {
        var limiter = RateLimiter()
        #expect(limiter.add(to: 0, at: 5_000, window: 1_000, limit: 3) == 1)
        #expect(limiter.add(to: 0, at: 4_500, window: 1_000, limit: 3) == 2)
        // 5,000 is still in the window ending at 5,900, so 4,500 behind it stays counted too.
        #expect(limiter.add(to: 0, at: 5_900, window: 1_000, limit: 3) == 3)
        #expect(limiter.add(to: 0, at: 6_000, window: 1_000, limit: 3) == 2, "5,000 left, and 4,500 after it")
    }

    /// A limiter makes a ring for each window as it is first used; each window counts only its
    /// own events, whichever is used first.
    @Test func aLimitersWindowsCountApartWhicheverIsUsedFirst() {
        var limiter = RateLimiter()
        #expect(limiter.add(to: 3, at: 0, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 0, at: 1, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 3, at: 2, window: 1_000, limit: 2) == 2)
        #expect(limiter.add(to: 5, at: 3, window: 1_000, limit: 2) == 1)
        #expect(limiter.add(to: 3, at: 1_001, window: 1_000, limit: 2) == 2, "the event at 0 has slid out of window 3")
        #expect(limiter.add(to: 7, at: 1_002, window: 1_000, limit: 2) == 1, "a window used later gets a ring of its own")
        #expect(limiter.add(to: 3, at: 1_003, window: 1_000, limit: 2) == 2, "window 3 kept 1,001")
        #expect(limiter.add(to: 5, at: 1_000, window: 1_000, limit: 2) == 2, "window 5 kept 3")
        #expect(limiter.add(to: 7, at: 1_004, window: 1_000, limit: 2) == 2, "window 7 kept 1,002")
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
