/// The strict scanner that fills a tape.
extension JSONTape {
    struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var tokens: TokenStorage
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, tokens: TokenStorage) {
            self.bytes = bytes
            self.tokens = tokens
        }

        func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
            let offset = min(offset ?? position, bytes.count)
            var line = 1
            var lineStart = 0
            for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            return JSONSyntaxError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
        }

        @inline(__always)
        mutating func skipWhitespace() {
            // Compact JSON has none: one comparison settles it.
            guard position < bytes.count, bytes[position] <= 0x20 else { return }
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        /// The byte at the cursor once whitespace is skipped (not consumed), or `nil` at the end of
        /// the input. Compact JSON has no whitespace, so one load and comparison settle it.
        @inline(__always)
        mutating func nextByte() -> UInt8? {
            var cursor = position
            defer { position = cursor }
            return nextByte(from: &cursor)
        }

        @inline(__always)
        mutating func append(_ kind: Kind, start: Int, end: Int, hasEscapes: Bool = false, isASCII: Bool = true) {
            tokens.append(Token(kind: kind, hasEscapes: hasEscapes, isASCII: isASCII, start: start, end: end, next: tokens.count &+ 1))
        }

        mutating func parseValue(depth: Int) throws(JSONSyntaxError) {
            guard position < bytes.count else { throw error(position == 0 ? "empty input" : "unexpected end of input") }
            let start = position
            switch bytes[position] {
            case UInt8(ascii: "{"): try parseObject(depth: depth + 1)
            case UInt8(ascii: "["): try parseArray(depth: depth + 1)
            case UInt8(ascii: "\""): _ = try parseString()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                append(.true, start: start, end: position)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                append(.false, start: start, end: position)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                append(.null, start: start, end: position)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
            default: throw error("unexpected character '\(Self.printable(bytes[position]))'")
            }
        }

        /// ``parseValue(depth:)`` for a member or an item: a string, the most common value, is
        /// scanned inline in the caller's loop, with no call, and a number with no dispatch.
        @inline(__always)
        mutating func parseNestedValue(depth: Int) throws(JSONSyntaxError) {
            guard position < bytes.count else { return try parseValue(depth: depth) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                _ = try parseString()
            } else if byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "-") {
                try parseNumber()
            } else {
                try parseValue(depth: depth)
            }
        }

        static func printable(_ byte: UInt8) -> String {
            guard (0x21...0x7E).contains(byte) else {
                let digits = Array("0123456789ABCDEF")
                return "\\x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
            }
            return String(UnicodeScalar(byte))
        }

        /// Scans `true`, `false` or `null`, whose first byte the caller matched: its last four
        /// bytes (all of `true` and `null`) are compared as one word.
        @inline(__always)
        mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw error("unexpected end of input") }
            let found = UnsafeRawPointer(bytes.baseAddress! + position + count - 4).loadUnaligned(as: UInt32.self)
            let expected = UnsafeRawPointer(literal.utf8Start + count - 4).loadUnaligned(as: UInt32.self)
            guard found == expected else { throw error("invalid literal, expected '\(literal)'") }
            position += count
        }

        /// Opens a container at its bracket; returns its token, or `nil` when it is empty (and closed).
        @inline(__always)
        mutating func open(_ kind: Kind, closedBy bracket: UInt8, depth: Int) throws(JSONSyntaxError) -> Int? {
            guard depth <= JSONParser.maxDepth else { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
            let index = tokens.count
            append(kind, start: position, end: position)
            position += 1
            skipWhitespace()
            guard position < bytes.count, bytes[position] == bracket else { return index }
            position += 1
            close(index, count: 0)
            return nil
        }

        /// ``nextByte()`` for a cursor held in a register (an object's loop keeps one): the byte at
        /// `cursor` once whitespace is skipped (moving the cursor past it), or `nil` at the end of
        /// the input.
        @inline(__always)
        mutating func nextByte(from cursor: inout Int) -> UInt8? {
            guard cursor < bytes.count else { return nil }
            let byte = bytes[cursor]
            if byte > 0x20 { return byte }
            position = cursor
            skipWhitespace()
            cursor = position
            return cursor < bytes.count ? bytes[cursor] : nil
        }

        /// An error at a cursor held in a register, which becomes ``position``.
        mutating func failure(_ reason: String, at cursor: Int) -> JSONSyntaxError {
            position = cursor
            return error(reason)
        }

        mutating func parseObject(depth: Int) throws(JSONSyntaxError) {
            guard let index = try open(.object, closedBy: UInt8(ascii: "}"), depth: depth) else { return }
            // The scan is inside the input, so there is a base address. The cursor stays in a
            // register for the whole object: `position` is written back only where another method
            // goes on from it (a value other than a plain string, a long or escaped string, an
            // error), and read again after it.
            let base = bytes.baseAddress!
            let end = bytes.count
            var cursor = position
            var count = 0
            // The key sketch of the first `sketchedKeys` keys, built as they are scanned: a key whose
            // bit is already set (or any key after an escaped one) is compared with the earlier keys
            // there, so a frame's keys are not walked a second time.
            var sketch: UInt64 = 0
            var sawEscapes = false
            while true {
                guard let first = nextByte(from: &cursor) else { throw failure("unexpected end of input in an object", at: cursor) }
                guard first == UInt8(ascii: "\"") else { throw failure("expected a string key in an object", at: cursor) }
                let key = tokens.count
                let keyStart = cursor &+ 1
                // A plain key ends at the first quote the word skip finds; any other goes on in the full scan.
                var keyEnd = Self.skipPlainWords(base, from: keyStart, count: end)
                var keyHasEscapes = false
                // The key's signature slot, from its bytes between the quotes, is kept in its token
                // for the plan's walk over the members.
                if keyEnd < end, base[keyEnd] == UInt8(ascii: "\"") {
                    append(.string, start: keyStart, end: keyEnd)
                } else {
                    keyHasEscapes = try parseString(from: keyEnd, start: keyStart)
                    keyEnd = position &- 1
                }
                cursor = keyEnd &+ 1
                let slot = JSONTape.keySignatureSlot(UnsafeBufferPointer(start: base + keyStart, count: keyEnd &- keyStart))
                tokens.base[key].keys = UInt64(slot)
                if count < Self.sketchedKeys {
                    let bit: UInt64 = 1 << UInt64(slot)
                    sawEscapes = sawEscapes || keyHasEscapes
                    // A repeat is looked for when the key's bit is already set (the first key's never
                    // is), or after an escaped key: escaped keys are compared by their text, so a
                    // sketch of their bytes proves nothing.
                    if sketch & bit != 0 || sawEscapes { try checkRepeat(of: key, in: index) }
                    sketch |= bit
                }
                guard nextByte(from: &cursor) == UInt8(ascii: ":") else { throw failure("expected ':' after an object key", at: cursor) }
                cursor &+= 1
                // The value: a plain string (the most common) here; anything else in the methods for it.
                if cursor < end, base[cursor] == UInt8(ascii: "\"") {
                    let valueStart = cursor &+ 1
                    let valueEnd = Self.skipPlainWords(base, from: valueStart, count: end)
                    if valueEnd < end, base[valueEnd] == UInt8(ascii: "\"") {
                        append(.string, start: valueStart, end: valueEnd)
                        cursor = valueEnd &+ 1
                    } else {
                        _ = try parseString(from: valueEnd, start: valueStart)
                        cursor = position
                    }
                } else {
                    position = cursor
                    skipWhitespace()
                    try parseNestedValue(depth: depth)
                    cursor = position
                }
                count &+= 1
                guard let separator = nextByte(from: &cursor) else { throw failure("unexpected end of input in an object", at: cursor) }
                switch separator {
                case UInt8(ascii: ","): cursor &+= 1
                case UInt8(ascii: "}"):
                    position = cursor &+ 1
                    close(index, count: count)
                    if count <= Self.sketchedKeys {
                        tokens[index].keys = sawEscapes ? ~0 : sketch
                    } else {
                        try checkDuplicateKeys(ofLarge: index)
                    }
                    return
                default: throw failure("expected ',' or '}' in an object", at: cursor)
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONSyntaxError) {
            guard let index = try open(.array, closedBy: UInt8(ascii: "]"), depth: depth) else { return }
            var count = 0
            while true {
                skipWhitespace()
                try parseNestedValue(depth: depth)
                count &+= 1
                guard let separator = nextByte() else { throw error("unexpected end of input in an array") }
                switch separator {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"):
                    position += 1
                    close(index, count: count)
                    return
                default: throw error("expected ',' or ']' in an array")
                }
            }
        }

        @inline(__always)
        mutating func close(_ index: Int, count: Int) {
            tokens[index].end = position
            tokens[index].next = tokens.count
            tokens[index].count = count
        }

        /// How many keys of an object are checked for repeats as they are scanned, with a sketch;
        /// a larger object's keys are checked once it closes, with a set, and it keeps no sketch.
        static let sketchedKeys = 32

        /// Reports the key token `key` when it repeats an earlier key of the object at `index`.
        func checkRepeat(of key: Int, in index: Int) throws(JSONSyntaxError) {
            var earlier = index + 1
            while earlier != key {
                if sameKey(earlier, key) { throw duplicate(key) }
                earlier = tokens[earlier + 1].next
            }
        }

        /// Reports the first key that repeats an earlier key of an object of more than
        /// ``sketchedKeys`` members, once it is closed.
        func checkDuplicateKeys(ofLarge index: Int) throws(JSONSyntaxError) {
            var seen = Set<String>()
            var member = index + 1
            for _ in 0..<tokens[index].count {
                if !seen.insert(text(member)).inserted { throw duplicate(member) }
                member = tokens[member + 1].next
            }
        }

        func duplicate(_ key: Int) -> JSONSyntaxError {
            error("duplicate key '\(text(key))' in an object", at: tokens[key].start - 1)
        }

        func sameKey(_ a: Int, _ b: Int) -> Bool {
            let first = tokens[a]
            let second = tokens[b]
            if !first.hasEscapes && !second.hasEscapes {
                guard first.end - first.start == second.end - second.start else { return false }
                return JSONTape.equalBytes(bytes.baseAddress! + first.start, bytes.baseAddress! + second.start, first.end - first.start)
            }
            return text(a) == text(b)
        }

        func text(_ index: Int) -> String {
            JSONTape.decodeString(bytes, tokens[index])
        }

        /// Scans a number with its cursor in a register (``position`` is stored back once, or
        /// where an error is reported).
        mutating func parseNumber() throws(JSONSyntaxError) {
            let start = position
            let count = bytes.count
            // The scan is at a byte, so there is a base address.
            let base = bytes.baseAddress!
            var cursor = start
            func digit(at offset: Int) -> Bool { offset < count && base[offset] &- UInt8(ascii: "0") < 10 }
            func digits(from offset: Int) -> Int {
                var end = offset
                while digit(at: end) { end &+= 1 }
                return end
            }
            // An integer's value is worked out as its digits are passed (the scan reads them anyway),
            // so reading it later is one load; it is exact for up to 18 digits.
            var magnitude = 0
            func failure(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
                position = cursor
                return error(reason, at: offset)
            }
            var isInteger = true
            let negative = base[cursor] == UInt8(ascii: "-")
            if negative { cursor &+= 1 }
            guard digit(at: cursor) else { throw failure("invalid number") }
            if base[cursor] == UInt8(ascii: "0") {
                cursor &+= 1
                if digit(at: cursor) { throw failure("invalid number: leading zero", at: start) }
            } else {
                // The integer part (wrapping past 18 digits; such a value is read again below).
                (magnitude, cursor) = Self.digits(base, from: cursor, count: count)
            }
            if cursor < count, base[cursor] == UInt8(ascii: ".") {
                isInteger = false
                cursor &+= 1
                guard digit(at: cursor) else { throw failure("invalid number: expected a digit after '.'") }
                cursor = digits(from: cursor)
            }
            if cursor < count, base[cursor] | 0x20 == UInt8(ascii: "e") {
                isInteger = false
                cursor &+= 1
                if cursor < count, base[cursor] == UInt8(ascii: "+") || base[cursor] == UInt8(ascii: "-") { cursor &+= 1 }
                guard digit(at: cursor) else { throw failure("invalid number: expected a digit in the exponent") }
                cursor = digits(from: cursor)
            }
            position = cursor
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<cursor])
            // Up to 18 digits always fit in Int; longer integers are checked.
            if isInteger {
                let value = cursor - start <= 18 ? (negative ? 0 &- magnitude : magnitude) : JSONTape.integer(slice)
                if let value {
                    var token = Token(kind: .integer, hasEscapes: false, isASCII: true, start: start, end: cursor, next: tokens.count &+ 1)
                    token.integerValue = value
                    tokens.append(token)
                    return
                }
            }
            guard let value = JSONTape.double(slice), value.isFinite else { throw error("number out of range", at: start) }
            append(.number, start: start, end: cursor)
        }

        /// How many of eight bytes (as loaded, the first in the lowest byte) are digits before the
        /// first that is not, and the value of those digits: `(8, value)` when all eight are.
        @inline(__always)
        static func leadingDigits(_ loaded: UInt64) -> (count: Int, value: Int) {
            let word = UInt64(littleEndian: loaded)
            let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
            // A digit is 0x30 to 0x39: its high nibble is 3, and adding 6 leaves it 3. A byte
            // before the first non-digit is a digit, which carries nothing into the next byte, so
            // the lowest byte flagged here is the first non-digit (later flags may be spurious).
            let threes: UInt64 = 0x3030_3030_3030_3030
            let notDigits = ((word & highNibbles) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & highNibbles) ^ threes)
            let count = notDigits == 0 ? 8 : notDigits.trailingZeroBitCount &>> 3
            guard count > 0 else { return (0, 0) }
            // Digit values (the subtraction borrows only from bytes above the digits), moved up so
            // that the bytes below them are leading zeros; then pairs, fours and the eight combined
            // in place, lowest byte first.
            let digits = (word &- threes) &<< UInt64(64 &- count &* 8)
            let pairs = (digits &* 10 &+ digits >> 8) & 0x00FF_00FF_00FF_00FF
            let fours = (pairs &* 100 &+ pairs >> 16) & 0x0000_FFFF_0000_FFFF
            return (count, Int(truncatingIfNeeded: (fours &* 10_000 &+ fours >> 32) & 0xFFFF_FFFF))
        }

        /// 10 to the power `exponent`, for 0 to 8.
        @inline(__always)
        static func powerOfTen(_ exponent: Int) -> Int {
            switch exponent {
            case 0: 1
            case 1: 10
            case 2: 100
            case 3: 1_000
            case 4: 10_000
            case 5: 100_000
            case 6: 1_000_000
            case 7: 10_000_000
            default: 100_000_000
            }
        }

        /// The value of the digits at `cursor` and the offset just past them: up to eight at a time
        /// while eight bytes remain, then one at a time. The value wraps past 18 digits.
        @inline(__always)
        static func digits(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> (value: Int, end: Int) {
            var cursor = start
            var value = 0
            while cursor &+ 8 <= count {
                let (length, leading) = leadingDigits(UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
                value = value &* powerOfTen(length) &+ leading
                cursor &+= length
                if length < 8 { return (value, cursor) }
            }
            while cursor < count, case let digit = base[cursor] &- UInt8(ascii: "0"), digit < 10 {
                value = value &* 10 &+ Int(digit)
                cursor &+= 1
            }
            return (value, cursor)
        }

        /// Skips plain string bytes from `start` eight at a time: returns the offset of the first
        /// quote, backslash, control or non-ASCII byte, or where fewer than eight bytes remain.
        /// Every byte before the result is plain; the byte at it has not been judged when fewer
        /// than eight remained.
        @inline(__always)
        static func skipPlainWords(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
            var cursor = start
            while cursor &+ 8 <= count {
                let special = specialBytes(UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
                if special != 0 { return cursor &+ special.trailingZeroBitCount &>> 3 }
                cursor &+= 8
            }
            return cursor
        }

        /// A mask with the high bit set in the first byte (in memory order) of eight that is a
        /// quote, a backslash, a control byte (< 0x20) or non-ASCII, and 0 when there is none.
        /// Bits above the first may be set spuriously; only the lowest one is exact.
        @inline(__always)
        static func specialBytes(_ loaded: UInt64) -> UInt64 {
            // A non-ASCII byte's own high bit is exact.
            quoteBackslashOrControl(loaded) | UInt64(littleEndian: loaded) & 0x8080_8080_8080_8080
        }

        /// The high bit of each byte of `loaded` (eight bytes as loaded) that is a quote, a
        /// backslash or a control byte (< 0x20). As for ``specialBytes(_:)``, only the lowest set
        /// bit is exact.
        @inline(__always)
        static func quoteBackslashOrControl(_ loaded: UInt64) -> UInt64 {
            let word = UInt64(littleEndian: loaded)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let zeroInQuote = (quote &- ones) & ~quote
            let zeroInBackslash = (backslash &- ones) & ~backslash
            let control = (word &- ones &* 0x20) & ~word
            return (zeroInQuote | zeroInBackslash | control) & highs
        }

        /// Scans a string in one pass: its end, its escapes, and its UTF-8, each non-ASCII
        /// sequence checked where the scan meets it (no second pass over the string).
        ///
        /// Most strings are ASCII without escapes and end well before the input does: they are
        /// found eight bytes at a time with the cursor in a register, and done at their quote,
        /// inline in the caller (a call's prologue cost more than the loop for a short key). The
        /// rest go on in ``parseString(from:start:)``.
        ///
        /// Returns whether the string holds escapes.
        @inline(__always)
        mutating func parseString() throws(JSONSyntaxError) -> Bool {
            position += 1
            let start = position
            guard let base = bytes.baseAddress else { return try parseString(from: start, start: start) }
            let count = bytes.count
            let cursor = Self.skipPlainWords(base, from: start, count: count)
            // Everything before the cursor is plain ASCII, so a quote there ends the string.
            if cursor < count, base[cursor] == UInt8(ascii: "\"") {
                append(.string, start: start, end: cursor)
                position = cursor &+ 1
                return false
            }
            // The full scan goes on from the cursor.
            return try parseString(from: cursor, start: start)
        }

        /// The rest of ``parseString()``: the string began at `start`, and its bytes before
        /// `cursor` are plain ASCII. Returns whether the string holds escapes.
        @inline(never)
        mutating func parseString(from cursor: Int, start: Int) throws(JSONSyntaxError) -> Bool {
            position = cursor
            var ascii = true
            var escapes = false
            while position < bytes.count {
                // Eight bytes at a time up to the next quote, backslash, control or non-ASCII byte.
                position = Self.skipPlainWords(bytes.baseAddress!, from: position, count: bytes.count)
                guard position < bytes.count else { break }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    append(.string, start: start, end: position, hasEscapes: escapes, isASCII: ascii)
                    position += 1
                    return escapes
                }
                if byte >= 0x80 {
                    let length = JSONTape.utf8SequenceLength(bytes, at: position)
                    // A sequence cut short by the end of the input is invalid UTF-8 either way.
                    guard length > 0 else { throw error("invalid UTF-8 in a string", at: start) }
                    ascii = false
                    position += length
                    continue
                }
                if byte == UInt8(ascii: "\\") {
                    escapes = true
                    position += 1
                    guard position < bytes.count else { throw error("unexpected end of input in a string") }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        break
                    case UInt8(ascii: "u"):
                        if try parseUnicodeEscape().value >= 0x80 { ascii = false }
                    default: throw error("invalid escape '\\\(Self.printable(escape))' in a string", at: position - 2)
                    }
                    continue
                }
                // A byte the word loop did not reach (the last few of the input), or a control byte.
                guard byte >= 0x20 else { throw error("unescaped control character in a string") }
                position += 1
            }
            throw error("unterminated string", at: start - 1)
        }

        mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw error("unexpected end of input in a \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = JSONTape.hexDigit(bytes[position]) else { throw error("invalid hex digit in a \\u escape") }
                value = value * 16 + digit
                position += 1
            }
            return value
        }

        mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
            let escapeStart = position - 2
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("lone high surrogate in a \\u escape", at: escapeStart)
                }
                position += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw error("invalid low surrogate in a \\u escape", at: escapeStart) }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw error("invalid \\u escape", at: escapeStart) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("lone low surrogate in a \\u escape", at: escapeStart) }
            return scalar
        }
    }
}

