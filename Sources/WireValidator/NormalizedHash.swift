@_spi(Generated) import WireRuntime

extension ValidationPlan {
    /// Mixes the value at `index` (or an absent value, `nil`) into `hash` the way a `normalized`
    /// uniqueness rule compares values: absent, `null`, `[]` and `{}` hash alike, object members
    /// whose values hash as absent are left out, and strings the plan knows as `base64` hash by
    /// their decoded bytes (so padding and white space do not matter). `node` is the plan of the
    /// value, when the spec declares it; without one, values hash as they are.
    func normalizedHash(_ index: Int?, in tape: JSONTape.View, node: Node?, into hash: inout JSONTape.ValueHash) {
        guard let index, !Self.isEmptyValue(index, in: tape) else {
            hash.combine(0)
            return
        }
        switch tape.kind(index) {
        case .string:
            if let rules = node?.stringRules, rules.format == .base64, Self.combineDecodedBase64(index, in: tape, into: &hash) {
                return
            }
            hash.combine(tape, index)
        case .array:
            hash.combine(UInt64(JSONTape.Kind.array.rawValue))
            hash.combine(UInt64(tape.count(index)))
            let element = node?.kind == .array ? node?.element : nil
            tape.forEachItem(of: index) { _, item in normalizedHash(item, in: tape, node: element, into: &hash) }
        case .object:
            let object = objectPlan(of: node, at: index, in: tape)
            var sum: UInt64 = 0
            var members: UInt64 = 0
            tape.forEachMember(of: index) { key, member in
                guard !Self.isEmptyValue(member, in: tape) else { return true }
                var pair = JSONTape.ValueHash()
                pair.combine(tape, key)
                let field = object?.fields.first { field in tape.stringEquals(key, field.keyBytes.bytes) }
                let memberNode = field?.node ?? (node?.kind == .map ? node?.element : nil)
                normalizedHash(member, in: tape, node: memberNode, into: &pair)
                sum &+= UInt64(bitPattern: Int64(pair.value))
                members += 1
                return true
            }
            hash.combine(UInt64(JSONTape.Kind.object.rawValue))
            hash.combine(members)
            hash.combine(sum)
        default:
            hash.combine(tape, index)
        }
    }

    /// Mixes in the bytes a base64 string decodes to, eight at a time, then their count; returns
    /// `false` (mixing in nothing) when the string is not base64.
    private static func combineDecodedBase64(_ index: Int, in tape: JSONTape.View, into hash: inout JSONTape.ValueHash) -> Bool {
        tape.withStringBytes(index) { bytes in
            var decoded = JSONTape.ValueHash()
            var word: UInt64 = 0
            var pending = 0
            guard
                let count = WireFormats.decodeBase64(
                    bytes: bytes,
                    into: { byte in
                        word = word << 8 | UInt64(byte)
                        pending += 1
                        if pending == 8 {
                            decoded.combine(word)
                            word = 0
                            pending = 0
                        }
                    })
            else { return false }
            decoded.combine(word)
            hash.combine(UInt64(JSONTape.Kind.string.rawValue))
            hash.combine(UInt64(bitPattern: Int64(decoded.value)))
            hash.combine(UInt64(count))
            return true
        }
    }

    /// Whether a value counts as absent for normalized comparison: `null`, `[]` or `{}`.
    private static func isEmptyValue(_ index: Int, in tape: JSONTape.View) -> Bool {
        switch tape.kind(index) {
        case .null: return true
        case .array, .object: return tape.count(index) == 0
        default: return false
        }
    }

    /// The object plan of a named object node, or of the union case the object's tag selects.
    private func objectPlan(of node: Node?, at index: Int, in tape: JSONTape.View) -> ObjectPlan? {
        guard let node, node.kind == .named else { return nil }
        switch named[node.named] {
        case .object(let plan):
            return plan
        case .union(let tag, let cases, _, _):
            guard let tagIndex = tape.member(of: index, key: tag) else { return nil }
            let value = tape.value(tagIndex)
            guard let match = cases.first(where: { $0.value == value }), case .object(let plan) = named[match.plan] else { return nil }
            return plan
        default:
            return nil
        }
    }
}
