/// Reading a parsed tape: kinds, members, items and values, by token index.
extension JSONTape {
    /// The index of the root value.
    public static let root = 0

    /// A read-only view of a parsed tape over its storage, for walking it without reference
    /// counting. Valid only inside ``JSONTape/withView(_:)``; it must not escape that call.
    @_spi(Generated) public struct View {
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
            member(of: index, key: key, signature: JSONTape.keySignature(key))
        }

        /// The value of the member `key` of the object at `index`, with the key's signature worked
        /// out once, when the key was made.
        ///
        /// Inlined, so the caller reads the key's bytes and signature where it holds the key, and
        /// counts no reference to it for the call; the search itself is out of line.
        @inline(__always)
        func member(of index: Int, key: UTF8Key) -> Int? {
            member(of: index, keyBytes: key.bytes, signature: key.signature)
        }

        /// ``member(of:key:signature:)``, out of line.
        @inline(never)
        func member(of index: Int, keyBytes: UnsafeBufferPointer<UInt8>, signature: UInt64) -> Int? {
            member(of: index, key: keyBytes, signature: signature)
        }

        /// The value of the member `key` (UTF-8 bytes, whose ``JSONTape/keySignature(_:)`` is
        /// `signature`) of the object at `index`.
        @usableFromInline @inline(__always)
        func member(of index: Int, key: UnsafeBufferPointer<UInt8>, signature: UInt64) -> Int? {
            let sketch = tokens[index].keys
            guard sketch & signature != 0 else { return nil }
            var member = index + 1
            if sketch != ~0 {
                // An exact sketch: every key is plain and its token holds its signature slot, so
                // only a key in the wanted slot has its bytes compared.
                let slot = UInt64(signature.trailingZeroBitCount)
                for _ in 0..<tokens[index].count {
                    if tokens[member].keys == slot, stringEquals(member, key) { return member + 1 }
                    member = tokens[member + 1].next
                }
                return nil
            }
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
            let sketch = tokens[index].keys
            guard first != end, sketch & signature != 0 else { return nil }
            // With an exact sketch, a key token holds its signature slot: a key in another slot
            // is passed over without its bytes compared.
            let anySlot = sketch == ~0
            let slot = UInt64(signature.trailingZeroBitCount)
            let start = cursor > index && cursor < end ? cursor : first
            var member = start
            repeat {
                let next = tokens[member + 1].next
                if anySlot || tokens[member].keys == slot, stringEquals(member, key) {
                    cursor = next
                    return member + 1
                }
                member = next == end ? first : next
            } while member != start
            return nil
        }

        /// Whether the object at `index` has a key sketch that tells its keys' signature slots:
        /// none of its keys holds escapes, and it has at most 32 members.
        @inlinable
        func hasExactKeySketch(_ index: Int) -> Bool { tokens[index].keys != ~0 }

        /// The signature slot of a key of an object with an exact key sketch
        /// (``hasExactKeySketch(_:)``), as the scan worked it out from the key's bytes.
        @inlinable
        func sketchedSlot(ofKey index: Int) -> Int { tokens[index].sketchedSlot }

        /// Whether the string token at `index` holds escapes (its bytes as written are not its text).
        @inlinable
        func hasEscapes(_ index: Int) -> Bool { tokens[index].hasEscapes }

        /// The signature slot of the key token at `index`, from its bytes as written (exact only
        /// when the key holds no escapes).
        @inlinable @inline(__always)
        func keySignatureSlot(ofKey index: Int) -> Int { JSONTape.keySignatureSlot(of: tokens[index], in: bytes) }

        /// The value of the member `key` of the object at `index`.
        public func member(of index: Int, key: String) -> Int? {
            WireFormats.withUTF8(key) { member(of: index, key: $0) }
        }

        /// Whether the string token at `index` holds exactly these UTF-8 bytes (after unescaping).
        /// Inlined where it is called (keys, tags and enum values are compared for every frame);
        /// a string written with escapes is compared out of line.
        @inlinable @inline(__always)
        public func stringEquals(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            let token = tokens[index]
            guard !token.hasEscapes else { return escapedStringEquals(index, key) }
            guard token.end &- token.start == key.count else { return false }
            return key.isEmpty || JSONTape.equalBytes(bytes.baseAddress! + token.start, key.baseAddress!, key.count)
        }

        /// ``stringEquals(_:_:)`` for a string written with escapes: its text, unescaped, against `key`.
        @usableFromInline
        func escapedStringEquals(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
            string(index).utf8.elementsEqual(key)
        }

        // MARK: Values

        /// The text of the string at `index`.
        @inlinable
        public func string(_ index: Int) -> String {
            JSONTape.decodeString(bytes, tokens[index])
        }

        /// The bytes of the string at `index` when it holds no escapes (its bytes are its text),
        /// else `nil`.
        @inlinable @inline(__always)
        func plainStringBytes(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
            let token = tokens[index]
            guard !token.hasEscapes else { return nil }
            return UnsafeBufferPointer(start: bytes.baseAddress.map { $0 + token.start }, count: token.end &- token.start)
        }

        /// The string at `index` as UTF-8 bytes (unescaped), without copying when it has no escapes.
        @inlinable
        @_spi(Generated) public func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
            if let plain = plainStringBytes(index) { return try body(plain) }
            let token = tokens[index]
            let raw = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
            return try JSONTape.withUnescaped(raw, body)
        }

        /// Whether the string at `index` is all ASCII.
        public func isASCII(_ index: Int) -> Bool { tokens[index].isASCII }

        /// The value of the integer at `index` (the scan worked it out); 0 for another kind.
        @inlinable
        public func integer(_ index: Int) -> Int {
            let token = tokens[index]
            return token.kind == .integer ? token.integerValue : 0
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
        /// other values their canonical JSON. Fast, and keyed by a seed chosen when the process
        /// starts (see ``ValueHash``), so values a peer chooses do not collide by design; for telling
        /// values apart across frames without keeping them. It differs from run to run.
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

    /// Calls `body` with a view of this tape for fast reading.
    @inlinable
    @_spi(Generated) public func withView<R, E: Error>(_ body: (View) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBufferPointer { storage throws(E) in
            try tokens.withUnsafeBufferPointer { room throws(E) in
                let document = UnsafeBufferPointer(rebasing: storage[documentBytes])
                return try body(View(bytes: document, tokens: UnsafeBufferPointer(rebasing: room[0..<usedTokens])))
            }
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
    public func stringEquals(_ index: Int, _ key: [UInt8]) -> Bool {
        withView { view in key.withUnsafeBufferPointer { view.stringEquals(index, $0) } }
    }
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
    @_spi(Generated) public func withStringBytes<R, E: Error>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try withView { view throws(E) in try view.withStringBytes(index, body) }
    }
}
