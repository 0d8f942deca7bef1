/// Reading a parsed tape: kinds, members, items and values, by token index.
extension JSONTape {
    /// The index of the root value.
    public static let root = 0

    /// A read-only view of a parsed tape over its storage, for walking it without reference
    /// counting. Valid only inside ``JSONTape/withView(_:)``; it must not escape that call.
    public struct View {
        @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
        @usableFromInline let tokens: UnsafeBufferPointer<Token>

        @usableFromInline init(bytes: UnsafeBufferPointer<UInt8>, tokens: UnsafeBufferPointer<Token>) {
            self.bytes = bytes
            self.tokens = tokens
        }

        /// The kind of the value at `index`.
        @inlinable public func kind(_ index: Int) -> Kind { tokens[index].kind }

        /// The index of the token after the value at `index` and everything inside it.
        @inlinable public func next(_ index: Int) -> Int { tokens[index].next }

        /// The member count of an object or the item count of an array.
        @inlinable public func count(_ index: Int) -> Int { tokens[index].count }

        /// The value's bytes in the document (a string's without quotes).
        public func byteRange(_ index: Int) -> Range<Int> { tokens[index].start..<tokens[index].end }

        /// The kind as used in validation messages ("a string", "an integer", ...).
        public func kindDescription(_ index: Int) -> String {
            switch kind(index) {
            case .null: return "null"
            case .false, .true: return "a boolean"
            case .integer: return "an integer"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }

        // MARK: Containers

        /// Calls `body` with the key token and value index of each member of the object at
        /// `index`, in document order, until it returns `false`.
        @inlinable
        public func forEachMember(of index: Int, _ body: (_ key: Int, _ value: Int) throws -> Bool) rethrows {
            var member = index + 1
            for _ in 0..<tokens[index].count {
                if try !body(member, member + 1) { return }
                member = tokens[member + 1].next
            }
        }

        /// Calls `body` with the position and index of each item of the array at `index`, in order.
        @inlinable
        public func forEachItem(of index: Int, _ body: (_ position: Int, _ item: Int) throws -> Void) rethrows {
            var item = index + 1
            for position in 0..<tokens[index].count {
                try body(position, item)
                item = tokens[item].next
            }
        }

        /// The value of the member `key` (UTF-8 bytes) of the object at `index`.
        @inlinable
        public func member(of index: Int, key: UnsafeBufferPointer<UInt8>) -> Int? {
            guard tokens[index].keys & JSONTape.keySignature(key) != 0 else { return nil }
            var member = index + 1
            for _ in 0..<tokens[index].count {
                if stringEquals(member, key) { return member + 1 }
                member = tokens[member + 1].next
            }
            return nil
        }

        /// The value of the member `key` (UTF-8 bytes, whose ``JSONTape/keySignature(_:)`` is
        /// `signature`) of the object at `index`, searched from
        /// `cursor` (a member's key token, or any other index for the first member) round to it,
        /// and moved past the member found. Looking keys up in the order the document has them
        /// takes one comparison each.
        @inlinable
        public func member(of index: Int, key: UnsafeBufferPointer<UInt8>, signature: UInt64, cursor: inout Int) -> Int? {
            let first = index + 1
            let end = tokens[index].next
            guard first != end, tokens[index].keys & signature != 0 else { return nil }
            let start = cursor > index && cursor < end ? cursor : first
            var member = start
            repeat {
                let next = tokens[member + 1].next
                if stringEquals(member, key) {
                    cursor = next
                    return member + 1
                }
                member = next == end ? first : next
            } while member != start
            return nil
        }

        /// The value of the member `key` of the object at `index`.
        public func member(of index: Int, key: String) -> Int? {
            var key = key
            return key.withUTF8 { member(of: index, key: $0) }
        }

        /// Whether the string token at `index` holds exactly these UTF-8 bytes (after unescaping).
        @inlinable
        public func stringEquals(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            let token = tokens[index]
            guard !token.hasEscapes else { return string(index).utf8.elementsEqual(key) }
            guard token.end - token.start == key.count else { return false }
            return key.isEmpty || JSONTape.equalBytes(bytes.baseAddress! + token.start, key.baseAddress!, key.count)
        }

        // MARK: Values

        /// The text of the string at `index`.
        @inlinable
        public func string(_ index: Int) -> String {
            JSONTape.decodeString(bytes, tokens[index])
        }

        /// The string at `index` as UTF-8 bytes (unescaped), without copying when it has no escapes.
        @inlinable
        public func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
            let token = tokens[index]
            if token.hasEscapes {
                return try Array(string(index).utf8).withUnsafeBufferPointer { buffer throws(E) in try body(buffer) }
            }
            return try body(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
        }

        /// Whether the string at `index` is all ASCII.
        public func isASCII(_ index: Int) -> Bool { tokens[index].isASCII }

        /// The value of the integer at `index`.
        public func integer(_ index: Int) -> Int {
            JSONTape.integer(UnsafeBufferPointer(rebasing: bytes[tokens[index].start..<tokens[index].end])) ?? 0
        }

        /// The value of the number (integer or decimal) at `index`.
        public func double(_ index: Int) -> Double {
            if kind(index) == .integer { return Double(integer(index)) }
            return JSONTape.double(UnsafeBufferPointer(rebasing: bytes[tokens[index].start..<tokens[index].end])) ?? 0
        }

        /// The value at `index` as a ``JSONValue`` (containers with everything inside them).
        public func value(_ index: Int) -> JSONValue {
            let token = tokens[index]
            switch token.kind {
            case .null: return .null
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .integer: return .integer(integer(index))
            case .number: return .number(double(index))
            case .string: return .string(string(index))
            case .array:
                var items: [JSONValue] = []
                items.reserveCapacity(token.count)
                forEachItem(of: index) { _, item in items.append(value(item)) }
                return .array(items)
            case .object:
                var members: [String: JSONValue] = [:]
                members.reserveCapacity(token.count)
                forEachMember(of: index) { key, member in
                    members[string(key)] = value(member)
                    return true
                }
                return .object(members)
            }
        }

        /// A 64-bit hash of the value at `index` that equal values share: strings hash their text,
        /// other values their canonical JSON. The same in every run, and fast; for telling values
        /// apart across frames without keeping them (not for untrusted hash tables).
        public func valueHash(_ index: Int) -> Int {
            var hash = ValueHash()
            hash.combine(self, index)
            return hash.value
        }

        /// Feeds the value at `index` to a hash, as ``valueHash(_:)`` does.
        public func hash(_ index: Int, into hash: inout ValueHash) {
            hash.combine(self, index)
        }
    }

