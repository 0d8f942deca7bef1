/// Strings a plan looks tokens up among (an object's member keys, a direction's message tags),
/// grouped by their key-signature slot (see ``JSONTape/keySignatureSlot(_:)``): a token is
/// compared only with the strings that share its slot (one, for most objects and protocols)
/// rather than with every string in turn.
///
/// The plan that builds one frees it in its `deinit`; lookups count no references. The strings'
/// bytes are the plan's (its fields' keys, its messages' tags) and must outlive the index.
struct KeySlotIndex: @unchecked Sendable {
    /// The strings' UTF-8 bytes, in the order given.
    private let keys: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>
    /// For each of the 64 slots, the position of its first string in `keys`, or -1.
    private let firstInSlot: UnsafeBufferPointer<Int>
    /// For each string, the position of the next string in the same slot, or -1. A slot's strings
    /// are chained in the order given, so the first of two equal strings is the one found.
    private let nextInSlot: UnsafeBufferPointer<Int>

    /// An index of `keys` (UTF-8 bytes that outlive it); lookups answer positions in this array.
    init(_ keys: [UnsafeBufferPointer<UInt8>]) {
        var first = [Int](repeating: -1, count: 64)
        var next = [Int](repeating: -1, count: keys.count)
        for position in keys.indices.reversed() {
            let slot = JSONTape.keySignatureSlot(keys[position])
            next[position] = first[slot]
            first[slot] = position
        }
        self.keys = ownedBuffer(keys)
        firstInSlot = ownedBuffer(first)
        nextInSlot = ownedBuffer(next)
    }

    /// Frees the index; its plan calls it once, in its `deinit`.
    func deallocate() {
        keys.deallocate()
        firstInSlot.deallocate()
        nextInSlot.deallocate()
    }

    /// The position of the string equal to the key token at `index`, which the caller knows holds
    /// no escapes and carries its slot (a key of an object whose keys were sketched exactly), or -1.
    @inline(__always)
    func position(ofPlainKey index: Int, in tape: JSONTape.View) -> Int {
        position(of: index, inSlot: tape.sketchedSlot(ofKey: index), in: tape)
    }

    /// For each member of the object at `index`, which has an exact key sketch: the member's
    /// value index, written at the position of the string equal to its key (a member whose key is
    /// none of the strings is passed over). A function of its own, so that its loop has the
    /// registers to itself. It walks a slot's chain as ``position(ofPlainKey:in:)`` does, but on the
    /// key token it has already read: calling that method, which reads the token again and tests
    /// it for escapes (which an exact sketch rules out), costs 64 instructions a capture line more.
    @inline(never)
    func place(membersOf index: Int, in tape: JSONTape.View, into found: UnsafeMutableBufferPointer<Int>) {
        let tokens = tape.tokens
        // The object has a byte, so the document has an address.
        let bytes = tape.bytes.baseAddress!
        var member = index &+ 1
        for _ in 0..<tokens[index].count {
            let key = tokens[member]
            let length = key.end &- key.start
            var position = firstInSlot[key.sketchedSlot]
            while position >= 0 {
                // Every string of the index has an address (its key allocates at least a byte).
                let candidate = keys[position]
                if candidate.count == length, JSONTape.equalBytes(bytes + key.start, candidate.baseAddress!, length) {
                    found[position] = member &+ 1
                    break
                }
                position = nextInSlot[position]
            }
            member = tokens[member &+ 1].next
        }
    }

    /// The position of the string equal to the string token at `index`, or -1. A token written
    /// with escapes is placed by its text; one without, by its bytes as written.
    @inline(__always)
    func position(ofString index: Int, in tape: JSONTape.View) -> Int {
        let slot = tape.hasEscapes(index) ? tape.withStringBytes(index) { JSONTape.keySignatureSlot($0) } : tape.keySignatureSlot(ofKey: index)
        return position(of: index, inSlot: slot, in: tape)
    }

    @inline(__always)
    private func position(of index: Int, inSlot slot: Int, in tape: JSONTape.View) -> Int {
        var position = firstInSlot[slot]
        while position >= 0 {
            if tape.stringEquals(index, keys[position]) { return position }
            position = nextInSlot[position]
        }
        return -1
    }
}
