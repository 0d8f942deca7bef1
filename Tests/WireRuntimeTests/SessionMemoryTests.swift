import Testing

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
