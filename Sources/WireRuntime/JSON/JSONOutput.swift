/// Writes canonical JSON bytes straight from values: object keys sorted by their UTF-8 bytes, no
/// white space, only the escapes JSON requires, integers as written, other numbers in Swift's
/// shortest round-trip form (an integral `Double` is written as an integer, as in RFC 8785).
///
/// Generated types write themselves with it (``WireValue/write(into:)``) in their keys' sorted
/// order, fixed when the code was generated, so encoding builds no dictionary. Each write puts
/// the comma it needs before itself.
///
/// Plumbing of the generated code, behind `@_spi(Generated)`: an app encodes with
/// ``JSONWritable/encoded()`` and writes JSON trees with ``JSONWriter``.
@_spi(Generated) public struct JSONOutput: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8]
    @usableFromInline var needsComma = false

    /// An empty output with room for `capacity` bytes.
    public init(capacity: Int = 128) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// The bytes written so far as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inlinable mutating func separate() {
        if needsComma { storage.append(UInt8(ascii: ",")) }
    }

    @inlinable mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { storage.append(contentsOf: $0) }
    }

    // MARK: Scalars

    /// Writes `null`.
    @inlinable public mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    /// Writes `true` or `false`.
    @inlinable public mutating func bool(_ flag: Bool) {
        separate()
        append(flag ? "true" : "false")
        needsComma = true
    }

    /// Writes an integer.
    @inlinable public mutating func integer(_ number: Int) {
        separate()
        writeDigits(number)
        needsComma = true
    }

    /// Writes a number in its canonical form: integral values that are exact in a `Double` as
    /// integers, others in their shortest round-trip form, non-finite ones as `null`.
    public mutating func number(_ number: Double) {
        // `JSONValue(_:)` holds the rule of the canonical form.
        json(JSONValue(number))
    }

    /// Writes a string, escaped.
    @inlinable public mutating func string(_ text: String) {
        separate()
        var text = text
        text.withUTF8 { writeEscaped($0) }
        needsComma = true
    }

    // MARK: Containers

    /// Starts an object.
    @inlinable public mutating func beginObject() {
        separate()
        storage.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Ends an object.
    @inlinable public mutating func endObject() {
        storage.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Starts an array.
    @inlinable public mutating func beginArray() {
        separate()
        storage.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Ends an array.
    @inlinable public mutating func endArray() {
        storage.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object member's key; its value is written next. Keys must come in sorted order.
    @inlinable public mutating func key(_ key: StaticString) {
        separate()
        key.withUTF8Buffer { writeEscaped($0) }
        storage.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object member's key known only at run time.
    @inlinable public mutating func key(_ key: String) {
        string(key)
        storage.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an array, each item with `writeItem`.
    @inlinable public mutating func array<Items: Sequence>(_ items: Items, _ writeItem: (inout JSONOutput, Items.Element) -> Void) {
        beginArray()
        for item in items { writeItem(&self, item) }
        endArray()
    }

    /// Writes an object from a dictionary, keys sorted by their UTF-8 bytes, each value with `writeValue`.
    @inlinable public mutating func object<Value>(_ members: [String: Value], _ writeValue: (inout JSONOutput, Value) -> Void) {
        beginObject()
        for key in members.keys.sorted(by: JSONOutput.precedes) {
            self.key(key)
            writeValue(&self, members[key]!)
        }
        endObject()
    }

    /// Writes an object from a dictionary with typed keys (a `map<K, V>`), keys written as their
    /// raw strings and sorted by their UTF-8 bytes, each value with `writeValue`.
    @inlinable public mutating func object<Key: RawRepresentable<String>, Value>(
        _ members: [Key: Value], _ writeValue: (inout JSONOutput, Value) -> Void
    ) {
        beginObject()
        for (key, value) in members.map({ ($0.key.rawValue, $0.value) }).sorted(by: { JSONOutput.precedes($0.0, $1.0) }) {
            self.key(key)
            writeValue(&self, value)
        }
        endObject()
    }

    /// Writes a generated value.
    @inlinable public mutating func value(_ value: some JSONWritable) {
        value.write(into: &self)
    }

    /// Writes a free-form JSON value.
    public mutating func json(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .integer(let number): integer(number)
        case .number(let number):
            separate()
            writeDouble(number)
            needsComma = true
        case .string(let text): string(text)
        case .array(let items): array(items) { output, item in output.json(item) }
        case .object(let members): object(members) { output, member in output.json(member) }
        }
    }

    // MARK: Members merged at run time

    /// Object members known only at run time (the fields an object kept, a union's tag), sorted,
    /// to be merged with the members a generated type writes in its fixed order.
    public struct PendingMembers: Sendable {
        @usableFromInline var members: [(key: String, value: JSONValue)]
        @usableFromInline var position = 0

        /// No members.
        @inlinable public init() { members = [] }

        /// The given members (a union's tag and a message's tag), which must be sorted by key.
        public init(sorted members: [(key: String, value: JSONValue)]) { self.members = members }

        /// Adds the members of `fields` whose keys are neither in `known` nor already pending.
        public mutating func add(_ fields: [String: JSONValue], known: Set<String>) {
            guard !fields.isEmpty else { return }
            let pendingKeys = Set(members.map(\.key))
            for (key, value) in fields where !known.contains(key) && !pendingKeys.contains(key) {
                members.append((key, value))
            }
            members.sort { JSONOutput.precedes($0.key, $1.key) }
        }

        @inlinable var isExhausted: Bool { position == members.count }
    }

    /// Writes the pending members whose keys sort before `key`.
    @inlinable public mutating func members(_ pending: inout PendingMembers, before key: StaticString) {
        guard !pending.isExhausted else { return }
        writePending(&pending, before: key)
    }

    /// Writes every pending member not yet written.
    public mutating func remainingMembers(_ pending: inout PendingMembers) {
        while !pending.isExhausted { writeNext(&pending) }
    }

    @usableFromInline mutating func writePending(_ pending: inout PendingMembers, before key: StaticString) {
        while !pending.isExhausted, key.withUTF8Buffer({ pending.members[pending.position].key.utf8.lexicographicallyPrecedes($0) }) {
            writeNext(&pending)
        }
    }

    /// Writes the next pending member.
    private mutating func writeNext(_ pending: inout PendingMembers) {
        let member = pending.members[pending.position]
        self.key(member.key)
        json(member.value)
        pending.position += 1
    }

    // MARK: Bytes

    /// Whether `first` sorts before `second` by UTF-8 bytes, the canonical key order.
    @inlinable public static func precedes(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    @usableFromInline mutating func writeDigits(_ number: Int) {
        // Digits are made from the last one back, dividing by a constant (which the compiler
        // turns into a multiplication), into a buffer as long as the longest Int.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = number.magnitude
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 { storage.append(UInt8(ascii: "-")) }
            storage.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    mutating func writeDouble(_ number: Double) {
        // Swift's description is the shortest text that reads back as the same Double.
        storage.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
    }

    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes `text` as a JSON string. Runs of bytes that need no escape (all but the quote, the
    /// backslash and control bytes) are found eight bytes at a time and copied whole.
    @usableFromInline mutating func writeEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        storage.append(UInt8(ascii: "\""))
        guard let base = text.baseAddress else {
            storage.append(UInt8(ascii: "\""))
            return
        }
        let count = text.count
        var start = 0
        var index = 0
        while index < count {
            while index + 8 <= count {
                let special = JSONTape.Scanner.quoteBackslashOrControl(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if special == 0 {
                    index += 8
                } else {
                    // Only the lowest set bit is exact: it marks the first byte to escape.
                    index += special.trailingZeroBitCount >> 3
                    break
                }
            }
            guard index < count else { break }
            let byte = base[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if index > start { storage.append(contentsOf: UnsafeBufferPointer(start: base + start, count: index - start)) }
            writeEscape(byte)
            index += 1
            start = index
        }
        if count > start { storage.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count - start)) }
        storage.append(UInt8(ascii: "\""))
    }

    /// Writes the escape of a quote, a backslash or a control byte.
    mutating func writeEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): storage.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): storage.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: storage.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: storage.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: storage.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: storage.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: storage.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        default:
            storage.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            storage.append(Self.hexDigits[Int(byte >> 4)])
            storage.append(Self.hexDigits[Int(byte & 0xF)])
        }
    }
}

extension JSONValue {
    /// The value of canonical bytes that ``JSONOutput`` wrote (so they always parse).
    init(canonical bytes: [UInt8]) {
        var tape = JSONTape()
        do {
            try tape.parse(bytes)
        } catch {
            assertionFailure("JSONOutput wrote bytes that are not JSON: \(error)")
            self = .null
            return
        }
        self = tape.value(JSONTape.root)
    }
}
