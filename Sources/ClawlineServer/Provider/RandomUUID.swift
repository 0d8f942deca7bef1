/// A UUID the server mints (event, account, asset and session ids), spelled in lowercase.
///
/// Its random bits come from the system's generator (`getrandom` on Linux, `arc4random` on Apple
/// platforms), two calls for the 16 bytes. Foundation's `UUID()` opens, reads and closes
/// `/dev/urandom` for every UUID on Linux: three system calls, one of them a path lookup, and a
/// message paid for two of them (its echo's id and its answer's).
struct RandomUUID: Sendable, Hashable {
    /// The first eight bytes, most significant first.
    var high: UInt64
    /// The last eight bytes.
    var low: UInt64

    /// A random version 4 UUID (RFC 9562): 122 random bits.
    static func version4() -> RandomUUID {
        var random = SystemRandomNumberGenerator()
        return RandomUUID(high: random.next(), low: random.next()).marked(version: 4)
    }

    /// A version 7 UUID (RFC 9562): the 48-bit Unix time in milliseconds, then 74 random bits, so
    /// UUIDs minted one after another sort in the order of their times.
    static func version7(unixMilliseconds: UInt64) -> RandomUUID {
        var random = SystemRandomNumberGenerator()
        let time = (unixMilliseconds & 0xFFFF_FFFF_FFFF) << 16
        return RandomUUID(high: time | (random.next() & 0xFFFF), low: random.next()).marked(version: 7)
    }

    /// The UUID with its version nibble set to `version` and its variant bits to RFC 9562's (`10`).
    private func marked(version: UInt64) -> RandomUUID {
        RandomUUID(
            high: (high & ~0xF000) | (version << 12),
            low: (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The 36 characters of the UUID's usual form in lowercase (`8-4-4-4-12` hexadecimal digits).
    var lowercased: String {
        String(unsafeUninitializedCapacity: 36) { text in
            let digits: StaticString = "0123456789abcdef"
            var index = 0
            func write(_ value: UInt64, nibbles: Range<Int>) {
                for nibble in nibbles.reversed() {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        text[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    text[index] = digits.utf8Start[Int((value >> (4 * UInt64(nibble))) & 0xF)]
                    index += 1
                }
            }
            write(high, nibbles: 0..<16)
            write(low, nibbles: 0..<16)
            return index
        }
    }
}
