/// Hashing values of a tape.
extension JSONTape {
    /// A fast 64-bit hash of JSON values, keyed by a seed chosen at random when the process
    /// starts (what the tape's view hashes values with).
    ///
    /// Equal values hash alike within one process. The seed makes the hash differ from run to
    /// run, so a peer that chooses the values (correlation ids, retried payloads) cannot craft
    /// two that collide: each step multiplies the state by a constant into 128 bits and folds the
    /// halves together, so how a change in a word spreads depends on the secret state it meets.
    /// It is not a cryptographic hash. Do not store it or compare it across processes.
    public struct ValueHash: Sendable {
        /// The hash of everything mixed in so far.
        public private(set) var value: Int

        /// A hash keyed by this process's seed.
        public init() { value = Int(bitPattern: UInt(Self.processSeed)) }

        /// A hash keyed by `seed`; for tests that need two keys in one process.
        init(seed: UInt64) { value = Int(bitPattern: UInt(seed)) }

        /// The seed of every hash in this process: random, and never zero.
        private static let processSeed: UInt64 = .random(in: 1 ... .max)

        /// Mixes in a word.
        public mutating func combine(_ word: UInt64) {
            let product = (UInt64(bitPattern: Int64(value)) ^ word).multipliedFullWidth(by: 0x9E37_79B9_7F4A_7C15)
            value = Int(bitPattern: UInt(product.high ^ product.low))
        }

        /// Mixes in bytes, eight at a time, and their count.
        @_spi(Generated) public mutating func combine(bytes: UnsafeBufferPointer<UInt8>) {
            var offset = 0
            while offset + 8 <= bytes.count {
                combine(UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
                offset += 8
            }
            combine(tailOf: bytes, from: offset, to: bytes.count)
        }

        /// Mixes in `bytes` as ``combine(bytes:)`` does, and returns the hash that
        /// ``combine(bytes:)`` would make, from this hash as it was, of their first `prefixLength`
        /// bytes alone (`nil` when `prefixLength` is `nil` or more than the count). One pass over
        /// the bytes: the prefix's whole words are mixed in on the way.
        @_spi(Generated) public mutating func combine(bytes: UnsafeBufferPointer<UInt8>, prefixHashOf prefixLength: Int?) -> Int? {
            guard let prefixLength, prefixLength >= 0, prefixLength <= bytes.count else {
                combine(bytes: bytes)
                return nil
            }
            let prefixWordsEnd = prefixLength & ~7
            var prefix: Int?
            var offset = 0
            while true {
                if offset == prefixWordsEnd {
                    var prefixHash = self
                    prefixHash.combine(tailOf: bytes, from: offset, to: prefixLength)
                    prefix = prefixHash.value
                }
                guard offset + 8 <= bytes.count else { break }
                combine(UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
                offset += 8
            }
            combine(tailOf: bytes, from: offset, to: bytes.count)
            return prefix
        }

        /// Mixes in `bytes[offset..<end]` (fewer than eight) as one word, then `end`: the end of
        /// ``combine(bytes:)`` for the first `end` bytes.
        @inline(__always)
        private mutating func combine(tailOf bytes: UnsafeBufferPointer<UInt8>, from offset: Int, to end: Int) {
            var tail: UInt64 = 0
            var position = offset
            while position < end {
                tail = tail << 8 | UInt64(bytes[position])
                position &+= 1
            }
            combine(tail)
            combine(UInt64(end))
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
