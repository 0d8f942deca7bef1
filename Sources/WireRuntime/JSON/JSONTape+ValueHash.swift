/// Hashing values of a tape.
extension JSONTape {
    /// A fast, deterministic 64-bit hash of JSON values (what the tape's view hashes values with).
    public struct ValueHash: Sendable {
        public private(set) var value: Int = 0x243F_6A88_85A3_08D3

        public init() {}

        /// Mixes in a word.
        public mutating func combine(_ word: UInt64) {
            let mixed = (UInt64(bitPattern: Int64(value)) ^ word) &* 0x9E37_79B9_7F4A_7C15
            value = Int(bitPattern: UInt(mixed ^ (mixed >> 29)))
        }

        /// Mixes in bytes, eight at a time, and their count.
        @_spi(Generated) public mutating func combine(bytes: UnsafeBufferPointer<UInt8>) {
            var offset = 0
            while offset + 8 <= bytes.count {
                combine(UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < bytes.count {
                tail = tail << 8 | UInt64(bytes[offset])
                offset += 1
            }
            combine(tail)
            combine(UInt64(bytes.count))
        }

        /// Mixes in the value at `index` of a tape: its kind, then a string's text, a number's
        /// value, an array's items in order, or an object's members in any order.
        @_spi(Generated) public mutating func combine(_ tape: View, _ index: Int) {
            let kind = tape.kind(index)
            combine(UInt64(kind.rawValue))
            switch kind {
            case .null, .false, .true: return
            case .string: tape.withStringBytes(index) { combine(bytes: $0) }
            case .integer: combine(UInt64(bitPattern: Int64(tape.integer(index))))
            case .number:
                let number = tape.double(index)
                combine((number == 0 ? 0 : number).bitPattern)  // -0.0 equals 0.0
            case .array:
                combine(UInt64(tape.count(index)))
                tape.forEachItem(of: index) { _, item in combine(tape, item) }
            case .object:
                // Members are summed so that their order does not matter, as for JSON objects.
                var sum: UInt64 = 0
                tape.forEachMember(of: index) { key, member in
                    var pair = ValueHash()
                    pair.combine(tape, key)
                    pair.combine(tape, member)
                    sum &+= UInt64(bitPattern: Int64(pair.value))
                    return true
                }
                combine(UInt64(tape.count(index)))
                combine(sum)
            }
        }
    }
}
