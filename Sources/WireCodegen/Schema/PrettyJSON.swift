import WireSpec

/// Renders spec values as indented JSON, members in the order they were built, so schema output
/// is deterministic and reads top-down.
enum PrettyJSON {
    static func render(_ value: SpecValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        return out + "\n"
    }

    private static func write(_ value: SpecValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let close = String(repeating: "  ", count: indent)
        switch value {
        case .array(let items) where !items.isEmpty:
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad
                write(item, indent: indent + 1, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += close + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += pad + SpecValue.string(member.key).description + ": "
                write(member.value, indent: indent + 1, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += close + "}"
        case .array: out += "[]"
        case .object: out += "{}"
        default: out += value.description
        }
    }
}

/// A little builder for ordered JSON objects.
struct JSONObject {
    private(set) var members: [SpecValue.Member] = []

    init(members: [SpecValue.Member] = []) {
        self.members = members
    }

    subscript(key: String) -> SpecValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(SpecValue.Member(key: key, value: newValue))
            }
        }
    }

    var value: SpecValue { .object(members) }
}

extension SpecValue {
    static func strings(_ values: [String]) -> SpecValue { .array(values.map(SpecValue.string)) }
}
