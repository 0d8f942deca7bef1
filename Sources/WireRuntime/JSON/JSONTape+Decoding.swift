/// Decoding the bytes of strings and numbers, and checking UTF-8.
extension JSONTape {
    @usableFromInline
    static func decodeString(_ buffer: UnsafeBufferPointer<UInt8>, _ token: Token) -> String {
        let raw = UnsafeBufferPointer(rebasing: buffer[token.start..<token.end])
        guard token.hasEscapes else { return checkedString(raw, isASCII: token.isASCII) }
        return unescaped(raw).withUnsafeBufferPointer { checkedString($0, isASCII: token.isASCII) }
    }

    /// The string of UTF-8 bytes the scanner has already checked, without checking them again
    /// where the standard library can (`UTF8Span`); `String(decoding:)` where it cannot.
    @usableFromInline
    static func checkedString(_ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            // The scanner rejects a string that is not well-formed UTF-8, and unescaping writes
            // only whole scalars, so these bytes are valid: the contract `unchecked` asks for.
            return unsafe String(copying: UTF8Span(unchecked: utf8.span, isKnownASCII: isASCII))
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The UTF-8 bytes of a string's text written with escapes (already checked by the scanner).
    @usableFromInline
    static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: raw.count) { buffer, count in count = unescape(raw, into: buffer.baseAddress!) }
    }

    /// Calls `body` with the UTF-8 bytes of a string's text written with escapes, unescaped into
    /// memory of the call's own (on the stack when it is small): reading an escaped string's
    /// bytes, to hash or compare them, allocates nothing.
    @usableFromInline
    static func withUnescaped<R, E: Error>(_ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        // Unescaping never lengthens the text, so the escaped length is room enough.
        let result: Result<R, E> = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(raw.count, 1)) { buffer in
            let count = unescape(raw, into: buffer.baseAddress!)
            do throws(E) {
                return .success(try body(UnsafeBufferPointer(start: buffer.baseAddress!, count: count)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Writes the UTF-8 bytes of a string's text written with escapes to `output`, which has room
    /// for `raw.count` bytes; returns how many. Every escape is longer than the bytes it stands for
    /// (a `\u` escape of 6 bytes writes at most 3, a pair of 12 at most 4, a malformed one of 6 or
    /// more at most 3), so the text never outgrows its escaped length; each write still checks it.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int {
        var written = 0
        @inline(__always) func append(_ byte: UInt8) {
            precondition(written < raw.count, "unescaping outgrew the escaped text")
            output[written] = byte
            written &+= 1
        }
        var position = 0
        while position < raw.count {
            // Copy the run up to the next backslash at once.
            var end = position
            while end < raw.count && raw[end] != UInt8(ascii: "\\") { end += 1 }
            if end > position {
                precondition(written + (end - position) <= raw.count, "unescaping outgrew the escaped text")
                (output + written).update(from: raw.baseAddress! + position, count: end - position)
                written &+= end - position
                position = end
                continue
            }
            position += 1
            guard position < raw.count else {
                append(UInt8(ascii: "\\"))
                continue
            }
            let escape = raw[position]
            position += 1
            switch escape {
            case UInt8(ascii: "b"): append(0x08)
            case UInt8(ascii: "f"): append(0x0C)
            case UInt8(ascii: "n"): append(0x0A)
            case UInt8(ascii: "r"): append(0x0D)
            case UInt8(ascii: "t"): append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, &position)
                if (0xD800...0xDBFF).contains(scalar), position + 1 < raw.count, raw[position] == UInt8(ascii: "\\") {
                    position += 2
                    let low = hex4(raw, &position)
                    scalar = 0x10000 &+ ((scalar &- 0xD800) << 10) &+ (low &- 0xDC00)  // a malformed pair wraps, not traps
                }
                // The scan let through no lone surrogate; anything else becomes U+FFFD, as `String` would make it.
                // The bytes are written as they are worked out (making a `String` of the scalar to
                // read them allocated for every escape).
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { append($0) }
            default: append(escape)  // " \ /
            }
        }
        return written
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ position: inout Int) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 where position < raw.count {
            value = value * 16 + (hexDigit(raw[position]) ?? 0)
            position += 1
        }
        return value
    }

    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// The value of an integer's digits, or `nil` when it does not fit in `Int`.
    static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        let negative = digits[0] == UInt8(ascii: "-")
        var position = negative ? 1 : 0
        // Up to 18 digits cannot overflow; longer numbers take the checked path.
        if digits.count - position <= 18 {
            var value = 0
            while position < digits.count {
                value = value &* 10 &+ Int(digits[position] &- UInt8(ascii: "0"))
                position += 1
            }
            return negative ? -value : value
        }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    static func double(_ digits: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: digits, as: UTF8.self))
    }

    /// Whether two byte buffers hold the same bytes; a run of up to 16 bytes is compared as two
    /// words, with no loop.
    @inlinable @inline(__always)
    public static func equalBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.isEmpty || equalBytes(a.baseAddress!, b.baseAddress!, a.count))
    }

    /// Whether `count` bytes at two addresses are equal.
    @inlinable @inline(__always)
    static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        func load<Word: FixedWidthInteger>(_ pointer: UnsafePointer<UInt8>, _ offset: Int, as: Word.Type) -> Word {
            UnsafeRawPointer(pointer + offset).loadUnaligned(as: Word.self)
        }
        // A short run is compared as two words that may overlap (its first and its last), with no
        // loop over its bytes: most keys and enum values are shorter than eight bytes.
        guard count >= 8 else {
            if count >= 4 {
                return load(a, 0, as: UInt32.self) == load(b, 0, as: UInt32.self)
                    && load(a, count &- 4, as: UInt32.self) == load(b, count &- 4, as: UInt32.self)
            }
            if count >= 2 {
                return load(a, 0, as: UInt16.self) == load(b, 0, as: UInt16.self)
                    && load(a, count &- 2, as: UInt16.self) == load(b, count &- 2, as: UInt16.self)
            }
            return count == 0 || a[0] == b[0]
        }
        var offset = 0
        while offset &+ 8 <= count {
            if load(a, offset, as: UInt64.self) != load(b, offset, as: UInt64.self) { return false }
            offset &+= 8
        }
        return offset == count || load(a, count &- 8, as: UInt64.self) == load(b, count &- 8, as: UInt64.self)
    }

    /// The length of the well-formed UTF-8 sequence whose lead byte (≥ 0x80) is at `position`,
    /// or 0 when the bytes there are not one (an overlong, a surrogate, a value past U+10FFFF, a
    /// stray continuation byte, or a sequence cut short by the end of `bytes`).
    @inline(__always)
    static func utf8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int {
        let lead = bytes[position]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return 0
        }
        guard position + length <= bytes.count else { return 0 }
        let second = bytes[position + 1]
        guard second >= low, second <= high else { return 0 }
        for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 {
            return 0
        }
        return length
    }
}
