/// One direction's message tags, grouped by their key signature slot (see
/// ``JSONTape/keySignatureSlot(_:)``), so that a frame's tag is compared only with the tags that
/// share its slot (one, for most protocols) rather than with every tag of the direction.
///
/// The plan owns it and frees it in its `deinit`; lookups count no references.
struct TagIndex: @unchecked Sendable {
    /// A message's tag bytes (owned by its `MessagePlan`'s key) and id.
    struct Entry {
        let bytes: UnsafeBufferPointer<UInt8>
        let id: Int
    }

    /// The entries, by slot, and in message order within a slot.
    private let entries: UnsafeBufferPointer<Entry>
    /// Where each slot's entries begin in `entries` (65 positions: slot 63's end is the last).
    private let slotStarts: UnsafeBufferPointer<Int>

    /// An index of `tags`, given in message order.
    init(_ tags: [Entry]) {
        let slots = tags.map { JSONTape.keySignatureSlot($0.bytes) }
        // A stable order by slot: the first of equal tags stays first, as in a search in message order.
        let order = tags.indices.sorted { (slots[$0], $0) < (slots[$1], $1) }
        var starts = [Int](repeating: 0, count: 65)
        for slot in slots { starts[slot + 1] += 1 }
        for slot in 1...64 { starts[slot] += starts[slot - 1] }
        entries = ownedBuffer(order.map { tags[$0] })
        slotStarts = ownedBuffer(starts)
    }

    /// Frees the index; the plan calls it once, in its `deinit`.
    func deallocate() {
        entries.deallocate()
        slotStarts.deallocate()
    }

    /// The id of the message whose tag is the string token at `index`.
    func message(tagAt index: Int, in tape: JSONTape.View) -> Int? {
        // A tag written with escapes is placed by its text; one without, by its bytes as written.
        let slot = tape.hasEscapes(index) ? tape.withStringBytes(index) { JSONTape.keySignatureSlot($0) } : tape.keySignatureSlot(ofKey: index)
        var position = slotStarts[slot]
        let end = slotStarts[slot + 1]
        while position < end {
            let entry = entries[position]
            if tape.stringEquals(index, entry.bytes) { return entry.id }
            position += 1
        }
        return nil
    }
}
