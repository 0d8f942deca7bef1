/// One session's memory of values seen in earlier frames: 64-bit keys to 64-bit values in a
/// single open-addressing table, allocated on first use and grown by doubling. Keys are hashes
/// of values (`JSONTape.View.valueHash`) mixed with the rule they belong to.
struct SessionMemory {
    /// Key and value pairs; a key of 0 marks an empty slot. One allocation, grown by doubling.
    private var slots: [(key: UInt64, value: UInt64)] = []
    private var count = 0

    /// The key for `hash` under `rule` in `table` (several rules share one memory).
    static func key(table: Int, rule: Int, hash: Int) -> UInt64 {
        let tag = UInt64(truncatingIfNeeded: table &* 1_000_003 &+ rule &+ 1) &* 0x9E37_79B9_7F4A_7C15
        let mixed = (UInt64(bitPattern: Int64(hash)) ^ tag) &* 0xBF58_476D_1CE4_E5B9
        let key = mixed ^ (mixed >> 31)
        return key == 0 ? 1 : key
    }

    /// The value stored for `key`.
    func value(for key: UInt64) -> UInt64? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: key) & mask
        while true {
            let found = slots[slot]
            if found.key == key { return found.value }
            if found.key == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Whether `key` is stored.
    func contains(_ key: UInt64) -> Bool { value(for: key) != nil }

    /// Stores `value` for `key`, replacing an earlier value.
    mutating func set(_ key: UInt64, _ value: UInt64 = 1) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let added = slots.withUnsafeMutableBufferPointer { Self.store(key, value, in: $0) }
        if added { count += 1 }
    }

    /// Forgets `key` (nothing happens when it is not stored). The entries after it in its run of
    /// occupied slots move back where a search would no longer reach them past the emptied slot,
    /// so no slot is marked deleted and searches stay as short as before.
    mutating func remove(_ key: UInt64) {
        guard !slots.isEmpty else { return }
        let removed = slots.withUnsafeMutableBufferPointer { table -> Bool in
            let mask = table.count &- 1
            var hole = Int(truncatingIfNeeded: key) & mask
            while table[hole].key != key {
                if table[hole].key == 0 { return false }
                hole = (hole &+ 1) & mask
            }
            var next = (hole &+ 1) & mask
            while table[next].key != 0 {
                // An entry may fill the hole when its home slot is not cyclically in (hole, next].
                let home = Int(truncatingIfNeeded: table[next].key) & mask
                if (next &- home) & mask >= (next &- hole) & mask {
                    table[hole] = table[next]
                    hole = next
                }
                next = (next &+ 1) & mask
            }
            table[hole] = (0, 0)
            return true
        }
        if removed { count -= 1 }
    }

    /// Stores `value` for `key` in `table` (a power of two slots, at least one empty); returns
    /// whether `key` was not there before.
    private static func store(_ key: UInt64, _ value: UInt64, in table: UnsafeMutableBufferPointer<(key: UInt64, value: UInt64)>) -> Bool {
        let mask = table.count &- 1
        var slot = Int(truncatingIfNeeded: key) & mask
        while table[slot].key != 0 && table[slot].key != key { slot = (slot &+ 1) & mask }
        let added = table[slot].key == 0
        table[slot] = (key, value)
        return added
    }

    /// Doubles the table (8 slots at first, which hold 6 values: a connection's first exchange,
    /// a message with its `ack` and answer, needs no second allocation) and moves every entry
    /// into it in one pass.
    private mutating func grow() {
        let count = max(8, slots.count * 2)
        // Zeroed in one pass over raw memory: `init(repeating:count:)` took a generic path for
        // the tuple, and this runs once for every session.
        var larger = [(key: UInt64, value: UInt64)](unsafeUninitializedCapacity: count) { table, initialized in
            UnsafeMutableRawBufferPointer(table).initializeMemory(as: UInt8.self, repeating: 0)
            initialized = count
        }
        larger.withUnsafeMutableBufferPointer { table in
            for (key, value) in slots where key != 0 { _ = Self.store(key, value, in: table) }
        }
        slots = larger
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
