/// One session's memory of values seen in earlier frames: 64-bit keys to 64-bit values in a
/// single open-addressing table, allocated on first use and grown by doubling. Keys are hashes
/// of values (`JSONTape.View.valueHash`) mixed with the rule they belong to.
struct SessionMemory {
    /// Slots of two words, a key then its value; a key of 0 marks an empty slot. One allocation,
    /// grown by doubling. (Words, not `(key, value)` pairs: an array of pairs looked up its type
    /// at run time for every table made, and a capture makes one for most of its sessions.)
    private var words: [UInt64] = []
    private var count = 0

    /// How many slots the table has (a power of two, or none).
    private var slotCount: Int { words.count &>> 1 }

    /// The key for `hash` under `rule` in `table` (several rules share one memory).
    static func key(table: Int, rule: Int, hash: Int) -> UInt64 {
        let tag = UInt64(truncatingIfNeeded: table &* 1_000_003 &+ rule &+ 1) &* 0x9E37_79B9_7F4A_7C15
        let mixed = (UInt64(bitPattern: Int64(hash)) ^ tag) &* 0xBF58_476D_1CE4_E5B9
        let key = mixed ^ (mixed >> 31)
        return key == 0 ? 1 : key
    }

    /// The value stored for `key`.
    func value(for key: UInt64) -> UInt64? {
        guard !words.isEmpty else { return nil }
        return words.withUnsafeBufferPointer { words in
            let mask = words.count &>> 1 &- 1
            var slot = Int(truncatingIfNeeded: key) & mask
            while true {
                let found = words[slot &<< 1]
                if found == key { return words[slot &<< 1 &+ 1] }
                if found == 0 { return nil }
                slot = (slot &+ 1) & mask
            }
        }
    }

    /// Whether `key` is stored.
    func contains(_ key: UInt64) -> Bool { value(for: key) != nil }

    /// Stores `value` for `key`, replacing an earlier value.
    mutating func set(_ key: UInt64, _ value: UInt64 = 1) {
        if (count + 1) * 4 > slotCount * 3 { grow() }
        let added = words.withUnsafeMutableBufferPointer { Self.store(key, value, in: $0) }
        if added { count += 1 }
    }

    /// Forgets `key` (nothing happens when it is not stored). The entries after it in its run of
    /// occupied slots move back where a search would no longer reach them past the emptied slot,
    /// so no slot is marked deleted and searches stay as short as before.
    mutating func remove(_ key: UInt64) {
        guard !words.isEmpty else { return }
        let removed = words.withUnsafeMutableBufferPointer { table -> Bool in
            let mask = table.count &>> 1 &- 1
            var hole = Int(truncatingIfNeeded: key) & mask
            while table[hole &<< 1] != key {
                if table[hole &<< 1] == 0 { return false }
                hole = (hole &+ 1) & mask
            }
            var next = (hole &+ 1) & mask
            while table[next &<< 1] != 0 {
                // An entry may fill the hole when its home slot is not cyclically in (hole, next].
                let home = Int(truncatingIfNeeded: table[next &<< 1]) & mask
                if (next &- home) & mask >= (next &- hole) & mask {
                    table[hole &<< 1] = table[next &<< 1]
                    table[hole &<< 1 &+ 1] = table[next &<< 1 &+ 1]
                    hole = next
                }
                next = (next &+ 1) & mask
            }
            table[hole &<< 1] = 0
            table[hole &<< 1 &+ 1] = 0
            return true
        }
        if removed { count -= 1 }
    }

    /// Stores `value` for `key` in `table` (slots of two words, a power of two of them, at least
    /// one empty); returns whether `key` was not there before.
    private static func store(_ key: UInt64, _ value: UInt64, in table: UnsafeMutableBufferPointer<UInt64>) -> Bool {
        let mask = table.count &>> 1 &- 1
        var slot = Int(truncatingIfNeeded: key) & mask
        while table[slot &<< 1] != 0 && table[slot &<< 1] != key { slot = (slot &+ 1) & mask }
        let added = table[slot &<< 1] == 0
        table[slot &<< 1] = key
        table[slot &<< 1 &+ 1] = value
        return added
    }

    /// Doubles the table (8 slots at first, which hold 6 values: a connection's first exchange,
    /// a message with its `ack` and answer, needs no second allocation) and moves every entry
    /// into it in one pass.
    private mutating func grow() {
        let slots = max(8, slotCount * 2)
        var larger = [UInt64](repeating: 0, count: slots &* 2)
        larger.withUnsafeMutableBufferPointer { table in
            words.withUnsafeBufferPointer { old in
                for slot in 0..<(old.count &>> 1) where old[slot &<< 1] != 0 {
                    _ = Self.store(old[slot &<< 1], old[slot &<< 1 &+ 1], in: table)
                }
            }
        }
        words = larger
    }
}

/// The session flags, each true, false or unknown, by their index in the spec's flag list. A
/// flag is unknown until a frame sets it; -1 (a flag the spec does not declare) stays unknown.
struct FlagSet {
    private var known: UInt64 = 0
    private var values: UInt64 = 0
    private var high: [Int: Bool] = [:]

    /// The flag's value, or `nil` while it is unknown.
    func value(_ flag: Int) -> Bool? {
        switch flag {
        case 0..<64: return known & 1 << UInt64(flag) == 0 ? nil : values & 1 << UInt64(flag) != 0
        case 64...: return high[flag]
        default: return nil
        }
    }

    /// Sets a flag to true or false.
    mutating func set(_ flag: Int, _ value: Bool) {
        switch flag {
        case 0..<64:
            known |= 1 << UInt64(flag)
            if value { values |= 1 << UInt64(flag) } else { values &= ~(1 << UInt64(flag)) }
        case 64...: high[flag] = value
        default: break
        }
    }
}
