/// Where the `base64` strings are inside a value, so that a `normalized` uniqueness rule can
/// compare them by their decoded bytes. Only the parts of a value that lead to a `base64` string
/// are described; everything else compares as JSON.
public indirect enum ValueShape: Sendable, Hashable {
    /// A `base64` string.
    case base64
    /// An array whose items have a shape.
    case array(ValueShape)
    /// An object whose every member value has a shape (a `map`).
    case map(ValueShape)
    /// An object whose named members have shapes.
    case object([String: ValueShape])
    /// A tagged union: the object's `tag` member selects the members' shapes.
    case union(tag: String, cases: [JSONValue: [String: ValueShape]])
}

extension JSONTape.View {
    /// Mixes the value at `index` (or an absent value, `nil`) into `hash` the way a `normalized`
    /// uniqueness rule compares values: absent, `null`, `[]` and `{}` hash alike, object members
    /// whose values hash as absent are left out, and strings the shape marks as `base64` hash by
    /// their decoded bytes (so padding and white space do not matter).
    ///
    /// The shape is made ready for the walk first (a `ShapePlan`); a rule makes it once.
    @_spi(Generated) public func normalizedHash(_ index: Int?, shape: ValueShape?, into hash: inout JSONTape.ValueHash) {
        normalizedHash(index, plan: shape.map(ShapePlan.init), into: &hash)
    }

    /// Mixes in what a base64 string decodes to, so that texts of the same bytes (padded or not,
    /// with white space or not) mix in alike; returns `false` (mixing in nothing) when the string
    /// is not base64. Most texts hold no white space: their symbols are mixed in where they are,
    /// eight bytes at a time, with no decoding. Others are checked by the full scan and mixed in
    /// without their white space.
    func combineDecodedBase64(_ index: Int, into hash: inout JSONTape.ValueHash) -> Bool {
        withStringBytes(index) { bytes in
            if let symbols = WireFormats.compactBase64Symbols(bytes) {
                Self.combineBase64Symbols(UnsafeBufferPointer(rebasing: bytes[0..<symbols]), into: &hash)
                return true
            }
            guard WireFormats.scanBase64(bytes, { _ in }) != nil else { return false }
            let symbols = bytes.filter { WireFormats.base64Table[Int($0)] < WireFormats.Base64Byte.padding }
            symbols.withUnsafeBufferPointer { Self.combineBase64Symbols($0, into: &hash) }
            return true
        }
    }

    /// Mixes in base64 symbols (valid, without padding or white space) by what they decode to:
    /// two runs of symbols decode to the same bytes exactly when they have the same count, the
    /// same symbols but the last, and the same bits of the last symbol that reach a decoded byte
    /// (all six after a whole group of four, the top two after two, the top four after three).
    private static func combineBase64Symbols(_ symbols: UnsafeBufferPointer<UInt8>, into hash: inout JSONTape.ValueHash) {
        var decoded = JSONTape.ValueHash()
        if let last = symbols.last {
            decoded.combine(bytes: UnsafeBufferPointer(rebasing: symbols.dropLast()))
            let significant: UInt8 =
                switch symbols.count % 4 {
                case 2: 0b11_0000
                case 3: 0b11_1100
                default: 0b11_1111
                }
            decoded.combine(UInt64(WireFormats.base64Table[Int(last)] & significant))
        }
        hash.combine(UInt64(JSONTape.Kind.string.rawValue))
        hash.combine(UInt64(bitPattern: Int64(decoded.value)))
        hash.combine(UInt64(symbols.count))
    }

    /// Whether the value at `index` is a string, a number or a boolean: a value that
    /// ``normalizedHash(_:shape:into:)`` mixes in as it is when it has no shape.
    func isScalar(_ index: Int) -> Bool {
        switch kind(index) {
        case .null, .array, .object: false
        default: true
        }
    }

    /// Whether a value counts as absent for normalized comparison: `null`, `[]` or `{}`.
    func isEmptyValue(_ index: Int) -> Bool {
        switch kind(index) {
        case .null: return true
        case .array, .object: return count(index) == 0
        default: return false
        }
    }
}
