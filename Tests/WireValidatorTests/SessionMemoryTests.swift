import Testing
@testable import WireValidator

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

    @Test func flagsBeyondSixtyFour() {
        var flags = FlagSet()
        for flag in [0, 5, 63, 64, 200] { flags.insert(flag) }
        #expect([0, 5, 63, 64, 200].allSatisfy(flags.contains))
        #expect(![1, 62, 65].contains(where: flags.contains))
        flags.remove(63)
        flags.remove(200)
        #expect(!flags.contains(63) && !flags.contains(200) && flags.contains(64))
        #expect(!flags.contains(-1), "an unknown flag is never set")
    }
}