extension JSONTape {
    /// Where a plain string ends: given the offset just past its opening quote, the offset of its
    /// closing quote when every byte before it is printable ASCII other than a backslash (no
    /// escapes, no control bytes, no multi-byte UTF-8), else `nil`. Such a string's text is its
    /// bytes, so a reader that expects one (a key, an id) can take it without a scan.
    public static func endOfPlainString(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start >= 0 else { return nil }
        let count = bytes.count
        // The words of plain bytes, then the byte the skip stopped at and any last few, one at a time.
        var cursor = Scanner.skipPlainWords(base, from: start, count: count)
        while cursor < count {
            let byte = base[cursor]
            if byte == UInt8(ascii: "\"") { return cursor }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            cursor &+= 1
        }
        return nil
    }
}

extension JSONTape {
    /// A non-negative JSON integer of 1 to 18 digits starting at `start`, read eight digits at a
    /// time: its value and the offset just past it, or `nil` when there is no digit there, it has
    /// a leading zero, or it has more digits. What follows the digits is the caller's to check.
    public static func plainInteger(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Int, end: Int)? {
        guard let base = bytes.baseAddress, start >= 0 else { return nil }
        let (value, cursor) = Scanner.digits(base, from: start, count: bytes.count)
        let digits = cursor &- start
        guard digits > 0, digits <= 18, digits == 1 || base[start] != UInt8(ascii: "0") else { return nil }
        return (value, cursor)
    }
}
