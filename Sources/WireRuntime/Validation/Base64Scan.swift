/// Base64 and hex text read one byte at a time through a 256-entry table: one load a byte instead
/// of a chain of range comparisons, and one pass that checks base64 and decodes it.
extension WireFormats {
    /// What a byte is in base64 text: its value (0 to 63), or one of the marks below.
    enum Base64Byte {
        /// The padding byte `=`.
        static let padding: UInt8 = 64
        /// ASCII white space, ignored anywhere.
        static let whiteSpace: UInt8 = 65
        /// Any other byte: the text is not base64.
        static let invalid: UInt8 = 0xFF
    }

    /// Each byte's ``Base64Byte`` value. Built once, never freed.
    nonisolated(unsafe) static let base64Table = byteTable { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        case UInt8(ascii: "="): Base64Byte.padding
        case 0x20, 0x09, 0x0A, 0x0D: Base64Byte.whiteSpace
        default: Base64Byte.invalid
        }
    }

    /// 0 for each hexadecimal digit (either case, as `JSONTape.hexDigit(_:)` reads them), 1 for
    /// every other byte. Built once, never freed.
    nonisolated(unsafe) static let nonHexTable = byteTable { JSONTape.hexDigit($0) == nil ? 1 : 0 }

    /// A 256-entry table of `value(byte)` for every byte, allocated once and never freed (a load
    /// through it needs no bounds check and no reference count).
    private static func byteTable(_ value: (UInt8) -> UInt8) -> UnsafePointer<UInt8> {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0...255 { (table + byte).initialize(to: value(UInt8(byte))) }
        return UnsafePointer(table)
    }

    /// The number of symbols of base64 text that holds no white space (its padding, if any, at
    /// its end), checked eight bytes at a time; `nil` when it holds white space or is not base64
    /// (``decodedBase64Length(bytes:)``'s rules), which ``scanBase64(_:_:)`` then tells apart.
    static func compactBase64Symbols(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        let table = base64Table
        var end = bytes.count
        while end > 0, base[end &- 1] == UInt8(ascii: "=") { end &-= 1 }
        let padding = bytes.count &- end
        var marks: UInt8 = 0
        var offset = 0
        while offset &+ 8 <= end {
            let group = base + offset
            marks |= table[Int(group[0])] | table[Int(group[1])] | table[Int(group[2])] | table[Int(group[3])]
            marks |= table[Int(group[4])] | table[Int(group[5])] | table[Int(group[6])] | table[Int(group[7])]
            offset &+= 8
        }
        while offset < end {
            marks |= table[Int(base[offset])]
            offset &+= 1
        }
        // Every value below 64 is a symbol; padding inside, white space or anything else sets a higher bit.
        guard marks < Base64Byte.padding, end > 0 else { return nil }
        let remainder = end % 4
        guard remainder != 1, padding == 0 || (remainder != 0 && remainder + padding == 4) else { return nil }
        return end
    }

    /// Checks base64 text and hands each byte it decodes to `body`, in order, in one pass; returns
    /// the number of bytes, or `nil` when the text is not base64 (``decodedBase64Length(bytes:)``'s
    /// rules). `body` may have been called for a prefix of the bytes before a `nil`.
    @inline(__always)
    static func scanBase64(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UInt8) -> Void) -> Int? {
        let table = base64Table
        var symbols = 0
        var padding = 0
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        // Most of a long text is symbols with no white space: eight at a time they decode to six
        // whole bytes. The eight bytes' table values OR-ed together stay below 64 only when every
        // one is a symbol; padding or white space ends the run, and the byte loop goes on.
        var offset = 0
        if let base = bytes.baseAddress {
            while offset &+ 8 <= bytes.count {
                let group = base + offset
                func value(_ position: Int) -> UInt64 { UInt64(table[Int(group[position])]) }
                let marks = value(0) | value(1) | value(2) | value(3) | value(4) | value(5) | value(6) | value(7)
                guard marks < UInt64(Base64Byte.padding) else { break }
                let high = value(0) << 18 | value(1) << 12 | value(2) << 6 | value(3)
                let low = value(4) << 18 | value(5) << 12 | value(6) << 6 | value(7)
                let decoded = high << 24 | low
                for shift in stride(from: 40, through: 0, by: -8) { body(UInt8(truncatingIfNeeded: decoded >> UInt64(shift))) }
                symbols &+= 8
                offset &+= 8
            }
        }
        for byte in UnsafeBufferPointer(rebasing: bytes[offset...]) {
            let value = table[Int(byte)]
            if value < Base64Byte.padding {
                guard padding == 0 else { return nil }
                symbols &+= 1
                accumulator = accumulator << 6 | UInt32(value)
                bits &+= 6
                if bits >= 8 {
                    bits &-= 8
                    body(UInt8(truncatingIfNeeded: accumulator >> bits))
                }
            } else if value == Base64Byte.padding {
                padding &+= 1
                guard padding <= 2 else { return nil }
            } else if value != Base64Byte.whiteSpace {
                return nil
            }
        }
        guard symbols > 0 || bytes.isEmpty else { return nil }
        let remainder = symbols % 4
        guard remainder != 1 else { return nil }
        if padding > 0 { guard remainder != 0, remainder + padding == 4 else { return nil } }
        return symbols / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    }
}
