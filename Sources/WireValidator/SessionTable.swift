@_spi(Generated) import WireRuntime

extension CaptureValidation {
    /// The sessions of one capture file by id, in the order they were first seen.
    ///
    /// An open-addressing table of the ids' hashes beside the states it points to. Each slot keeps
    /// its id's hash, so growing the table moves slots without hashing an id again; a dictionary
    /// of strings hashed every id again at each doubling (2.6% of `wire validate`'s time on a
    /// capture of 29,413 sessions). The hash is seeded for the process, as the session memory's
    /// is: a capture's ids are its author's to choose, and a fixed hash would let them collide.
    struct SessionTable {
        /// The states, in the order their sessions were first seen; the table owns them.
        private(set) var states: [SessionState] = []
        /// A power of two slots (none until the first session), at most three quarters used.
        private var slots: [Slot] = []

        /// A state and its id's hash; an empty slot has no state.
        private struct Slot {
            var hash: Int
            var state: Unmanaged<SessionState>?
        }

        /// The state of the session `id`, if the table has it. Unretained: the table keeps it.
        func state(for id: String) -> Unmanaged<SessionState>? {
            guard !slots.isEmpty else { return nil }
            return find(id, hash: Self.hash(id)).state
        }

        /// The state of the session `id`, made by `make` (and kept) when the table does not have
        /// it; `created` tells which. Unretained: the table keeps it.
        mutating func state(
            for id: String, orMake make: () -> SessionState
        ) -> (state: Unmanaged<SessionState>, created: Bool) {
            if (states.count &+ 1) &* 4 > slots.count &* 3 { grow() }
            let hash = Self.hash(id)
            let found = find(id, hash: hash)
            if let state = found.state { return (state, false) }
            let state = make()
            states.append(state)
            let unretained = Unmanaged.passUnretained(state)
            slots.withUnsafeMutableBufferPointer { $0[found.slot] = Slot(hash: hash, state: unretained) }
            return (unretained, true)
        }

        /// The slot of the session `id` (whose hash is `hash`) and its state, or the empty slot
        /// where the search for it ended (with no state). The table has at least one empty slot.
        /// Inlined: called out of line, with its answer as a tuple, it cost 40 instructions a line.
        @inline(__always)
        private func find(_ id: String, hash: Int) -> (slot: Int, state: Unmanaged<SessionState>?) {
            slots.withUnsafeBufferPointer { slots in
                var slot = hash & (slots.count &- 1)
                while let state = slots[slot].state {
                    if slots[slot].hash == hash, state._withUnsafeGuaranteedRef({ $0.id == id }) { return (slot, state) }
                    slot = (slot &+ 1) & (slots.count &- 1)
                }
                return (slot, nil)
            }
        }

        /// Doubles the slots (64 at first) and places each state again by its kept hash.
        private mutating func grow() {
            let count = max(64, slots.count &* 2)
            var larger = [Slot](repeating: Slot(hash: 0, state: nil), count: count)
            larger.withUnsafeMutableBufferPointer { larger in
                for old in slots where old.state != nil {
                    var slot = old.hash & (count &- 1)
                    while larger[slot].state != nil { slot = (slot &+ 1) & (count &- 1) }
                    larger[slot] = old
                }
            }
            slots = larger
        }

        /// The seeded hash of a session id's UTF-8 bytes.
        private static func hash(_ id: String) -> Int {
            var id = id
            return id.withUTF8 { bytes in
                var hash = JSONTape.ValueHash()
                hash.combine(bytes: bytes)
                return hash.value
            }
        }
    }
}
