/// A ``ValueShape`` made ready for hashing tapes: member names and union tags as UTF-8 keys,
/// compared with a tape's keys by their bytes, and inner shapes reached without counting a
/// reference. A normalized fingerprint walks one for every frame of a uniqueness rule with
/// shaped fields (a message's attachments); walking the shape itself copied its enum payloads and
/// dictionaries, a reference counted for each, and compared member names as strings.
///
/// Immutable after `init`; the plan owns every inner plan (`children`), so the unretained
/// references in it live as long as it does.
final class ShapePlan: Sendable {
    enum Kind: Sendable { case base64, array, map, object, union }

    /// A named member of an object or a union case, with its shape.
    struct Member: Sendable {
        let key: UTF8Key
        let shape: Unmanaged<ShapePlan>
    }

    /// A union case: its tag value, the tag's bytes when it is a string, and its members' shapes.
    struct Case: Sendable {
        let tag: JSONValue
        let stringTag: UTF8Key?
        let members: [Member]
    }

    let kind: Kind
    /// The shape of an array's items or a map's members.
    let element: Unmanaged<ShapePlan>?
    /// An object's named members (empty for other kinds).
    let members: [Member]
    /// A union's tag key and cases (none for other kinds).
    let tag: UTF8Key?
    let cases: [Case]
    /// Every plan `element` and the members point to.
    private let children: [ShapePlan]

    init(_ shape: ValueShape) {
        var children: [ShapePlan] = []
        func child(_ shape: ValueShape) -> Unmanaged<ShapePlan> {
            let plan = ShapePlan(shape)
            children.append(plan)
            return .passUnretained(plan)
        }
        func members(_ named: [String: ValueShape]) -> [Member] {
            named.sorted { $0.key < $1.key }.map { Member(key: UTF8Key($0.key), shape: child($0.value)) }
        }
        switch shape {
        case .base64:
            (kind, element, self.members, tag, cases) = (.base64, nil, [], nil, [])
        case .array(let item):
            (kind, element, self.members, tag, cases) = (.array, child(item), [], nil, [])
        case .map(let value):
            (kind, element, self.members, tag, cases) = (.map, child(value), [], nil, [])
        case .object(let named):
            (kind, element, self.members, tag, cases) = (.object, nil, members(named), nil, [])
        case .union(let tagKey, let byTag):
            let cases = byTag.map { value, named in
                let stringTag: UTF8Key? = if case .string(let text) = value { UTF8Key(text) } else { nil }
                return Case(tag: value, stringTag: stringTag, members: members(named))
            }
            (kind, element, self.members, tag, self.cases) = (.union, nil, [], UTF8Key(tagKey), cases)
        }
        self.children = children
    }
}

extension JSONTape.View {
    /// ``normalizedHash(_:shape:into:)`` with the shape made ready (see ``ShapePlan``).
    func normalizedHash(_ index: Int?, plan: ShapePlan?, into hash: inout JSONTape.ValueHash) {
        guard let index, !isEmptyValue(index) else {
            hash.combine(0)
            return
        }
        switch kind(index) {
        case .string:
            if plan?.kind == .base64, combineDecodedBase64(index, into: &hash) { return }
            hash.combine(self, index)
        case .array:
            hash.combine(UInt64(JSONTape.Kind.array.rawValue))
            hash.combine(UInt64(count(index)))
            let element = plan?.kind == .array ? plan?.element : nil
            forEachItem(of: index) { _, item in
                if let element {
                    element._withUnsafeGuaranteedRef { normalizedHash(item, plan: $0, into: &hash) }
                } else {
                    normalizedHash(item, plan: nil, into: &hash)
                }
            }
        case .object:
            var sum: UInt64 = 0
            var members: UInt64 = 0
            let named = plan.map { memberPlans(of: $0, at: index) } ?? .none
            forEachMember(of: index) { key, member in
                guard !isEmptyValue(member) else { return true }
                var pair = JSONTape.ValueHash()
                pair.combine(self, key)
                if let shape = named.shape(ofKey: key, in: self) {
                    shape._withUnsafeGuaranteedRef { normalizedHash(member, plan: $0, into: &pair) }
                } else {
                    normalizedHash(member, plan: nil, into: &pair)
                }
                sum &+= UInt64(bitPattern: Int64(pair.value))
                members += 1
                return true
            }
            hash.combine(UInt64(JSONTape.Kind.object.rawValue))
            hash.combine(members)
            hash.combine(sum)
        default:
            hash.combine(self, index)
        }
    }

    /// The shapes `plan` gives the members of the object at `index` (for a union, the case its
    /// tag names).
    private func memberPlans(of plan: ShapePlan, at index: Int) -> MemberPlans {
        switch plan.kind {
        case .map: return plan.element.map(MemberPlans.every) ?? .none
        case .object: return plan.members.isEmpty ? .none : .named(plan.members)
        case .union:
            guard let tag = plan.tag, let tagIndex = member(of: index, key: tag) else { return .none }
            let found: ShapePlan.Case?
            if kind(tagIndex) == .string {
                // A string tag (the usual kind) is compared with each string case's bytes.
                found = plan.cases.first { $0.stringTag.map { stringEquals(tagIndex, $0.bytes) } ?? false }
            } else {
                let value = value(tagIndex)
                found = plan.cases.first { $0.tag == value }
            }
            guard let members = found?.members, !members.isEmpty else { return .none }
            return .named(members)
        case .base64, .array: return .none
        }
    }
}

/// The shapes of an object's members: none, one for every member (a map), or one per named member.
private enum MemberPlans {
    case none
    case every(Unmanaged<ShapePlan>)
    case named([ShapePlan.Member])

    /// The shape of the member whose key is at `key` in `tape`, compared by its bytes.
    func shape(ofKey key: Int, in tape: JSONTape.View) -> Unmanaged<ShapePlan>? {
        switch self {
        case .none: return nil
        case .every(let element): return element
        case .named(let members):
            return members.withUnsafeBufferPointer { members in
                for position in members.indices where tape.stringEquals(key, members[position].key.bytes) {
                    return members[position].shape
                }
                return nil
            }
        }
    }
}