    /// A fast, deterministic 64-bit hash of JSON values (see ``View/valueHash(_:)``).
    public struct ValueHash: Sendable {
        public private(set) var value: Int = 0x243F_6A88_85A3_08D3

        public init() {}

        /// Mixes in a word.
        public mutating func combine(_ word: UInt64) {
            let mixed = (UInt64(bitPattern: Int64(value)) ^ word) &* 0x9E37_79B9_7F4A_7C15
            value = Int(bitPattern: UInt(mixed ^ (mixed >> 29)))
        }

        /// Mixes in bytes, eight at a time, and their count.
        public mutating func combine(bytes: UnsafeBufferPointer<UInt8>) {
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
        public mutating func combine(_ tape: View, _ index: Int) {
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

    /// Calls `body` with a view of this tape for fast reading.
    @inlinable
    public func withView<R, E: Error>(_ body: (View) throws(E) -> R) throws(E) -> R {
        try bytes.withUnsafeBufferPointer { bytes throws(E) in
            try tokens.withUnsafeBufferPointer { tokens throws(E) in try body(View(bytes: bytes, tokens: tokens)) }
        }
    }

    // MARK: Reading without a view

    /// The kind of the value at `index`.
    public func kind(_ index: Int) -> Kind { tokens[index].kind }
    /// The member count of an object or the item count of an array.
    public func count(_ index: Int) -> Int { tokens[index].count }
    /// The kind as used in validation messages.
    public func kindDescription(_ index: Int) -> String { withView { $0.kindDescription(index) } }
    /// The value of the member `key` of the object at `index`.
    public func member(of index: Int, key: String) -> Int? { withView { $0.member(of: index, key: key) } }
    /// Whether the string token at `index` holds exactly these UTF-8 bytes.
    public func stringEquals(_ index: Int, _ key: [UInt8]) -> Bool { withView { view in key.withUnsafeBufferPointer { view.stringEquals(index, $0) } } }
    /// The text of the string at `index`.
    public func string(_ index: Int) -> String { withView { $0.string(index) } }
    /// The value of the integer at `index`.
    public func integer(_ index: Int) -> Int { withView { $0.integer(index) } }
    /// The value of the number at `index`.
    public func double(_ index: Int) -> Double { withView { $0.double(index) } }
    /// The value at `index` as a ``JSONValue``.
    public func value(_ index: Int) -> JSONValue { withView { $0.value(index) } }
    /// Calls `body` with the position and index of each item of the array at `index`.
    public func forEachItem(of index: Int, _ body: (_ position: Int, _ item: Int) -> Void) {
        withView { $0.forEachItem(of: index, body) }
    }
    /// Calls `body` with the key and value index of each member of the object at `index` until it returns `false`.
    public func forEachMember(of index: Int, _ body: (_ key: Int, _ value: Int) -> Bool) {
        withView { $0.forEachMember(of: index, body) }
    }
    /// The string at `index` as UTF-8 bytes (unescaped), without copying when it has no escapes.
    public func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try withView { view throws(E) in try view.withStringBytes(index, body) }
    }
}

extension JSONTape {
    // MARK: Decoding bytes

    @usableFromInline
    static func decodeString(_ buffer: UnsafeBufferPointer<UInt8>, _ token: Token) -> String {
        let raw = UnsafeBufferPointer(rebasing: buffer[token.start..<token.end])
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(raw.count)
        var position = 0
        while position < raw.count {
            let byte = raw[position]
            position += 1
            guard byte == UInt8(ascii: "\\"), position < raw.count else {
                utf8.append(byte)
                continue
            }
            let escape = raw[position]
            position += 1
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(raw, &position)
                if (0xD800...0xDBFF).contains(scalar), position + 1 < raw.count, raw[position] == UInt8(ascii: "\\") {
                    position += 2
                    let low = hex4(raw, &position)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                }
                utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: utf8.append(escape)  // " \ /
            }
        }
        return String(decoding: utf8, as: UTF8.self)
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

    /// Whether `count` bytes at two addresses are equal.
    @inlinable @inline(__always)
    static func equalBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var offset = 0
        while offset + 8 <= count {
            let left = UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self)
            let right = UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
            if left != right { return false }
            offset += 8
        }
        while offset < count {
            if a[offset] != b[offset] { return false }
            offset += 1
        }
        return true
    }

    /// Whether bytes are well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        let count = bytes.count
        while position < count {
            let lead = bytes[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard position + length <= count else { return false }
            let second = bytes[position + 1]
            guard second >= low, second <= high else { return false }
            for offset in 2..<max(2, length) where bytes[position + offset] & 0xC0 != 0x80 {
                return false
            }
            position += length
        }
        return true
    }
}
